"""Explicit decks and scripted play for the four- and five-card relatives' scenario tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.cards import Card, new_deck, parse_cards
from arena.rules import Action
from arena.rules.game import MatchState


def build_deck(hands: Mapping[int, str], order: Sequence[int], *rest: str) -> list[Card]:
    """A whole deck, top card first, that deals ``hands[seat]`` one card at a time to the
    seats in ``order``, then ``rest`` (table cards, a sixth card, the stock ...) in turn,
    then every unused card in the fresh-deck order."""
    parsed = [parse_cards(hands[s]) for s in order]
    size = len(parsed[0])
    assert all(len(h) == size for h in parsed)
    deck = [h[i] for i in range(size) for h in parsed]
    for cards in rest:
        deck += parse_cards(cards)
    assert len(set(deck)) == len(deck), "a card is used twice in the scenario"
    return deck + [c for c in new_deck() if c not in deck]


def play(state: MatchState, *steps: str) -> None:
    """Apply ``seat: action`` steps, checking each seat is to move and each action is legal."""
    for step in steps:
        seat, _, text = step.partition(":")
        action = Action.parse(text)
        assert state.to_move == int(seat), f"seat {state.to_move} is to move, not {seat} ({text})"
        assert action in state.legal_actions(), f"{text} is not legal: {state.legal_actions()}"
        state.apply(action)


def texts(state: MatchState) -> set[str]:
    """The legal actions as text."""
    return {str(a) for a in state.legal_actions()}


def events(state: MatchState, kind: str) -> list[dict[str, Any]]:
    """The public part of every ``kind`` event so far."""
    return [dict(e.public) for e in state.log if e.kind == kind]
