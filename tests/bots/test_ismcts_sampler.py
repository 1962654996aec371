"""The search bot's sampler deals only cards the seat has not seen, and its deals replay.

Hypothesis picks a variant of the draw-and-discard family, a table size, a match seed and
a history (a random mix of actions, knocks made rare so rounds run long), then takes the
seat to move.  What that seat knows is worked out here from the engine's real state and
the public events, independently of the bot: its own hand, the whole discard pile, the
face-up widow, and the cards each opponent took face up and still holds.  Every sampled
deal must leave all of these where they are, and the round replayed on it must look to
the seat exactly as the real one does.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import Card, new_deck, parse_card, shuffled_deck
from arena.rules import MatchState, get_variant

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bots" / "ismcts"))

from infoset import read_round, replay, sample_state  # noqa: E402
from playout import ScatPlayout  # noqa: E402

VARIANTS = ("scat", "scat-trips", "eenendertigen", "california-quick", "west-lansing", "no-elimination", "banking")
KNOCK_CHANCE = 0.03
"""Chance that a history's random player knocks when it may (more would end rounds at once)."""
SAMPLES = 5
"""Deals drawn per history."""
COMPARED = ("hand", "discard_top", "discard_size", "stock", "phase", "widow", "must_keep")
"""Observation fields the replayed round must show the seat exactly as the real one does."""


def _history(variant: str, players: int, seed: int, steps: int, style: int) -> tuple[MatchState, list[Card]]:
    """A match after ``steps`` random actions, and the deck its first round was dealt from."""
    rng = random.Random(style)
    rules = get_variant(variant)
    deck = shuffled_deck(seed, rules.resolve()["deck"])
    state = rules.new_match(players, seed=seed, decks=[deck])
    for _ in range(steps):
        legal = state.legal_actions()
        calm = [a for a in legal if a.kind != "knock"]
        pool = legal if rng.random() < KNOCK_CHANCE or not calm else calm
        state.apply(rng.choice(pool))
        if state.is_over:
            break
    return state, deck


def _held_face_up(events: Sequence[Mapping[str, Any]]) -> dict[int, set[Card]]:
    """Per seat, the cards it took face up this round and has not let go since."""
    held: dict[int, set[Card]] = {}
    for event in events:
        if event["event"] == "round_start":
            held = {}
        if event["event"] != "action":
            continue
        cards = held.setdefault(event["seat"], set())
        words = event["action"].split()
        if words[0] == "take":
            cards.add(parse_card(event["card"]))
        elif words[0] == "discard":
            cards.discard(parse_card(words[1]))
        elif words[0] == "exchange":
            cards -= {parse_card(w) for w in words[1:words.index("for")]}
            cards |= {parse_card(c) for c in event["taken_face_up"]}
    return held


@settings(max_examples=80, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**64 - 1),
    steps=st.integers(0, 160),
    style=st.integers(0, 2**32),
    informed=st.booleans(),
)
def test_sampled_deals_keep_every_card_the_seat_has_seen(
    variant: str, players: int, seed: int, steps: int, style: int, informed: bool
) -> None:
    real: Any
    real, true_deck = _history(variant, players, seed, steps, style)
    if real.is_over:
        return
    seat = real.to_move
    events = real.events_for(seat)
    options = real.variant.resolve()
    knowledge = read_round(events, seat, options)
    assert knowledge is not None
    held = _held_face_up(events)
    widow_up = {i: c for i, (c, up) in enumerate(zip(real.widow, real.widow_up)) if up}
    seen = set(real.hands[seat]) | set(real.pile) | set(widow_up.values())
    for s, cards in held.items():
        if s != seat:
            seen |= cards
    assert not seen & set(knowledge.pool), "the pool holds cards the seat has seen"
    thrown = sum(1 for moves in knowledge.unseen.values() for _, card in moves if card is not None)
    assert len(knowledge.pool) == knowledge.positions.count(None) - thrown
    if real.round == 1:
        assert replay(real.variant, options, knowledge, true_deck) is not None, "the true deal does not fit"

    rng = random.Random(seed)
    value = ScatPlayout(options).value if informed else None  # opponents keep their best cards
    for _ in range(SAMPLES):
        deck = knowledge.sample(rng, value)
        assert all(c == fixed for c, fixed in zip(deck, knowledge.positions) if fixed is not None)
        assert sorted(deck) == sorted(new_deck(options["deck"])), "the sample is not a deck"
        sampled = sample_state(real.variant, options, knowledge, rng, value)
        assert sampled is not None, "no deal fits the history"
        sim: Any = sampled[1]
        mine = real.observe(seat)
        theirs = sim.observe(knowledge.me)
        for field in COMPARED:
            assert theirs.get(field) == mine.get(field), field
        assert sim.pile == real.pile
        assert {i: c for i, (c, up) in enumerate(zip(sim.widow, sim.widow_up)) if up} == widow_up
        for s, cards in held.items():
            if s != seat and real.active[s]:
                assert cards <= set(sim.hands[knowledge.seats.index(s)]), f"seat {s} lost a card it took"


def test_a_reshuffled_stock_cannot_be_followed() -> None:
    variant = get_variant("scat")
    options = {"stock_out": "reshuffle"}
    state: Any = variant.new_match(2, seed=5, options=options)
    for _ in range(10_000):
        if any(e.kind == "reshuffle" for e in state.log):
            break
        legal = state.legal_actions()
        state.apply(next((a for a in legal if a.kind == "draw"), legal[0]))
    assert any(e.kind == "reshuffle" for e in state.log) and not state.is_over
    assert read_round(state.events_for(state.to_move), state.to_move, variant.resolve(options)) is None
