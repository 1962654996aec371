"""The luck of real matches: every three-card variant, played by random moves through the
rules engine, its log stored as JSON and measured as ``arena test --luck`` measures it."""

from __future__ import annotations

import json
import random
import statistics
from typing import Any

import pytest

from arena.cards import Card, new_deck
from arena.luck import BOUND, match_luck, supported
from arena.luck.ledger import Ledger
from arena.luck.three_cards import ThreeCards
from arena.rules import get_variant
from arena.rules.game import Action, MatchState

THREE_CARDS = ("scat", "scat-trips", "dollar-bill", "eenendertigen", "california-quick", "west-lansing",
               "no-elimination", "banking", "schwimmen", "stop-the-bus", "switch")


def played(variant: str, players: int, seed: int) -> list[dict[str, Any]]:
    """A match of uniformly random moves, its log as stored (through JSON)."""
    state = get_variant(variant).new_match(players, seed=seed)
    dice = random.Random(seed)
    while not state.is_over:
        state.apply(dice.choice(state.legal_actions()))
    return list(json.loads(json.dumps([event.full() for event in state.log])))


@pytest.mark.parametrize("variant", THREE_CARDS)
def test_every_three_card_variant_is_measured_within_the_bound(variant: str) -> None:
    assert supported(variant)
    players = 3
    measured = [match_luck(variant, players, {}, seed, played(variant, players, seed)) for seed in range(6)]
    assert all(m is not None for m in measured)
    totals = [x for m in measured if m is not None for x in m.seats]
    assert all(abs(x) <= BOUND for x in totals)
    assert any(abs(x) > 0.01 for x in totals)
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


def test_a_log_the_engine_would_not_play_again_or_an_unsupported_family_has_no_luck() -> None:
    events = played("scat", 3, 1)
    assert match_luck("scat", 3, {}, 1, events) is not None
    assert match_luck("scat", 3, {}, 2, events) is None  # dealt from another seed: other hands
    assert match_luck("scat", 3, {}, 1, events[:-3] + [{"event": "mystery"}] * 3) is None
    assert not supported("skat") and not supported("fifty-one")
    skat = get_variant("skat").new_match(3, seed=1)
    assert match_luck("skat", 3, {}, 1, [e.full() for e in skat.log]) is None
