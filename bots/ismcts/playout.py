"""The cheap policy every seat follows in a rollout, and what a finished round is worth.

Rollouts must be fast (the search plays hundreds per decision), so the policy reads the
engine's state directly (``hands``, ``pile``, ``knocker``) rather than building an
observation, and values hands with the engine's fast suit-sum function.  It only uses what
the seat to move could know (its own cards, the discard top), so the search does not
credit a line of play that would need another seat's hidden cards.

The policy: knock at :data:`ROLLOUT_KNOCK` or more; take the discard top when it lifts the
hand by :data:`TAKE_GAIN` or more, else draw; discard the card whose loss leaves the best
hand; in last turns take when it helps, else draw, else stand; show a blitz by knocking
when the rules want it shown (``blitz_on_turn``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.cards import POINTS, Card
from arena.rules import Action, MatchState
from arena.rules.hands import special_values, thirty_one_points

ROLLOUT_KNOCK = 24.0
"""Hand value at which a seat knocks in a rollout (the baselines knock between 22 and 25)."""
TAKE_GAIN = 3.0
"""A rollout seat takes the discard top when it lifts its hand by at least this much."""
BLITZ = 31.0
"""A hand worth this or more ends the round (or, with ``blitz_on_turn``, is shown by knocking)."""
MAX_ROLLOUT_ACTIONS = 400
"""A rollout that has not ended its round after this many actions counts as a drawn round."""
ELIMINATION_CURVE = 0.6
"""Worth of ``r`` losses left before elimination: ``r ** ELIMINATION_CURVE`` (concave: the
last life is worth more than the first)."""


class ScatPlayout:
    """The rollout policy for the draw-and-discard family, under one match's options."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.trips, self.aces = special_values(options["trips"], options["three_aces"])
        self._values: dict[int, float] = {}

    def value3(self, a: Card, b: Card, c: Card) -> float:
        """The value of the hand ``a b c`` with the match's trips and three-aces options
        (remembered by card set: rollouts value the same hands again and again)."""
        key = (1 << a) | (1 << b) | (1 << c)
        value = self._values.get(key)
        if value is None:
            value = self._values[key] = thirty_one_points((a, b, c), self.trips, self.aces)
        return value

    def value(self, hand: Sequence[Card]) -> float:
        """A three-card hand's value."""
        a, b, c = hand
        return self.value3(a, b, c)

    def best_discard(self, hand: Sequence[Card], legal: Sequence[Action]) -> Action:
        """The discard leaving the best three cards; ties throw the lower card."""
        value3 = self.value3
        a, b, c, d = hand
        left = {a: value3(b, c, d), b: value3(a, c, d), c: value3(a, b, d), d: value3(a, b, c)}
        best = legal[0]
        best_key = (-1.0, 0)
        for action in legal:
            card = action.cards[0]
            key = (left[card], -POINTS[card])
            if key > best_key:
                best, best_key = action, key
        return best

    def take_value(self, hand: Sequence[Card], top: Card) -> float:
        """The best hand keeping ``top`` and two of ``hand``."""
        a, b, c = hand
        value3 = self.value3
        return max(value3(a, b, top), value3(a, c, top), value3(b, c, top))

    def choose(self, state: Any, legal: Sequence[Action]) -> Action:
        """The policy's action for the seat to move in ``state`` (a thirty-one family state)."""
        first = legal[0]
        hand = state.hands[state.to_move]
        if first.kind == "discard":
            return self.best_discard(hand, legal)
        knock = take = draw = stand = None
        for action in legal:
            kind = action.kind
            if kind == "draw":
                draw = action
            elif kind == "take":
                take = action
            elif kind == "knock":
                knock = action
            elif kind == "stand":
                stand = action
        value = self.value(hand)
        last_turn = state.knocker >= 0
        if knock is not None and (value >= BLITZ or (not last_turn and value >= ROLLOUT_KNOCK)):
            return knock
        if take is not None:
            gain = self.take_value(hand, state.pile[-1]) - value
            if gain >= TAKE_GAIN or (gain > 0 and (last_turn or draw is None)):
                return take
        return draw or stand or take or first

    def finish_round(self, state: MatchState) -> Mapping[str, Any] | None:
        """Play the round to its end with this policy; the ``round_end`` event's public part,
        or None if it did not end within :data:`MAX_ROLLOUT_ACTIONS`."""
        log = state.log
        start = len(log)
        for _ in range(MAX_ROLLOUT_ACTIONS):
            if state.outcome is not None:
                break
            state.apply(self.choose(state, state.legal_actions()))
        for event in log[start:]:
            if event.kind == "round_end":
                return event.public
        return None


def round_utility(
    result: Mapping[str, Any] | None,
    me: int,
    seats: Sequence[int],
    standing: Sequence[float],
    options: Mapping[str, Any],
) -> float:
    """What a finished round is worth to replayed seat ``me``: its gain less the others' mean.

    ``seats`` are the replayed seats still in (``me`` among them) and ``standing`` the real
    lives, points or chips of each replayed seat before the round.  Lives are valued by how
    many losses a seat can still take (:data:`ELIMINATION_CURVE`), points and chips as they are.
    """
    if result is None or len(seats) < 2:
        return 0.0
    if "lives_lost" in result:
        floor = 0 if options["free_ride"] else 1
        lost = result["lives_lost"]
        before = [_worth(standing[s] + 1 - floor) for s in seats]
        after = [_worth(standing[s] + 1 - floor - lost[s]) for s in seats]
        if all(a <= 0 for a in after):
            return 0.0  # every seat still in would be out: the rules cancel the round
        change = {s: a - b for s, a, b in zip(seats, after, before)}
    else:
        won = result.get("points_won") or result.get("chips_won") or []
        change = {s: float(won[s]) for s in seats}
    others = [change[s] for s in seats if s != me]
    return change[me] - sum(others) / len(others)


def _worth(losses_left: float) -> float:
    return float(max(0.0, losses_left) ** ELIMINATION_CURVE)
