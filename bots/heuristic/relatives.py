"""Heuristic play for the four- and five-card relatives: fifty-one, fifty-one-chinese,
empat-satu (bot.toml ``notes`` lists the rules of thumb).

All three reward one suit: a hand is scored by the net suit score (or, in Chinese
Fifty-One, the suit sum), so every choice keeps the hand that scores best now, with a
small bonus for a long suit that may still grow, and the hand is ended (stop, knock)
once its score passes a threshold.  Cards are ``rank * 4 + suit`` ints, as in
arena.cards; hands are valued here rather than through the engine to keep decisions fast.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NAMES = [r + s for r in RANKS for s in SUITS]  # index = rank * 4 + suit, as in arena.cards
INDEX = {name: i for i, name in enumerate(NAMES)}
POINTS = [min(i >> 2, 8) + 2 if (i >> 2) < 12 else 11 for i in range(52)]

LENGTH_BONUS = 0.5
"""Added per card of the counted suit while the hand goes on: a long suit improves more easily."""
FIFTY_ONE_STOP = 36.0
"""Japanese: stop with this net score at two players ..."""
FIFTY_ONE_PER_PLAYER = 1.0
"""... plus this for each further player (each has a last turn to pass the stopper)."""
CLEAR_BELOW = 1.0
"""Japanese: clear the table when no swap gains this much and the hand cannot stop yet."""
CHINESE_KNOCK = 40.0
"""Chinese: knock (and face challenges) with this hand value ..."""
CHINESE_LOW_STOCK_KNOCK = 30.0
"""... or with this much when the stock is about to run out (the hand ends anyway)."""
CHINESE_CHALLENGE = 42.0
"""Chinese: challenge a knock with at least this value (a lost challenge scores 0)."""
EMPAT_STOP = 30.0
"""Empat Satu: stop with four of a suit worth this at two players ..."""
EMPAT_PER_PLAYER = 1.0
"""... plus this for each further player (more hands that may beat it)."""
EMPAT_END_EMPTY = 18.0
"""Empat Satu, stock empty: end the hand (decline the discard) with at least this score."""


def cards_of(names: list[str]) -> list[int]:
    return [INDEX[n] for n in names if n in INDEX]


def net_suit(hand: list[int]) -> tuple[int, int]:
    """(net suit score, cards in the counted suit): best suit's points minus the rest."""
    sums = [0, 0, 0, 0]
    counts = [0, 0, 0, 0]
    for c in hand:
        sums[c & 3] += POINTS[c]
        counts[c & 3] += 1
    total = sum(sums)
    suit = max(range(4), key=lambda s: (2 * sums[s] - total if counts[s] else -999, counts[s]))
    return 2 * sums[suit] - total, counts[suit]


def suit_sum(hand: list[int]) -> tuple[int, int]:
    """(suit sum, cards in that suit): the best suit's points."""
    sums = [0, 0, 0, 0]
    counts = [0, 0, 0, 0]
    for c in hand:
        sums[c & 3] += POINTS[c]
        counts[c & 3] += 1
    suit = max(range(4), key=lambda s: (sums[s], counts[s]))
    return sums[suit], counts[suit]


class Relative:
    """What the three bots share: the match, the valuation, and the cards seen this hand
    (every card named in a public event is not in the stock)."""

    def __init__(self, match: Any) -> None:
        self.match = match
        self.players: int = match.players
        self.seen: set[int] = set()
        self.value_of = net_suit

    def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind in ("round_start", "deal"):
            if kind == "round_start":
                self.seen = set()
            self.seen.update(cards_of(list(event.get("table") or ())))
        elif kind == "action":
            words = str(event.get("action", "")).split()
            self.seen.update(cards_of(words[1:]))
            self.seen.update(cards_of([str(event.get("card"))] + list(event.get("table") or ())))

    def score(self, hand: list[int], going_on: bool = True) -> float:
        """Value now, plus a small bonus per card of the counted suit while the hand goes on."""
        value, length = self.value_of(hand)
        return value + (LENGTH_BONUS * length if going_on else 0.0)

    def best(self, cards: list[int], size: int, going_on: bool = True) -> float:
        """The best score of ``size`` of ``cards``."""
        return max(self.score(list(keep), going_on) for keep in combinations(cards, size))

    def unseen(self, hand: list[int], public: list[int]) -> list[int]:
        """Cards that may be in the stock."""
        known = self.seen | set(hand) | set(public)
        return [c for c in range(52) if c not in known]

    def expected_draw(self, hand: list[int], public: list[int], going_on: bool = True) -> float:
        """Average best score keeping ``len(hand)`` of hand + one unseen card."""
        pool = self.unseen(hand, public)
        if not pool:
            return -999.0
        return sum(self.best(hand + [c], len(hand), going_on) for c in pool) / len(pool)

    def discard(self, hand: list[int], legal: list[str], going_on: bool = True) -> str:
        """The discard that leaves the best score; ties throw the lower card."""
        options = []
        for action in legal:
            words = action.split()
            if words[0] == "discard" and words[1] in INDEX:
                card = INDEX[words[1]]
                rest = [c for c in hand if c != card]
                options.append((self.score(rest, going_on), -POINTS[card], action))
        return max(options)[2] if options else legal[0]


class FiftyOne(Relative):
    """Japanese Fifty-One: the best swap; clear a table with nothing to gain; stop at a threshold."""

    def choose(self, observation: dict[str, Any], legal: list[str]) -> str:
        hand = cards_of(observation["hand"])
        last = observation.get("stopper") is not None
        swaps: list[tuple[float, int, str]] = []
        for action in legal:
            words = action.split()
            if words[0] == "swap_one" and len(words) == 3:
                after = [c for c in hand if c != INDEX[words[1]]] + [INDEX[words[2]]]
                swaps.append((self.score(after, not last), self.value_of(after)[0], action))
        if not swaps:
            return legal[0]
        best_score, value, best = max(swaps)
        if last:
            return best
        stop_at = FIFTY_ONE_STOP + FIFTY_ONE_PER_PLAYER * (self.players - 2)
        if "clear" in legal and best_score - self.score(hand) < CLEAR_BELOW and value < stop_at:
            return "clear"
        return best + " stop" if value >= stop_at and best + " stop" in legal else best


class ChineseFiftyOne(Relative):
    """Chinese Fifty-One: trade, swap or draw for the best hand; knock and challenge by value."""

    def __init__(self, match: Any) -> None:
        super().__init__(match)
        if match.resolved_options.get("hand_value") == "suit_sum":
            self.value_of = suit_sum

    def choose(self, observation: dict[str, Any], legal: list[str]) -> str:
        hand = cards_of(observation["hand"])
        phase = observation.get("phase")
        value = self.value_of(hand)[0]
        if phase == "clear_count":
            return "knock"
        if phase == "challenge":
            return "challenge" if value >= CHINESE_CHALLENGE else "pass"
        if phase in ("discard", "first_discard"):
            return self.discard(hand, legal)
        low_stock = observation.get("stock", 99) <= self.players
        if "knock" in legal and value >= (CHINESE_LOW_STOCK_KNOCK if low_stock else CHINESE_KNOCK):
            return "knock"
        face_up = cards_of(observation.get("face_up") or [])
        options: list[tuple[float, str]] = []
        if "draw" in legal:
            options.append((self.expected_draw(hand, face_up), "draw"))
        for action in legal:
            words = action.split()
            if words[0] == "trade":
                given = set(cards_of(words[1:]))
                options.append((self.score([c for c in hand if c not in given] + face_up), action))
            elif words[0] == "swap_one":
                give, take = INDEX[words[1]], INDEX[words[2]]
                options.append((self.score([c for c in hand if c != give] + [take]), action))
        return max(options)[1] if options else legal[0]


class EmpatSatu(Relative):
    """Empat Satu: take a discard worth more than a draw; stop with a strong suit."""

    def choose(self, observation: dict[str, Any], legal: list[str]) -> str:
        hand = cards_of(observation["hand"])
        if observation.get("phase") == "discard":
            return self.discard(hand, legal)
        value = self.value_of(hand)[0]
        stop_at = EMPAT_STOP + EMPAT_PER_PLAYER * (self.players - 2)
        if "stop" in legal and value >= stop_at:
            return "stop"
        top = observation.get("discard_top")
        public = [INDEX[top]] if top in INDEX else []
        take = self.best(hand + public, 4) + 1e-6 if "take" in legal and public else -999.0
        if "pass" in legal:  # the stock is empty: end the hand unless taking is needed
            return "pass" if value >= EMPAT_END_EMPTY or take <= self.score(hand) else "take"
        draw = self.expected_draw(hand, public) if "draw" in legal else -999.0
        return "take" if take >= draw else "draw"


FAMILIES = {"fifty-one": FiftyOne, "fifty-one-chinese": ChineseFiftyOne, "empat-satu": EmpatSatu}
"""The bot for each rules family (``match.rules.family.name``)."""
