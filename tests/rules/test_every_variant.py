"""What the game interface promises in every registered variant, whatever its family."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import Action, get_variant, variants

VARIANTS = list(variants())


@pytest.mark.parametrize("variant_name", VARIANTS)
@settings(max_examples=10, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**64 - 1), data=st.data())
def test_same_seed_same_deal(variant_name: str, seed: int, data: Any) -> None:
    variant = get_variant(variant_name)
    players = data.draw(st.integers(variant.min_players, variant.max_players), label="players")
    a = variant.new_match(players, seed=seed)
    b = variant.new_match(players, seed=seed)
    assert [e.full() for e in a.log] == [e.full() for e in b.log]
    assert [a.observe(s) for s in range(players)] == [b.observe(s) for s in range(players)]
    other = variant.new_match(players, seed=seed ^ 1)
    assert [e.full() for e in other.log] != [e.full() for e in a.log]


@pytest.mark.parametrize("variant_name", VARIANTS)
def test_an_action_equal_to_a_legal_one_acts_alike(variant_name: str) -> None:
    """``apply`` takes any action equal to a legal one, not only the interned instance."""
    variant = get_variant(variant_name)
    interned, built = variant.new_match(3, seed=5), variant.new_match(3, seed=5)
    rng = random.Random(5)
    while not interned.is_over:
        action = rng.choice(interned.legal_actions())
        interned.apply(action)
        built.apply(Action(action.kind, action.cards, action.arg))
    assert [e.full() for e in built.log] == [e.full() for e in interned.log]


@pytest.mark.parametrize("variant_name", VARIANTS)
def test_a_deep_copy_plays_on_like_the_state(variant_name: str) -> None:
    """A deep copy of a state (as search bots make) takes the actions listed by the
    original to the same log: its own legal actions are copies, not the interned ones."""
    variant = get_variant(variant_name)
    state = variant.new_match(3, seed=6)
    rng = random.Random(6)
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        twin = copy.deepcopy(state)
        state.apply(action)
        twin.apply(action)
        assert [e.full() for e in twin.log] == [e.full() for e in state.log]


@pytest.mark.parametrize("variant_name", VARIANTS)
def test_a_secret_key_deals_whole_matches(variant_name: str) -> None:
    """Deals from a secret key (tournaments, unseeded matches): every round dealt, the
    match played to its end, the same key the same match, another key
    another deal."""
    variant = get_variant(variant_name)
    key = bytes(range(32))
    state, twin = variant.new_match(3, seed=key), variant.new_match(3, seed=key)
    rng = random.Random(9)
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        state.apply(action)
        twin.apply(action)
    assert [e.full() for e in twin.log] == [e.full() for e in state.log]
    assert state.outcome is not None
    other = variant.new_match(3, seed=bytes(32))
    assert [e.full() for e in other.log][:3] != [e.full() for e in variant.new_match(3, seed=key).log][:3]
