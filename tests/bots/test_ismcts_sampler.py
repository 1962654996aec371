"""The search bot's sampler deals only cards the seat has not seen, and its deals replay.

Hypothesis picks a variant of either family the bot plays, a table size, a match seed and
a history (random actions, knocks made rare so rounds run long), then takes the seat to
move.  What that seat knows is worked out here, independently of the bot, from the public
and private events it was shown and the engine's real state: every card named to it this
round (none of them may be dealt into a blank), its own hand and the face-up cards, and
the cards each opponent took face up and still holds.  Every sampled deal must leave all
of these where they are, and the round replayed on it must look to the seat as the real
one does (up to the order of cards within a hand, which the seat cannot always know).
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import Card, new_deck, parse_card, shuffled_deck
from arena.rules import MatchState, get_variant

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bots" / "ismcts"))

from infoset import read_round, replay, sample_state  # noqa: E402
from playout import playout_for  # noqa: E402

VARIANTS = (
    "scat", "scat-trips", "eenendertigen", "california-quick", "west-lansing", "no-elimination", "banking",
    "schwimmen", "stop-the-bus", "switch",
)
KNOCK_CHANCE = 0.03
"""Chance that a history's random player knocks when it may (more would end rounds at once)."""
SAMPLES = 4
"""Deals drawn per history."""
COMPARED = ("discard_top", "discard_size", "stock", "phase", "must_keep", "passes", "dealer_choice", "knocker")
"""Observation fields the replayed round must show the seat exactly as the real one does."""
CARD_FIELDS = ("hand", "upcard", "card", "cards", "gave", "received", "taken_face_up", "other_hand")
"""Event fields that name cards."""


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


def _this_round(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    starts = [i for i, e in enumerate(events) if e["event"] == "round_start"]
    return list(events[starts[-1]:])


def _cards(values: Iterable[Any]) -> set[Card]:
    out = set()
    for value in values:
        with contextlib.suppress(ValueError):
            out.add(parse_card(str(value)))
    return out


def _named(events: Sequence[Mapping[str, Any]]) -> set[Card]:
    """Every card named to the seat in these events: in its fields or in an action's text."""
    named: set[Card] = set()
    for event in events:
        for field in CARD_FIELDS:
            value = event.get(field)
            if value is not None:
                named |= _cards(value if isinstance(value, (list, tuple)) else [value])
        if event["event"] == "action":
            named |= _cards(event["action"].split()[1:])
    return named


def _held_face_up(events: Sequence[Mapping[str, Any]]) -> dict[int, set[Card]]:
    """Per seat, cards it took face up (from the pile or by a named swap) and still holds."""
    held: dict[int, set[Card]] = {}
    for event in events:
        if event["event"] != "action":
            continue
        cards = held.setdefault(event["seat"], set())
        words = event["action"].split()
        if words[0] == "take":
            cards.add(parse_card(event["card"]))
        elif words[0] in ("discard", "swap_blind"):
            cards.discard(parse_card(words[1]))
        elif words[0] == "swap_one":
            cards.discard(parse_card(words[1]))
            cards.add(parse_card(words[2]))
        elif words[0] in ("exchange", "swap_all", "swap_hand"):
            cards.clear()  # what it received is not always known here: claim nothing
    return held


def _table(observation: Mapping[str, Any]) -> list[tuple[list[str], list[int]]]:
    """The table hands as (face-up cards in order of name, places face down)."""
    hands = observation.get("table")
    if hands is None:
        hands = [observation["widow"]] if observation.get("widow") else []
    return [(sorted(c for c in hand if c), [i for i, c in enumerate(hand) if c is None]) for hand in hands]


@settings(max_examples=100, deadline=None, derandomize=True)
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
    events = _this_round(real.events_for(seat))
    rules = real.variant
    options = rules.resolve()
    knowledge = read_round(events, seat, rules, options)
    assert knowledge is not None
    named = _named(events) | set(real.hands[seat])
    assert not named & set(knowledge.pool), "the pool holds cards the seat has seen"
    thrown = sum(1 for moves in knowledge.unseen.values() for _, card in moves if card is not None)
    assert len(knowledge.pool) == knowledge.positions.count(None) - thrown
    if real.round == 1:
        assert replay(rules, options, knowledge, true_deck) is not None, "the true deal does not fit"

    held = _held_face_up(events)
    mine = real.observe(seat)
    rng = random.Random(seed)
    value = playout_for(rules, options).value if informed else None  # opponents keep their best cards
    for _ in range(SAMPLES):
        deck = knowledge.sample(rng, value)
        assert all(c == fixed for c, fixed in zip(deck, knowledge.positions) if fixed is not None)
        assert sorted(deck) == sorted(new_deck(options["deck"])), "the sample is not a deck"
        sampled = sample_state(rules, options, knowledge, rng, value)
        assert sampled is not None, "no deal fits the history"
        sim: Any = sampled[1]
        theirs = sim.observe(knowledge.me)
        assert sorted(theirs["hand"]) == sorted(mine["hand"])
        assert _table(theirs) == _table(mine)
        for field in COMPARED:
            expected = mine.get(field)
            if field == "knocker" and expected is not None:
                expected = knowledge.seats.index(expected)
            assert theirs.get(field) == expected, field
        if hasattr(real, "pile"):
            assert sim.pile == real.pile
        for s, cards in held.items():
            if s != seat and real.active[s]:
                assert cards <= set(sim.hands[knowledge.seats.index(s)]), f"seat {s} lost a card it took"


def test_a_reshuffled_stock_cannot_be_followed() -> None:
    variant = get_variant("scat")
    options = variant.resolve({"stock_out": "reshuffle"})
    state: Any = variant.new_match(2, seed=5, options=options)
    for _ in range(10_000):
        if any(e.kind == "reshuffle" for e in state.log):
            break
        legal = state.legal_actions()
        state.apply(next((a for a in legal if a.kind == "draw"), legal[0]))
    assert any(e.kind == "reshuffle" for e in state.log) and not state.is_over
    assert read_round(state.events_for(state.to_move), state.to_move, variant, options) is None
