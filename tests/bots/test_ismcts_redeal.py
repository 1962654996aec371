"""The search bot's widow-family deals without replay (bots/ismcts/redeal.py).

Hypothesis plays a widow-family match at random for a while and takes the seat to move.
Given the true opponents' hands and the true stock, the redealt state must be the real
round as far as the rules can tell: the same observations for every seat, the same legal
actions, and the same round end after the same continuation.  The true hands must never
be ruled out by the history, and every sampled deal must keep each card the seat has seen
where it is, with no card twice.  (That a state's clones play on independently is
``MatchState.clone``'s own property: tests/rules/test_clone.py.)
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.cards import new_deck
from arena.rules import Action, MatchState, get_variant

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bots" / "ismcts"))

from infoset import read_round, sample_state  # noqa: E402
from playout import playout_for  # noqa: E402
from redeal import Redealer  # noqa: E402

WIDOW_VARIANTS = ("schwimmen", "stop-the-bus", "switch")
KNOCK_CHANCE = 0.05
"""Chance that a random player knocks when it may (more would end rounds at once)."""
SHOWN = ("stock", "phase", "passes", "dealer_choice")
"""Observation fields a redealt round must show every seat exactly as the real one does (the
table too, up to the order of cards within a table hand: the order of an opponent's cards,
which a whole-hand swap lays out, is not known)."""


def _random_play(state: Any, rng: random.Random, steps: int, stop_at_round_end: bool = False) -> None:
    """``steps`` random actions (knocks rare); with ``stop_at_round_end``, not past the round."""
    rounds = state.round
    for _ in range(steps):
        if state.is_over or (stop_at_round_end and state.round != rounds):
            return
        legal = state.legal_actions()
        calm = [a for a in legal if a.kind != "knock"]
        state.apply(rng.choice(legal if rng.random() < KNOCK_CHANCE or not calm else calm))


def _setup(variant: str, players: int, seed: int, steps: int) -> tuple[Any, int, Any, Redealer] | None:
    """A random match position, the seat to move, its knowledge, and a redealer for it."""
    rules = get_variant(variant)
    real: Any = rules.new_match(players, seed=seed)
    _random_play(real, random.Random(seed), steps)
    if real.is_over:
        return None
    seat = real.to_move
    options = rules.resolve()
    knowledge = read_round(real.events_for(seat), seat, rules, options)
    assert knowledge is not None
    policy = playout_for(rules, options)
    declines: list[int] = []
    template = sample_state(rules, options, knowledge, random.Random(seed), policy.value, None, declines)
    assert template is not None, "no deal fits the history"
    return real, seat, knowledge, Redealer(knowledge, template[1], declines, policy, options)


def _table(observation: Mapping[str, Any]) -> list[tuple[list[str], list[int]]]:
    """The table hands as (face-up cards in order of name, places face down)."""
    hands = observation.get("table")
    if hands is None:
        hands = [observation["widow"]] if observation.get("widow") else []
    return [(sorted(c for c in hand if c), [i for i, c in enumerate(hand) if c is None]) for hand in hands]


def _round_end(state: MatchState) -> Mapping[str, Any]:
    return next(e.public for e in reversed(state.log) if e.kind == "round_end")


@settings(max_examples=80, deadline=None, derandomize=True)
@given(variant=st.sampled_from(WIDOW_VARIANTS), players=st.integers(2, 5), seed=st.integers(0, 2**32),
       steps=st.integers(0, 120))
@example(variant="schwimmen", players=3, seed=334, steps=0)  # an opponent dealt a 31 while the dealer chooses
def test_the_true_deal_redealt_is_the_real_round(variant: str, players: int, seed: int, steps: int) -> None:
    setup = _setup(variant, players, seed, steps)
    if setup is None:
        return
    real, seat, knowledge, redealer = setup
    seats = knowledge.seats  # replayed seat -> real seat
    hands = {sim: real.hands[r] for sim, r in enumerate(seats) if sim != knowledge.me}
    for sim, hand in hands.items():
        assert redealer.likelihood(sim, hand) > 0, "the history rules out the true hands"
    stock = real.stock.clone()
    hidden = [real.table[h][p] for h, p in redealer.hidden] + [real.discarded[i] for i in redealer.lost]
    built = redealer.build(hands, hidden + stock.deal_many(len(stock)))

    for sim, r in enumerate(seats):
        theirs, mine = built.observe(sim), real.observe(r)
        assert sorted(theirs["hand"]) == sorted(mine["hand"])
        for field in SHOWN:
            assert theirs.get(field) == mine.get(field), field
        assert _table(theirs) == _table(mine)
        assert theirs["knocker"] == (None if mine["knocker"] is None else seats.index(mine["knocker"]))
    assert seats[built.to_move] == real.to_move
    assert {a.text for a in built.legal_actions()} == {a.text for a in real.legal_actions()}

    rng = random.Random(seed ^ 1)
    start_round = real.round
    while real.round == start_round and not real.is_over:
        assert seats[built.to_move] == real.to_move
        action = rng.choice(sorted(a.text for a in real.legal_actions()))
        real.apply(Action.parse(action))
        built.apply(Action.parse(action))
    assert built.is_over  # replayed tables play one round
    ours, theirs = _round_end(built), _round_end(real)
    assert ours["end"] == theirs["end"]
    assert ours["lives_lost"] == [theirs["lives_lost"][r] for r in seats]
    assert ours["values"] == {str(seats.index(int(s))): v for s, v in theirs["values"].items()}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(variant=st.sampled_from(WIDOW_VARIANTS), players=st.integers(2, 5), seed=st.integers(0, 2**32),
       steps=st.integers(0, 120))
def test_redealt_deals_keep_what_the_seat_has_seen(variant: str, players: int, seed: int, steps: int) -> None:
    setup = _setup(variant, players, seed, steps)
    if setup is None:
        return
    real, seat, knowledge, redealer = setup
    me = knowledge.me
    mine = real.observe(seat)
    deck = sorted(new_deck(real.options["deck"]))
    rng = random.Random(seed)
    for _ in range(5):
        state = redealer.sample(rng)
        assert state is not None, "no redeal fits the history"
        theirs = state.observe(me)
        assert sorted(theirs["hand"]) == sorted(mine["hand"])
        assert _table(theirs) == _table(mine)
        for sim, r in enumerate(knowledge.seats):
            if sim != me:
                assert set(knowledge.known[r]) <= set(state.hands[sim]), "an opponent lost a card it took"
                assert not set(state.hands[sim]) & (set(deck) - set(knowledge.pool) - set(knowledge.known[r]))
        everywhere = [c for h in state.hands for c in h] + [c for t in state.table for c in t] + list(state.discarded)
        everywhere += state.stock.clone().deal_many(len(state.stock))
        assert sorted(everywhere) == deck, "a card is missing or dealt twice"

