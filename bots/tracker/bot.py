"""Discard-tracking heuristic: fixed knock thresholds, a greedy taker that never feeds a blitz.

It follows the round's public events to know which cards each opponent holds because it
took them face up (from the discard pile, or the face-up widow in banking) and has not let
go since.  Rules of thumb (bot.toml ``notes``): knock at 22 on its first turn of a round
and at 30 later; take the discard top when it gains 7 or more or reaches 30, else draw;
never discard a card that gives the next player 31 from the two cards it is known to hold.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.cards import POINTS, Card, parse_card
from arena.rules import get_variant
from arena.sdk import MatchInfo, hookimpl

FIRST_ROUND_KNOCK = 22.0
"""Knock threshold on the bot's first turn of a round (the first round of turns)."""
LATER_KNOCK = 30.0
"""Knock threshold on every later turn."""
TAKE_GAIN = 7.0
"""Take the discard top when it lifts the hand by this much ..."""
TAKE_REACH = 30.0
"""... or when the hand keeping it reaches this value."""
BLITZ = 31.0
ACES = 12
"""Rank index of the ace."""
KEEP_AT = 16.0
"""Schwimmen: the dealer keeps a hand worth this or more, else takes the widow unseen (the
average value of three random cards of the 32-card deck is 15.8)."""
WIDOW_ACTIONS = ("swap_one", "swap_all", "swap_hand")
"""Schwimmen's actions that move cards between a hand and the widow."""

get_variant("scat")  # load the variant registry now, before the referee starts the clock


class Memory:
    """The round so far, from the public events: who holds which face-up-taken cards."""

    def __init__(self) -> None:
        self.known: dict[int, list[str]] = {}
        self.turns: dict[int, int] = {}
        self.widow: list[str] = []
        """Schwimmen: the face-up widow as the events showed it."""
        self.knockable = 0
        """Schwimmen: the bot's turns this round on which knocking was allowed."""

    def follow(self, event: Mapping[str, Any]) -> None:
        kind = event.get("event")
        if kind == "round_start":
            self.known.clear()
            self.turns.clear()
            self.widow = []
            self.knockable = 0
        elif kind in ("turn_up", "new_widow"):
            self.widow = [str(c) for c in event["cards"]]
        elif kind == "action" and str(event["action"]).split()[0] in WIDOW_ACTIONS:
            self.follow_widow(int(event["seat"]), str(event["action"]).split(), event)
        elif kind == "action":
            seat = int(event["seat"])
            words = str(event["action"]).split()
            held = self.known.setdefault(seat, [])
            if words[0] == "take":
                held.append(str(event["card"]))
            elif words[0] == "exchange":
                given = words[1:words.index("for")]
                held[:] = [c for c in held if c not in given] + list(event.get("taken_face_up", ()))
            elif words[0] == "discard" and words[1] in held:
                held.remove(words[1])
            if words[0] in ("discard", "knock", "stand", "exchange"):
                self.turns[seat] = self.turns.get(seat, 0) + 1

    def follow_widow(self, seat: int, words: list[str], event: Mapping[str, Any]) -> None:
        """Schwimmen: a swap moves cards between a hand and the face-up widow."""
        held = self.known.setdefault(seat, [])
        if words[0] == "swap_one":
            give, take = words[1], words[2]
            if give in held:
                held.remove(give)
            held.append(take)
            self.widow = [give if c == take else c for c in self.widow]
        elif words[0] == "swap_all":
            held[:] = self.widow
            self.widow = [str(c) for c in event["gave"]]
        elif words[0] == "swap_hand":
            held.clear()  # the dealer took the widow unseen


class Tracker:
    """Decisions under one match's options."""

    def __init__(self, match: MatchInfo) -> None:
        self.match = match
        options = match.resolved_options
        self.evaluate = match.evaluator()
        self.aces_blitz = options["three_aces"] == "33" or (
            options.get("special_hands") == "schwimmen" and options["three_aces"] != "none")  # Feuer
        self.memory = Memory()

    def value(self, cards: Sequence[Card]) -> float:
        return self.evaluate(cards).value

    def choose(self, observation: Mapping[str, Any], legal: Sequence[str]) -> str:
        hand = [parse_card(c) for c in observation["hand"]]
        if "widow" in observation and self.match.rules.family.name == "widow":
            return self.choose_widow(observation, hand, legal)
        if observation["phase"] == "discard":
            return self.discard(observation, hand, legal)
        value = self.value(hand)
        if "knock" in legal:
            first_round = self.memory.turns.get(self.match.seat, 0) == 0
            if value >= BLITZ or value >= (FIRST_ROUND_KNOCK if first_round else LATER_KNOCK):
                return "knock"
        top = observation.get("discard_top")
        if "take" in legal and top:
            card = parse_card(top)
            a, b, c = hand
            taken = max(self.value((a, b, card)), self.value((a, c, card)), self.value((b, c, card)))
            if taken - value >= TAKE_GAIN or taken >= TAKE_REACH or ("draw" not in legal and taken > value):
                return "take"
        for action in ("draw", "stand"):
            if action in legal:
                return action
        return legal[0]

    def choose_widow(self, observation: Mapping[str, Any], hand: list[Card], legal: Sequence[str]) -> str:
        """Schwimmen: knock at 22 on the first turn knocking is allowed and 30 later; swap when
        it gains 7 or reaches 30, never laying down a card that gives the next player 31."""
        value = self.value(hand)
        if observation["phase"] == "choice":
            return "keep" if value >= KEEP_AT else "swap_hand"
        if "knock" in legal:
            first = self.memory.knockable == 0
            self.memory.knockable += 1
            if value >= (FIRST_ROUND_KNOCK if first else LATER_KNOCK):
                return "knock"
        widow = [parse_card(c) for c in observation["widow"]]
        feeds = self.feeds_blitz(observation)
        options = []
        for action in legal:
            words = action.split()
            if words[0] == "swap_one":
                give, take = parse_card(words[1]), parse_card(words[2])
                after, given = [take if c == give else c for c in hand], [give]
            elif words[0] == "swap_all":
                after, given = widow, hand
            else:
                continue
            if not any(feeds(card) for card in given):
                options.append((self.value(after), action))
        best = max(options, default=None)
        if best is not None and (best[0] - value >= TAKE_GAIN or (best[0] >= TAKE_REACH and best[0] > value)):
            return best[1]
        return "pass" if "pass" in legal else legal[0]

    def discard(self, observation: Mapping[str, Any], hand: Sequence[Card], legal: Sequence[str]) -> str:
        """The discard leaving the best hand among those that do not hand the next player a
        blitz; ties throw the lower card."""
        feeds = self.feeds_blitz(observation)

        def key(action: str) -> tuple[bool, float, int]:
            card = parse_card(action.split()[1])
            return not feeds(card), self.value([c for c in hand if c != card]), -POINTS[card]

        return max((a for a in legal if a.startswith("discard ")), key=key)

    def feeds_blitz(self, observation: Mapping[str, Any]) -> Any:
        """A test: would this card, taken by the next player, complete its 31 (or three aces
        worth 33) with two cards it is known to hold?"""
        nxt = self.next_seat(observation)
        known = [parse_card(c) for c in self.memory.known.get(nxt, ())] if nxt is not None else []

        def feeds(card: Card) -> bool:
            for i, x in enumerate(known):
                for y in known[i + 1:]:
                    if x & 3 == y & 3 == card & 3 and POINTS[x] + POINTS[y] + POINTS[card] == 31:
                        return True
                    if self.aces_blitz and x >> 2 == y >> 2 == card >> 2 == ACES:
                        return True
            return False

        return feeds

    def next_seat(self, observation: Mapping[str, Any]) -> int | None:
        """The seat that moves after this one, or None if the round ends with this turn."""
        active: Sequence[bool] = observation["active"]
        me = self.match.seat
        n = len(active)
        seat = next((s for s in ((me + i) % n for i in range(1, n)) if active[s]), None)
        if seat is None or seat == observation.get("knocker"):
            return None
        return seat


_tracker: Tracker | None = None
_any_legal = random.Random()
"""Skat, a rules family this bot has no play for: a random legal action, seeded per match."""


def _current(match: MatchInfo) -> Tracker:
    global _tracker
    if _tracker is None or _tracker.match is not match:
        _tracker = Tracker(match)
    return _tracker


@hookimpl
def match_start(match: MatchInfo) -> None:
    if match.rules.family.name == "skat":
        _any_legal.seed(f"{match.match_id}/{match.seat}")
        return
    _current(match)


@hookimpl
def on_event(event: dict[str, Any], match: MatchInfo) -> None:
    if match.rules.family.name != "skat":
        _current(match).memory.follow(event)


@hookimpl
def choose(observation: dict[str, Any], legal: list[str], match: MatchInfo) -> str:
    if len(legal) == 1:
        return legal[0]
    if match.rules.family.name == "skat":
        return _any_legal.choice(legal)
    return _current(match).choose(observation, legal)
