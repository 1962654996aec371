"""Property tests for Skat (docs/RULES.md 6): random play of whole matches under random
seeds, tables of three and four, random option values and occasional forfeits.

At every step: the 32 cards are all in one place each (hands, skat, tricks taken, the
trick on the table), no observation or event view shows a seat another seat's cards or a
skat it has not picked up (the declarer's hand is public only in an ouvert game), every
listed legal action applies and random illegal ones are refused without a trace.  Every
deal played to its tenth trick shares out exactly 120 card points, scores add up, and the
match replays to an identical log.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from invariants import (
    Steps,
    cards_in,
    check_decision,
    check_event_views,
    check_finished,
    check_replay,
    names,
    property_settings,
)

from arena.cards import new_deck
from arena.rules import Action, get_variant
from arena.rules.game import rank_placements

SKAT = get_variant("skat")
SETTINGS = property_settings(max_examples=25)


def played(state: Any) -> list[Any]:
    """Every card played in the current deal: tricks taken and the trick on the table."""
    return [c for taken in state.taken for c in taken] + [c for _, c in state.trick]


def check_conservation(state: Any) -> None:
    held = [c for hand in state.hands for c in hand] + list(state.skat) + played(state)
    assert Counter(held) == Counter(new_deck(32)), "a card is lost or in two places"
    for seat in range(state.players):
        size = len(state.hands[seat])
        if seat not in state.order:
            assert size == 0
        elif seat == state.declarer and state.observe(seat)["phase"] == "discard":
            assert size == 12
        else:
            assert size == 10 - state._played[seat]


def check_observations(state: Any) -> None:
    """Each seat sees its hand, what was played, its own skat as declarer after picking it
    up, and the declarer's hand in an ouvert game; never anything else."""
    public = names(played(state))
    ouvert = state.contract is not None and state.contract.ouvert
    declarer = state.declarer
    for seat in range(state.players):
        obs = state.observe(seat)
        assert obs["hand"] == [str(c) for c in state.hands[seat]]
        allowed = names(state.hands[seat]) | public
        if seat == declarer and state.picked:
            allowed |= names(state.skat) | names(state.picked)
        if ouvert and declarer is not None:
            allowed |= names(state.hands[declarer])
        seen = cards_in(obs)
        assert seen <= allowed, f"seat {seat} sees {seen - allowed}"
        assert "seed" not in obs
        if seat != declarer or not state.picked:
            assert obs["skat"] is None and obs["picked_up"] is None


def check_events(state: Any, new: list[Any], public_before: set[str]) -> None:
    """Public parts name only cards played (or an ouvert hand as it is laid down), and the
    skat once a deal is over."""
    for e in new:
        check_event_views(e, state.players)
        shown = cards_in(e.view(None))
        if e.kind == "round_end":
            assert shown == cards_in(e.public.get("skat", []))
        elif e.kind == "action":
            assert shown <= cards_in(e.public["action"]) | cards_in(e.public.get("ouvert_hand", [])), e
        elif e.kind == "trick":
            assert shown <= public_before | names(played(state)) | cards_in(e.public["cards"])
        else:
            assert e.kind in ("round_start", "deal", "forfeit", "match_end"), e.kind
            assert not shown


def check_round_end(end: dict[str, Any], before: list[int], options: dict[str, Any]) -> None:
    """Scores move by the changes; a deal played out shares 120 card points; a game's result
    agrees with its points, value and bid."""
    assert end["scores"] == [a + b for a, b in zip(before, end["changes"])]
    if end["end"] not in ("played", "ramsch"):
        assert not any(end["changes"])
        return
    if sum(end["tricks_won"]) == 10:
        assert sum(end["card_points"]) == 120
    if end["end"] == "ramsch":
        assert sum(end["tricks_won"]) == 10 and sum(1 for c in end["changes"] if c > 0) <= 1
        return
    declarer, game = end["declarer"], end["game"]
    if game == "null":
        assert end["won"] == (end["tricks_won"][declarer] == 0)
    else:
        points = end["card_points"][declarer]
        if end["won"]:
            assert points >= 61 and end["value"] >= end["bid"]
            assert "schneider" not in end["announced"] or points >= 90
            assert "schwarz" not in end["announced"] or end["tricks_won"][declarer] == 10
        elif not end["overbid"]:
            assert points <= 60 or "schneider" in end["announced"]
    if options.get("scoring", "plain") == "plain":
        assert (end["changes"][declarer] > 0) == end["won"]
        assert sum(1 for c in end["changes"] if c) == 1


def random_illegal(state: Any, rng: random.Random) -> list[Action]:
    legal = set(state.legal_actions())
    deck = new_deck(32)
    pool = [Action.of(k) for k in ("hold", "pass", "pickup", "hand", "kontra", "re")]
    pool += [Action.of("bid", arg=str(v)) for v in (18, 20, 21, 59, 264, 300)]
    pool += [Action.of("declare", arg=w) for w in ("clubs", "grand hand", "null", "null hand ouvert", "clubs ouvert")]
    for _ in range(3):
        a, b = sorted(rng.sample(deck, 2))
        pool += [Action.of("play", a), Action.of("discard", a, b), Action.of("discard", b, a)]
    return [a for a in pool if a not in legal]


def choose(state: Any, rng: random.Random, pass_p: float) -> Action:
    """Random play with a bidding habit: pass often, else the next value or a hold."""
    legal = state.legal_actions()
    phase = state.observe(state.to_move)["phase"]
    if phase in ("bid", "answer"):
        if rng.random() < pass_p:
            return Action.of("pass")
        return legal[0] if rng.random() < 0.8 else rng.choice(legal)
    return rng.choice(legal)


def play_randomly(players: int, seed: int, options: dict[str, Any], rng: random.Random, pass_p: float,
                  forfeit_p: float) -> tuple[Any, Steps]:
    state: Any = SKAT.new_match(players, seed=seed, options=options)
    steps: Steps = []
    resolved = SKAT.resolve(options)
    check_events(state, state.log, set())
    seen = len(state.log)
    scores = [0] * players
    while not state.is_over:
        assert len(steps) < 20_000, "the match does not end"
        seat = state.to_move
        check_conservation(state)
        check_observations(state)
        check_decision(state, rng, random_illegal(state, rng), refusals=2, copy_p=0.03, copies=3)
        before = names(played(state))
        if rng.random() < forfeit_p:
            quitter = rng.randrange(players)
            state.forfeit(quitter)
            steps.append((quitter, None))
        else:
            action = choose(state, rng, pass_p)
            state.apply(action)
            steps.append((seat, action))
        new = state.log[seen:]
        check_events(state, new, before)
        for e in new:
            if e.kind == "round_end":
                check_round_end(dict(e.public), scores, resolved)
                scores = list(e.public["scores"])
        seen = len(state.log)
    return state, steps


@SETTINGS
@given(
    players=st.sampled_from([3, 4]),
    seed=st.integers(0, 2**64 - 1),
    rng_seed=st.integers(0, 2**32 - 1),
    deals=st.integers(1, 2),
    options=st.fixed_dictionaries({}, optional={
        "all_pass": st.sampled_from(["throw_in", "ramsch"]),
        "lost_scoring": st.sampled_from(["source", "official"]),
        "kontra": st.booleans(),
        "scoring": st.sampled_from(["plain", "seeger"]),
        "max_turns": st.integers(3, 120),
    }),
    pass_p=st.sampled_from([0.1, 0.5, 0.9]),
    forfeit_p=st.sampled_from([0.0, 0.0, 0.005]),
)
def test_random_play_invariants(players: int, seed: int, rng_seed: int, deals: int, options: dict[str, Any],
                                pass_p: float, forfeit_p: float) -> None:
    options = {**options, "rounds": players * deals}
    state, steps = play_randomly(players, seed, options, random.Random(rng_seed), pass_p, forfeit_p)
    outcome = check_finished(state, players * deals)
    forfeits = [e.seat for e in state.log if e.kind == "forfeit"]
    keys = [(-1, forfeits.index(s)) if s in forfeits else (1, state.scores[s]) for s in range(players)]
    assert outcome.placements == rank_placements(keys)
    assert list(outcome.scores) == [float(s) for s in state.scores]
    check_replay(state, options, steps)


@SETTINGS
@given(seed=st.integers(0, 2**64 - 1), rng_seed=st.integers(0, 2**32 - 1))
def test_every_deal_played_out_shares_120_card_points(seed: int, rng_seed: int) -> None:
    """Games played to the last trick (no null) always share out the deck's 120 points."""
    rng = random.Random(rng_seed)
    state: Any = SKAT.new_match(3, seed=seed, options={"rounds": 3, "all_pass": "ramsch"})
    while not state.is_over:
        legal = state.legal_actions()
        declares = [a for a in legal if a.kind == "declare" and not a.arg.startswith("null")]
        state.apply(rng.choice(declares or legal))
    for e in state.log:
        if e.kind == "round_end" and e.public["end"] in ("played", "ramsch") and sum(e.public["tricks_won"]) == 10:
            assert sum(e.public["card_points"]) == 120
