"""Survival-table knocker: knock on the first turn by a published table, greedy otherwise.

The first-turn thresholds come from a published simulation of 10,000 deals per player
count (bot.toml ``notes``): the hand value at which knocking on one's first turn of a
round survives best, by the number of players and by the seat's place in the turn order
(first = the dealer's left).  Later turns need more, as the others' hands improve.  Draws
and discards are greedy: take the discard top when it improves the hand, else draw; throw
the card whose loss leaves the best hand.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.cards import POINTS, Card, parse_card
from arena.rules import get_variant
from arena.sdk import MatchInfo, hookimpl

FIRST_TURN: Mapping[int, tuple[float, ...]] = {
    2: (18, 20),
    3: (14, 15, 17),
    4: (13, 13, 14, 15),
    5: (11, 12, 13, 13, 15),
    6: (11, 11, 12, 12, 13, 13),
}
"""First-turn knock thresholds by player count, by place in the turn order from the dealer's left."""
RISE_PER_TURN = 3.0
"""After its first turn of a round the bot needs this much more per turn it has had ..."""
LATE_CAP = 27.0
"""... but never more than this (a 27 is rarely the lowest hand)."""
DECK32_SHIFT = 4.0
"""Added with the 32-card deck, where every card is a 7 or more and hands run about 4 higher."""
BLITZ = 31.0
KEEP_AT = 16.0
"""Schwimmen: the dealer keeps a hand worth this or more, else takes the widow unseen (the
average value of three random cards of the 32-card deck is 15.8)."""
TURN_ENDS = ("discard", "knock", "stand", "exchange")
"""Action kinds that end a seat's turn."""

get_variant("scat")  # load the variant registry now, before the referee starts the clock


def first_turn_threshold(players: int, place: int) -> float:
    """The table's threshold; 7 to 9 players stretch the six-player row over the seats
    (place ``k`` of ``n`` uses the six-player threshold of place ``k * 6 // n``)."""
    if players in FIRST_TURN:
        return FIRST_TURN[players][place]
    return FIRST_TURN[6][min(place * 6 // players, 5)]


def knock_threshold(players: int, place: int, turns_taken: int, options: Mapping[str, Any]) -> float:
    """The value needed to knock on a turn after ``turns_taken`` earlier turns this round."""
    first = first_turn_threshold(players, place)
    threshold = first if turns_taken == 0 else min(LATE_CAP, first + RISE_PER_TURN * turns_taken)
    return threshold + (DECK32_SHIFT if options["deck"] == 32 else 0.0)


def turn_place(observation: Mapping[str, Any]) -> tuple[int, int]:
    """(players still in, this seat's place in the turn order from the dealer's left)."""
    active: Sequence[bool] = observation["active"]
    n = len(active)
    order = [s for s in ((observation["dealer"] + 1 + i) % n for i in range(n)) if active[s]]
    return len(order), order.index(observation["seat"])


def turns_taken(events: Sequence[Mapping[str, Any]], seat: int) -> int:
    """Turns ``seat`` has finished in the round in progress."""
    count = 0
    for event in reversed(events):
        kind = event.get("event")
        if kind == "round_start":
            break
        if kind == "action" and event.get("seat") == seat and str(event.get("action")).split()[0] in TURN_ENDS:
            count += 1
    return count


class Hands:
    """Hand values under one match's options."""

    def __init__(self, match: MatchInfo) -> None:
        self.evaluate = match.evaluator()

    def value(self, cards: Sequence[Card]) -> float:
        return self.evaluate(cards).value

    def with_top(self, hand: Sequence[Card], top: Card) -> float:
        """The best hand keeping ``top`` and two of ``hand``."""
        a, b, c = hand
        return max(self.value((a, b, top)), self.value((a, c, top)), self.value((b, c, top)))

    def discard(self, hand: Sequence[Card], legal: Sequence[str]) -> str:
        """The discard leaving the best hand; ties throw the lower card."""
        def kept(action: str) -> tuple[float, int]:
            card = parse_card(action.split()[1])
            return self.value([c for c in hand if c != card]), -POINTS[card]

        return max((a for a in legal if a.startswith("discard ")), key=kept)


def choose_turn(observation: Mapping[str, Any], legal: Sequence[str], match: MatchInfo, hands: Hands) -> str:
    hand = [parse_card(c) for c in observation["hand"]]
    value = hands.value(hand)
    if "knock" in legal:
        players, place = turn_place(observation)
        taken = turns_taken(match.events, match.seat)
        if value >= BLITZ or value >= knock_threshold(players, place, taken, match.resolved_options):
            return "knock"
    top = observation.get("discard_top")
    if "take" in legal and top and hands.with_top(hand, parse_card(top)) > value:
        return "take"
    for action in ("draw", "stand"):
        if action in legal:
            return action
    return legal[0]


class WidowTurns:
    """Schwimmen: the bot's turns this round on which it could knock (its "first turn" is the
    first of them: nobody may knock before every player has had a turn)."""

    def __init__(self) -> None:
        self.round = -1
        self.knockable = 0

    def count(self, observation: Mapping[str, Any], legal: Sequence[str]) -> int:
        """Earlier turns of this round with knocking allowed; counts this one if it is one."""
        if observation["round"] != self.round:
            self.round, self.knockable = observation["round"], 0
        earlier = self.knockable
        if "knock" in legal:
            self.knockable += 1
        return earlier


def swap_result(hand: Sequence[Card], action: str, widow: Sequence[Card]) -> list[Card] | None:
    """Schwimmen: the hand after ``swap_one GIVE TAKE`` or ``swap_all``; None for other actions."""
    words = action.split()
    if words[0] == "swap_one":
        give, take = parse_card(words[1]), parse_card(words[2])
        return [take if c == give else c for c in hand]
    if words[0] == "swap_all":
        return list(widow)
    return None


def choose_widow(observation: Mapping[str, Any], legal: Sequence[str], match: MatchInfo, turns: WidowTurns) -> str:
    """Schwimmen: the survival table on the first turn knocking is allowed, greedy swaps."""
    hand = [parse_card(c) for c in observation["hand"]]
    value = match.value(hand).value
    if observation["phase"] == "choice":
        return "keep" if value >= KEEP_AT else "swap_hand"
    taken = turns.count(observation, legal)
    if "knock" in legal:
        players, place = turn_place(observation)
        if value >= knock_threshold(players, place, taken, match.resolved_options):
            return "knock"
    widow = [parse_card(c) for c in observation["widow"]]
    options = [(match.value(after).value, action) for action in legal
               if (after := swap_result(hand, action, widow)) is not None]
    best = max(options, default=None)
    if best is not None and best[0] > value:
        return best[1]
    return "pass" if "pass" in legal else legal[0]


_hands: Hands | None = None
_turns = WidowTurns()
_any_legal = random.Random()
"""Skat, a rules family this bot has no play for: a random legal action, seeded per match."""


@hookimpl
def match_start(match: MatchInfo) -> None:
    global _hands, _turns
    if match.rules.family.name == "skat":
        _any_legal.seed(f"{match.match_id}/{match.seat}")
        return
    _hands = Hands(match)
    _turns = WidowTurns()


@hookimpl
def choose(observation: dict[str, Any], legal: list[str], match: MatchInfo) -> str:
    if len(legal) == 1:
        return legal[0]
    if match.rules.family.name == "skat":
        return _any_legal.choice(legal)
    if "widow" in observation and match.rules.family.name == "widow":
        return choose_widow(observation, legal, match, _turns)
    hands = _hands or Hands(match)
    if observation["phase"] == "discard":
        return hands.discard([parse_card(c) for c in observation["hand"]], legal)
    return choose_turn(observation, legal, match, hands)
