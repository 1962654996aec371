"""The luck of real matches: every built-in variant, played by random moves through the
rules engine, its log stored as JSON and measured as ``arena test --luck`` measures it."""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
from typing import Any

import pytest
from played import clearing_fifty_one

from arena.cards import Card, new_deck
from arena.luck import BOUND, match_luck, supported
from arena.luck.ledger import Ledger
from arena.luck.three_cards import ThreeCards
from arena.rules import get_variant, variants
from arena.rules.game import Action, MatchState

VARIANTS = ("scat", "scat-trips", "dollar-bill", "eenendertigen", "california-quick", "west-lansing",
            "no-elimination", "banking", "schwimmen", "stop-the-bus", "switch", "fifty-one", "fifty-one-chinese",
            "empat-satu", "skat")


def played(variant: str, players: int, seed: int) -> list[dict[str, Any]]:
    """A match of uniformly random moves, its log as stored (through JSON)."""
    state = get_variant(variant).new_match(players, seed=seed)
    dice = random.Random(seed)
    while not state.is_over:
        state.apply(dice.choice(state.legal_actions()))
    return list(json.loads(json.dumps([event.full() for event in state.log])))


def test_every_built_in_variant_has_a_luck_estimate() -> None:
    assert set(VARIANTS) == set(variants())
    assert all(supported(v) for v in VARIANTS) and not supported("no-such-variant")


@pytest.mark.parametrize(("variant", "players"), [*((v, 3) for v in VARIANTS), ("scat", 2), ("scat", 7),
                                                   ("empat-satu", 7), ("skat", 4)])
def test_every_variant_is_measured_within_the_bound(variant: str, players: int) -> None:
    """Three seats, and heads-up, above five (the deal's cyclic shifts) and Skat's four."""
    measured = [match_luck(variant, players, {}, seed, played(variant, players, seed), bound=0.2)
                for seed in range(6)]
    assert all(m is not None for m in measured)
    totals = [x for m in measured if m is not None for x in m.seats]
    assert all(abs(x) <= 0.2 for x in totals) and BOUND >= 0.2
    assert any(abs(x) > 0.001 for x in totals)
    for m in measured:
        assert m is not None
        for seat, total in enumerate(m.seats):
            assert total == pytest.approx(sum(part[seat] for part in m.parts.values()))


def test_the_luck_of_scat_has_mean_zero_over_many_matches() -> None:
    """Deterministic (seeded matches): a candidate set that missed or added a card, or a
    deal averaged over the wrong hands, shows as a mean far from zero."""
    lucks: list[list[float]] = [[], [], []]
    for seed in range(400):
        measured = match_luck("scat", 3, {}, seed, played("scat", 3, seed), bound=1e9)
        assert measured is not None
        for seat, value in enumerate(measured.seats):
            lucks[seat].append(value)
    for seat in lucks:
        error = statistics.stdev(seat) / len(seat) ** 0.5
        assert abs(statistics.fmean(seat)) < 4 * error
        assert statistics.stdev(seat) > 0.05


class Checked(ThreeCards):
    """Checks that a draw's outcomes are exactly the cards nobody can see: the deck less
    every hand (the drawn card aside), the discard pile and the widow."""

    draws = 0

    def _draw(self, state: MatchState, seat: int, candidates: list[Card]) -> None:
        hands: list[list[Card]] = state.hands  # type: ignore[attr-defined]
        seen = {c for s, hand in enumerate(hands) for c in (hand[:-1] if s == seat else hand)}
        seen |= set(state.pile) | set(state.widow)  # type: ignore[attr-defined]
        deck = set(new_deck(int(state.options["deck"])))
        assert sorted(deck - seen) == candidates
        assert hands[seat][-1] in candidates
        Checked.draws += 1
        super()._draw(state, seat, candidates)


@pytest.mark.parametrize(("variant", "options"), [("scat", {}), ("eenendertigen", {}),
                                                  ("scat", {"stock_out": "reshuffle"})])
def test_a_draw_can_give_exactly_the_cards_out_of_sight(variant: str, options: dict[str, Any]) -> None:
    Checked.draws = 0
    reshuffles = 0
    for seed in range(3):
        state = get_variant(variant).new_match(4, seed=seed, options=options)
        follower = Checked(state, Ledger(4, {"deal": 1.0, "draw": 1.0, "last draw": 1.0}, 1e9))
        follower.after(state, 0)
        dice = random.Random(seed)
        while not state.is_over:
            legal = state.legal_actions()  # drawing and never knocking, some rounds empty the stock
            action: Action = dice.choice([a for a in legal if a.kind not in ("knock", "take")] or legal)
            done = len(state.log)
            follower.before(state, action)
            state.apply(action)
            follower.after(state, done)
        reshuffles += sum(event.kind == "reshuffle" for event in state.log)
    assert Checked.draws > 100
    assert reshuffles > 0 or options.get("stock_out") != "reshuffle"


def test_a_log_the_engine_would_not_play_again_has_no_luck() -> None:
    events = played("scat", 3, 1)
    assert match_luck("scat", 3, {}, 1, events) is not None
    assert match_luck("scat", 3, {}, 2, events) is None  # dealt from another seed: other hands
    assert match_luck("scat", 3, {}, 1, events[:-3] + [{"event": "mystery"}] * 3) is None
    skat = played("skat", 3, 1)
    assert match_luck("skat", 3, {}, 1, skat) is not None
    assert match_luck("skat", 3, {}, 2, skat) is None


def test_a_reshuffle_logged_before_the_clear_that_caused_it_is_played_again() -> None:
    """Fifty-One logs the reshuffle of a short stock before the clear that needed it."""
    events = clearing_fifty_one(0)
    assert any(e["event"] == "reshuffle" for e in events)
    assert match_luck("fifty-one", 3, {}, 0, events) is not None


def test_a_forfeit_the_engine_ignores_ends_the_replay_instead_of_looping() -> None:
    """A stored forfeit after the match ended leaves the engine's log as it was: the replay
    must give up, not apply it forever (run apart, with a budget a replay of milliseconds
    cannot miss)."""
    events = played("scat", 3, 1)
    stray = [*events, {"event": "forfeit", "seat": 0}]
    code = ("import json, sys; from arena.luck import match_luck; "
            "print(match_luck('scat', 3, {}, 1, json.load(sys.stdin)))")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(stray), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "None", done.stderr


def test_a_match_with_a_forfeit_is_measured_to_its_end() -> None:
    state = get_variant("scat").new_match(4, seed=3)
    dice = random.Random(3)
    for _ in range(30):
        state.apply(dice.choice(state.legal_actions()))
    state.forfeit(2)
    while not state.is_over:
        state.apply(dice.choice(state.legal_actions()))
    events = [event.full() for event in state.log]
    assert any(e["event"] == "forfeit" for e in events)
    measured = match_luck("scat", 4, {}, 3, events)
    assert measured is not None and any(measured.seats)
