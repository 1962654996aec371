"""``MatchState.clone``: a copy that plays on independently, in every registered variant.

Hypothesis plays a match at random for a while (from a public seed or a secret key) and
clones it.  Random play on the clone, with forfeits, must leave the original's
observations, legal actions and log as they were; the original given the same
continuation must reach the very same log and outcome; and a second clone taken at the
same moment must not change while the original plays on.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from invariants import property_settings

from arena.rules import Action, MatchState, get_variant, variants

VARIANTS = list(variants())
SETTINGS = property_settings(max_examples=12)
FORFEIT_CHANCE = 0.01
"""Chance that the seat to move forfeits instead of acting, in the clone's continuation."""

Moves = list[tuple[int, Action | None]]
"""``(seat, action)``, or ``(seat, None)`` where the seat forfeited."""


def view(state: MatchState) -> tuple[Any, ...]:
    """Everything a referee or a search reads of a state."""
    return (
        [state.observe(seat) for seat in range(state.players)],
        [action.text for action in state.legal_actions()],
        [event.full() for event in state.log],
        state.to_move,
        state.round,
        state.outcome,
    )


def play(state: MatchState, rng: random.Random, steps: int, forfeits: float = 0.0) -> Moves:
    """Up to ``steps`` random decisions (the seat to move forfeits with chance ``forfeits``)."""
    moves: Moves = []
    for _ in range(steps):
        seat = state.to_move
        if seat is None:
            break
        if rng.random() < forfeits:
            state.forfeit(seat)
            moves.append((seat, None))
        else:
            action = rng.choice(state.legal_actions())
            state.apply(action)
            moves.append((seat, action))
    return moves


def replay(state: MatchState, moves: Moves) -> None:
    for seat, action in moves:
        if action is None:
            state.forfeit(seat)
        else:
            assert state.to_move == seat
            state.apply(action)


@pytest.mark.parametrize("variant_name", VARIANTS)
@SETTINGS
@given(data=st.data())
def test_a_clone_plays_on_independently_and_alike(variant_name: str, data: Any) -> None:
    variant = get_variant(variant_name)
    players = data.draw(st.integers(variant.min_players, min(variant.max_players, 5)), label="players")
    seed = data.draw(st.one_of(st.integers(0, 2**64 - 1), st.binary(min_size=16, max_size=32)), label="seed")
    state = variant.new_match(players, seed=seed)
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="play"))
    play(state, rng, data.draw(st.integers(0, 200), label="decisions before the clone"))
    before = view(state)
    twin, spare = state.clone(), state.clone()
    assert type(twin) is type(state)
    assert view(twin) == before

    continuation = play(twin, rng, 100_000, FORFEIT_CHANCE)
    assert view(state) == before, "playing on the clone changed the original"

    replay(state, continuation)
    assert [e.full() for e in state.log] == [e.full() for e in twin.log]
    assert state.outcome == twin.outcome
    assert view(spare) == before, "playing on the original changed a clone"
