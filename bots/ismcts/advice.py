"""The bot's own choice in the draw-and-discard family, before any search.

Richer than the rollout policy (it may take a few milliseconds: it runs once per decision,
not thousands of times), and it is what the search must beat to be overruled:

* a hand scores its value plus :data:`POTENTIAL` times its potential, the average gain
  one more draw would bring over the cards the seat has not seen (while the round goes on);
* take the discard top when the best hand keeping it scores more than the average hand
  after a draw, else draw;
* knock at :data:`KNOCK_BASE`, plus :data:`PER_PLAYER` per player beyond two, plus
  :data:`PER_TURN` per turn already had this round (at most :data:`MAX_TURNS`), plus
  :data:`DECK32` with the 32-card deck;
* discard the card whose loss leaves the best score, never one that completes a blitz for
  the next player from cards it is known to hold, and preferably not a ten or ace of a suit
  it collects (:data:`FEED_PENALTY`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playout import BLITZ, ScatPlayout, View

from arena.cards import POINTS, Card
from arena.rules import Action

POTENTIAL = 0.5
"""Weight of a hand's potential (average gain of one more draw) while the round goes on."""
KNOCK_BASE = 22.0
"""Knock threshold with two players on the first turn of a round."""
PER_PLAYER = 1.0
"""Knock threshold added per player beyond two (more hands that could beat this one)."""
PER_TURN = 1.0
"""Knock threshold added per turn the seat has had this round (the others' hands improve) ..."""
MAX_TURNS = 3
"""... counting at most this many turns."""
DECK32 = 3.0
"""Knock threshold added with the 32-card deck, where every card is a 7 or more."""
FEED_PENALTY = 1.5
"""Score lost by throwing a ten-point card or an ace of a suit the next player collects."""
NEVER = 100.0
"""Score lost by throwing the card that completes the next player's blitz."""


@dataclass
class Situation:
    """What the advisor needs beyond the observation: from the seat's information set."""

    unseen: Sequence[Card]
    """Cards the seat has not seen: what a draw may bring."""
    turns: int
    """Turns the seat has had this round."""
    players: int
    """Players still in."""
    next_holds: Sequence[Card]
    """Cards the next player to move is known to hold (empty if nobody moves after this turn)."""


class ScatAdvisor:
    """Hand scores with potential, an adaptive knock threshold, careful discards."""

    def __init__(self, policy: ScatPlayout, options: Mapping[str, Any]) -> None:
        self.policy = policy
        self.shift = DECK32 if options["deck"] == 32 else 0.0
        self._potential: dict[int, float] = {}

    def potential(self, hand: Sequence[Card], unseen: Sequence[Card]) -> float:
        """Average gain of one more draw over ``unseen``: best three of four, less the hand."""
        a, b, c = hand
        key = (1 << a) | (1 << b) | (1 << c)
        cached = self._potential.get(key)
        if cached is not None:
            return cached
        value3 = self.policy.value3
        base = value3(a, b, c)
        gain = 0.0
        for x in unseen:
            best = max(value3(a, b, x), value3(a, c, x), value3(b, c, x))
            if best > base:
                gain += best - base
        result = self._potential[key] = gain / len(unseen) if unseen else 0.0
        return result

    def score(self, hand: Sequence[Card], unseen: Sequence[Card], going_on: bool) -> float:
        value = self.policy.value(hand)
        return value + POTENTIAL * self.potential(hand, unseen) if going_on else value

    def best_of_four(self, four: Sequence[Card], unseen: Sequence[Card], going_on: bool, keep: Card | None) -> float:
        """The best score of three of ``four`` (all keeping ``keep``)."""
        return max(self.score([c for c in four if c != drop], unseen, going_on) for drop in four if drop != keep)

    def threshold(self, situation: Situation) -> float:
        turns = min(situation.turns, MAX_TURNS)
        return KNOCK_BASE + PER_PLAYER * (situation.players - 2) + PER_TURN * turns + self.shift

    def choose(self, view: View, legal: Sequence[Action], situation: Situation) -> Action:
        self._potential.clear()
        hand = view.hands[view.to_move]
        if legal[0].kind == "discard":
            return self.discard(view, hand, legal, situation)
        kinds = {a.kind: a for a in legal}
        going_on = view.knocker < 0
        value = self.policy.value(hand)
        knock = kinds.get("knock")
        if knock is not None and (value >= BLITZ or (going_on and value >= self.threshold(situation))):
            return knock
        unseen = situation.unseen
        options: list[tuple[float, Action]] = []
        if "take" in kinds:
            top = view.pile[-1]
            options.append((self.best_of_four([*hand, top], unseen, going_on, top), kinds["take"]))
        if "draw" in kinds and unseen:
            total = sum(self.best_of_four([*hand, x], unseen, going_on, None) for x in unseen)
            options.append((total / len(unseen), kinds["draw"]))
        if "stand" in kinds:
            options.append((self.score(hand, unseen, going_on), kinds["stand"]))
        if not options:
            return self.policy.choose(view, legal)
        return max(options, key=lambda pair: pair[0])[1]

    def discard(self, view: View, hand: Sequence[Card], legal: Sequence[Action], situation: Situation) -> Action:
        going_on = view.knocker < 0
        feeds = _feeds(situation.next_holds)

        def worth(action: Action) -> tuple[float, int]:
            card = action.cards[0]
            rest = [c for c in hand if c != card]
            return self.score(rest, situation.unseen, going_on) - feeds(card), -POINTS[card]

        return max(legal, key=worth)


def _feeds(holds: Sequence[Card]) -> Any:
    """The score a discard loses by what it hands a next player known to hold ``holds``."""
    suits = {c & 3 for c in holds}

    def penalty(card: Card) -> float:
        same = [c for c in holds if c & 3 == card & 3]
        for i, x in enumerate(same):
            for y in same[i + 1:]:
                if POINTS[x] + POINTS[y] + POINTS[card] == BLITZ:
                    return NEVER
        return FEED_PENALTY if card & 3 in suits and POINTS[card] >= 10 else 0.0

    return penalty
