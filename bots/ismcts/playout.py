"""The cheap policies every seat follows in a rollout, and what a finished round is worth.

Rollouts must be fast (the search plays hundreds per decision), so a policy reads the
engine's state directly (``hands``, ``pile``, ``table``, ``knocker``) rather than building
an observation, and remembers hand values by card set.  It only uses what the seat to move
could know (its own cards, face-up cards), so the search does not credit a line of play
that would need another seat's hidden cards.  The same policy, applied to the real
observation (:meth:`Playout.view`), is the bot's default action, and it picks the
candidates the search compares (:meth:`Playout.candidates`).

Draw-and-discard family (:class:`ScatPlayout`): knock at :data:`SCAT_KNOCK` or more; take
the discard top when it lifts the hand by :data:`TAKE_GAIN` or more, else draw; discard
the card whose loss leaves the best hand; in last turns take when it helps, else draw,
else stand; show a blitz by knocking when the rules want it shown (``blitz_on_turn``).

Widow family (:class:`WidowPlayout`): the dealer keeps a hand worth :data:`KEEP` or more
(in Switch, the better of its two hands); knock at :data:`WIDOW_KNOCK` or more; make the
face-up swap that improves the hand most, else pass; where passing is not allowed (Switch
before a knock) trade the worst card for a face-down card, or renew.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from arena.cards import POINTS, Card, parse_card
from arena.rules import Action, MatchState, Variant
from arena.rules.hands import special_values, thirty_one_points
from arena.rules.widow import evaluate_hand

SCAT_KNOCK = 27.0
"""Hand value at which a seat knocks in a draw-and-discard rollout, and the threshold an
opponent's declined knocks are weighed by until it has shown its own.  The baselines knock
at 22 to 30; at 24 the search took every opponent that had not knocked for a weak one, or
for one about to knock into a strong hand, and waited with 29 and 30 against a patient
opponent (tracker: 0.45 in process at 250 deals a decision, 0.66 at 27)."""
TAKE_GAIN = 3.0
"""A rollout seat takes the discard top when it lifts its hand by at least this much."""
BLITZ = 31.0
"""A hand worth this or more ends the round (or, with ``blitz_on_turn``, is shown by knocking)."""
WIDOW_KNOCK = {"points32": 28.0, "points52": 25.0, "brag": 3.0}
"""Knock thresholds in the widow family by ranking and deck (brag 3.0: a flush or better)."""
KEEP = {"points32": 21.0, "points52": 18.0, "brag": 2.0}
"""The dealer keeps its hand unseen-swap choice at this value or more (brag 2.0: a pair)."""
DISCARD_MARGIN = 6.0
"""Discards leaving a hand this much below the best discard's are not searched."""
MAX_CANDIDATES = 3
"""Discards, exchanges or swaps searched at most (the best by hand value first)."""
KNOCK_SOFTNESS = 1.5
"""Spread (hand value points) of the modelled chance that an opponent knocks around its threshold."""
BRAG_SOFTNESS = 0.3
"""The same in brag values (a category is worth 1)."""
MAX_ROLLOUT_ACTIONS = 400
"""A rollout that has not ended its round after this many actions counts as a drawn round."""
ELIMINATION_CURVE = 0.6
"""Worth of ``r`` losses left before elimination: ``r ** ELIMINATION_CURVE`` (concave: the
last life is worth more than the first)."""


class View:
    """The real observation dressed as the few state attributes a policy reads."""

    def __init__(self, observation: Mapping[str, Any]) -> None:
        self.to_move: int = observation["seat"]
        self.hands = {self.to_move: [parse_card(c) for c in observation["hand"]]}
        knocker = observation.get("knocker")
        self.knocker: int = -1 if knocker is None else knocker
        top = observation.get("discard_top")
        self.pile = [parse_card(top)] if top else []
        tables = observation.get("table")
        if tables is None:
            widow = observation.get("widow")
            tables = [widow] if widow else []
        self.table = [[parse_card(c) if c else None for c in hand] for hand in tables]
        self.face_up = [[c is not None for c in hand] for hand in self.table]
        other = observation.get("other_hand")  # Switch: the dealer has seen the first table hand
        if other:
            self.table[0] = [parse_card(c) for c in other]


class Playout(ABC):
    """A rollout policy under one match's options, with hand values remembered by card set."""

    knock_at: float
    """The hand value at which the policy knocks."""
    softness = KNOCK_SOFTNESS
    """Spread of the modelled chance that an opponent knocks around ``knock_at``."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = options
        self._values: dict[int, float] = {}
        self.knock_by_seat: dict[int, float] = {}
        """Knock thresholds of particular seats of the replayed table (learnt opponents)."""

    @abstractmethod
    def rate(self, hand: tuple[Card, Card, Card]) -> float:
        """A three-card hand's value: higher is better."""

    @abstractmethod
    def choose(self, state: Any, legal: Sequence[Action]) -> Action:
        """The policy's action for the seat to move in ``state`` (or a :class:`View`)."""

    @abstractmethod
    def candidates(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """The actions worth searching, most promising first."""

    def declined(self, state: Any, seat: int) -> float:
        """The chance that ``seat`` plays on rather than knocks holding its hand in ``state``:
        a logistic step down around the policy's knock threshold."""
        return self.declined_hand(state.hands[seat], seat)

    def declined_hand(self, hand: Sequence[Card], seat: int) -> float:
        """The chance that ``seat`` plays on rather than knocks holding ``hand``."""
        margin = (self.value(hand) - self.knock_by_seat.get(seat, self.knock_at)) / self.softness
        return 1.0 / (1.0 + math.exp(max(-50.0, min(margin, 50.0))))

    def value3(self, a: Card, b: Card, c: Card) -> float:
        """The value of the hand ``a b c`` (rollouts value the same hands again and again)."""
        key = (1 << a) | (1 << b) | (1 << c)
        value = self._values.get(key)
        if value is None:
            value = self._values[key] = self.rate((a, b, c))
        return value

    def value(self, hand: Sequence[Card]) -> float:
        """A three-card hand's value."""
        a, b, c = hand
        return self.value3(a, b, c)

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


class ScatPlayout(Playout):
    """The rollout policy for the draw-and-discard family."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.trips, self.aces = special_values(options["trips"], options["three_aces"])
        self.knock_at = SCAT_KNOCK

    def rate(self, hand: tuple[Card, Card, Card]) -> float:
        return thirty_one_points(hand, self.trips, self.aces)

    def left_after_discard(self, hand: Sequence[Card]) -> dict[Card, float]:
        """For each card of a four-card hand, the value of the other three."""
        value3 = self.value3
        a, b, c, d = hand
        return {a: value3(b, c, d), b: value3(a, c, d), c: value3(a, b, d), d: value3(a, b, c)}

    def best_discard(self, hand: Sequence[Card], legal: Sequence[Action]) -> Action:
        """The discard leaving the best three cards; ties throw the lower card."""
        left = self.left_after_discard(hand)
        return max(legal, key=lambda action: (left[action.cards[0]], -POINTS[action.cards[0]]))

    def take_value(self, hand: Sequence[Card], top: Card) -> float:
        """The best hand keeping ``top`` and two of ``hand``."""
        a, b, c = hand
        value3 = self.value3
        return max(value3(a, b, top), value3(a, c, top), value3(b, c, top))

    def choose(self, state: Any, legal: Sequence[Action]) -> Action:
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
        if knock is not None and (value >= BLITZ or (
                not last_turn and value >= self.knock_by_seat.get(state.to_move, self.knock_at))):
            return knock
        if take is not None:
            gain = self.take_value(hand, state.pile[-1]) - value
            if gain >= TAKE_GAIN or (gain > 0 and (last_turn or draw is None)):
                return take
        return draw or stand or take or first

    def candidates(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """Every turn action but exchanges; the discards close to the best; the exchanges for
        face-up widow cards that improve the hand most."""
        hand = view.hands[view.to_move]
        if legal[0].kind == "discard":
            left = self.left_after_discard(hand)
            ranked = sorted(legal, key=lambda a: left[a.cards[0]], reverse=True)
            best = left[ranked[0].cards[0]]
            return [a for a in ranked[:MAX_CANDIDATES] if left[a.cards[0]] >= best - DISCARD_MARGIN]
        current = self.value(hand)
        exchanges = []
        for action in legal:
            if action.kind == "exchange":
                after = _after_exchange(hand, action, view.table[0] if view.table else [])
                if after is not None and self.value(after) > current:
                    exchanges.append((self.value(after), action))
        exchanges.sort(key=lambda pair: pair[0], reverse=True)
        return [a for a in legal if a.kind != "exchange"] + [a for _, a in exchanges[:MAX_CANDIDATES]]


def _after_exchange(hand: Sequence[Card], action: Action, widow: Sequence[Card | None]) -> list[Card] | None:
    """The hand after ``exchange G.. for P..`` when every card it receives lies face up, else None."""
    received = [widow[int(p)] for p in action.arg.split()[1:]]
    kept = [c for c in hand if c not in action.cards]
    if any(card is None for card in received):
        return None
    return kept + [c for c in received if c is not None]


class WidowPlayout(Playout):
    """The rollout policy for the widow family (Schwimmen, Stop the Bus, Switch)."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        kind = "brag" if options["ranking"] == "brag" else f"points{options['deck']}"
        self.knock_at = WIDOW_KNOCK[kind]
        if kind == "brag":
            self.softness = BRAG_SOFTNESS
        self.keep_at = KEEP[kind]
        self.sees_table = options["table"] == "switch"
        """Switch's dealer chooses having seen both hands; Schwimmen's swaps unseen."""

    def rate(self, hand: tuple[Card, Card, Card]) -> float:
        return evaluate_hand(hand, self.options).value

    def swaps(self, state: Any, legal: Sequence[Action]) -> list[tuple[float, Action]]:
        """Every plain swap for face-up cards (no knock attached) with the hand it leaves."""
        hand = state.hands[state.to_move]
        out = []
        for action in legal:
            if action.arg.endswith("knock"):
                continue
            if action.kind == "swap_one":
                give, take = action.cards
                out.append((self.value([take if c == give else c for c in hand]), action))
            elif action.kind == "swap_all":
                h = int(action.arg) if action.arg else 0
                if all(state.face_up[h]):
                    out.append((self.value(state.table[h]), action))
        return out

    def choose(self, state: Any, legal: Sequence[Action]) -> Action:
        first = legal[0]
        hand = state.hands[state.to_move]
        value = self.value(hand)
        if first.kind == "keep":  # the dealer's choice: keep, or take the first table hand
            other = self.value(state.table[0]) if self.sees_table else self.keep_at
            return first if value >= other else legal[1]
        plain: dict[str, Action] = {a.text: a for a in legal if a.kind in ("knock", "pass", "renew")}
        knock = plain.get("knock")
        if knock is not None and value >= self.knock_by_seat.get(state.to_move, self.knock_at):
            return knock
        swaps = self.swaps(state, legal)
        best = max(swaps, key=lambda pair: pair[0], default=None)
        if best is not None and best[0] > value:
            return best[1]
        if "pass" in plain:
            return plain["pass"]
        worst = self.worst_card(hand)
        blind = next((a for a in legal if a.kind == "swap_blind" and a.cards[0] == worst and "knock" not in a.arg),
                     None)
        renew = next((a for a in legal if a.kind == "renew" and a.arg.endswith("up")), None)
        return blind or renew or (best[1] if best is not None else first)

    def worst_card(self, hand: Sequence[Card]) -> Card:
        """The card that adds least: outside the cards that make the hand's value, the lowest."""
        making = evaluate_hand(hand, self.options).cards
        return min(hand, key=lambda c: (c in making, POINTS[c]))

    def candidates(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """The dealer's two choices; else knock, pass, the best face-up swaps, a trade of the
        worst card for a face-down card of each table hand, and the renews."""
        if legal[0].kind == "keep":
            return list(legal)
        swaps = sorted(self.swaps(view, legal), key=lambda pair: pair[0], reverse=True)
        out = [a for a in legal if a.kind in ("knock", "pass")] + [a for _, a in swaps[:MAX_CANDIDATES]]
        worst = self.worst_card(view.hands[view.to_move])
        tried: set[str] = set()  # table hands already given one trade for a face-down card
        for action in legal:
            hand_index = action.arg[:1]
            if action.kind == "swap_blind" and action.cards[0] == worst and "knock" not in action.arg \
                    and hand_index not in tried:
                tried.add(hand_index)
                out.append(action)
        return out + [a for a in legal if a.kind == "renew"]


def playout_for(variant: Variant, options: Mapping[str, Any]) -> Playout:
    """The rollout policy for ``variant``'s family."""
    return ScatPlayout(options) if variant.family.name == "thirty-one" else WidowPlayout(options)


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
