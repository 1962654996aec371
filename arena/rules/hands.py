"""Hand evaluators (``docs/RULES.md`` section 2), shared by the families and ``arena hand``.

A :class:`HandValue` carries two sort keys because the source texts break ties
differently when looking for the loser and for the winner: the scat family decides
losing on value alone but finds a single highest hand by the cards that make it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.cards import CARDS, POINTS, SUIT_NAMES, Card
from arena.rules.errors import RulesError

__all__ = [
    "HandValue",
    "SUIT_ORDER",
    "cached_evaluator",
    "check_hand",
    "format_value",
    "special_values",
    "thirty_one_points",
    "thirty_one_value",
]

# Schwimmen's scoring-suit order: clubs > spades > hearts > diamonds (indexed by suit).
SUIT_ORDER = (3, 0, 1, 2)

BLITZ = 1
"""Special level of a blitz (31 in one suit)."""
ACES_33 = 2
"""Special level of three aces valued 33: acts like a blitz and beats it."""


@dataclass(frozen=True, slots=True)
class HandValue:
    """A hand's value, the cards that make it, and how it compares.

    ``low_key`` orders hands when the lowest must be found (the loser), ``high_key``
    when the highest must be found (the winner); larger keys are better.  ``special``
    is 0 for an ordinary hand, :data:`BLITZ` or :data:`ACES_33` for round-ending hands.
    """

    value: float
    cards: tuple[Card, ...]
    label: str
    low_key: tuple[Any, ...]
    high_key: tuple[Any, ...]
    special: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``value`` as an int when it is whole)."""
        return {
            "value": json_number(self.value),
            "cards": [str(c) for c in self.cards],
            "label": self.label,
        }

    @property
    def of_a_kind(self) -> bool:
        """Three cards of one rank valued as trips (or three aces), not as a suit sum."""
        cards = self.cards
        return len(cards) == 3 and cards[0] >> 2 == cards[1] >> 2 == cards[2] >> 2

    def loses_to(self, other: HandValue, *, highest: bool = False) -> bool:
        """Strictly lower than ``other`` when the loser is sought (``highest``: the winner).

        A trips hand and a suit hand of equal value are tied (docs/RULES.md 5b): no
        tie-break orders one kind against the other, so both can be lowest (or highest)
        at once.
        """
        if self.value != other.value:
            return self.value < other.value
        if self.of_a_kind != other.of_a_kind:
            return False
        return self.high_key < other.high_key if highest else self.low_key < other.low_key


def check_hand(cards: Sequence[Card], size: int, deck: int = 52) -> None:
    """RulesError unless ``cards`` is a hand of ``size`` distinct cards of the ``deck``-card deck
    (what every family's :meth:`Family.evaluate` checks first)."""
    if len(cards) != size:
        raise RulesError(f"a hand in this game has {size} cards, not {len(cards)}")
    if len(set(cards)) != size:
        raise RulesError("a hand cannot hold the same card twice")
    if deck == 32 and any(c >> 2 < 5 for c in cards):
        low = " ".join(str(c) for c in cards if c >> 2 < 5)
        raise RulesError(f"{low}: not in the 32-card deck (7 to A)")


def cached_evaluator(evaluate: Callable[[Sequence[Card]], HandValue]) -> Callable[[Sequence[int]], HandValue]:
    """``evaluate`` (a family's, under one match's options) as a function of a hand's cards as
    plain ints (``rank * 4 + suit``, in any order), run once per distinct hand: every
    evaluator of the engine values a hand alike in any order of its cards.

    A hand holding a card twice is never answered from the cache: ``evaluate`` refuses it.
    """
    cache: dict[frozenset[int], HandValue] = {}
    get = cache.get

    def value(cards: Sequence[int]) -> HandValue:
        key = frozenset(cards)
        found = get(key)
        if found is None or len(key) != len(cards):
            found = evaluate([CARDS[card] for card in cards])
            if len(key) == len(cards):
                cache[key] = found
        return found

    return value


def json_number(value: float) -> int | float:
    """``31.0`` as ``31``; ``30.5`` stays."""
    return int(value) if float(value).is_integer() else value


def format_value(value: float) -> str:
    """A value as the rules write it: ``31``, ``30.5``."""
    return str(json_number(value))


def _best_suit(cards: Sequence[Card], by_suit_order: bool) -> tuple[int, int, tuple[Card, ...]]:
    """(sum, suit, cards of that suit high to low) of the best suit.

    Two suits reaching the same sum are split by the higher cards, or with
    ``by_suit_order`` by the Schwimmen suit order.
    """
    sums = [0, 0, 0, 0]
    for c in cards:
        sums[c & 3] += POINTS[c]
    total = max(sums)
    suits = [s for s in range(4) if sums[s] == total]
    if len(suits) == 1:
        suit = suits[0]
    elif by_suit_order:
        suit = max(suits, key=SUIT_ORDER.__getitem__)
    else:
        suit = max(suits, key=lambda s: sorted((c for c in cards if c & 3 == s), reverse=True))
    return total, suit, tuple(sorted([c for c in cards if c & 3 == suit], reverse=True))


def thirty_one_value(
    cards: Sequence[Card],
    *,
    trips: str = "none",
    three_aces: str = "none",
    blitz_only_akt: bool = False,
    tiebreak: str = "cards",
    low_tiebreak: bool = False,
) -> HandValue:
    """The Thirty-One value of a three-card hand (suit sum, trips and three-aces options).

    ``tiebreak`` (``cards``, ``suit`` or ``none``) shapes ``high_key``; ``low_key`` is
    the value alone unless ``low_tiebreak`` (the Schwimmen family) applies it there too.
    """
    ranks = {c >> 2 for c in cards}
    is_trips = len(cards) == 3 and len(ranks) == 1
    if is_trips and (three_aces != "none" or trips != "none"):
        rank = cards[0] >> 2
        ordered = tuple(sorted(cards, reverse=True))
        if rank == 12 and three_aces != "none":
            value = float(three_aces)
            special = ACES_33 if three_aces == "33" else 0
            label = "three aces (Feuer)" if three_aces == "32" else "three aces"
        elif trips != "none":
            value, special, label = float(trips), 0, "trips"
        else:  # three aces valued as a plain suit sum
            return _suit_hand(cards, blitz_only_akt, tiebreak, low_tiebreak)
        key: tuple[Any, ...]
        if tiebreak == "cards":
            key = (value, rank, rank, rank)
        elif tiebreak == "suit":
            key = (value, 1, rank)
        else:
            key = (value,)
        return HandValue(value, ordered, label, key if low_tiebreak else (value,), key, special)
    return _suit_hand(cards, blitz_only_akt, tiebreak, low_tiebreak)


def _suit_hand(cards: Sequence[Card], blitz_only_akt: bool, tiebreak: str, low_tiebreak: bool) -> HandValue:
    total, suit, making = _best_suit(cards, tiebreak == "suit")
    value = float(total)
    special = 0
    label = SUIT_NAMES[suit] if len(making) > 1 else "high card"
    if total == 31 and len(making) == 3:
        akt = sorted(c >> 2 for c in making) == [8, 11, 12]
        if akt or not blitz_only_akt:
            special, label = BLITZ, "blitz"
    if tiebreak == "cards":
        high: tuple[Any, ...] = (value, *(c >> 2 for c in making))
    elif tiebreak == "suit":
        high = (value, 0, SUIT_ORDER[suit])
    else:
        high = (value,)
    return HandValue(value, making, label, high if low_tiebreak else (value,), high, special)


def special_values(trips: str, three_aces: str) -> tuple[float | None, float | None]:
    """(value of trips, value of three aces) under the options; ``None`` means suit sum."""
    trips_value = None if trips == "none" else float(trips)
    aces_value = trips_value if three_aces == "none" else float(three_aces)
    return trips_value, aces_value


def thirty_one_points(hand: Sequence[Card], trips: float | None, aces: float | None) -> float:
    """The value of a three-card hand, fast: the engine's showdown path.

    ``trips`` and ``aces`` come from :func:`special_values`; :func:`thirty_one_value`
    gives the same value with the cards and sort keys.
    """
    a, b, c = hand
    if a >> 2 == b >> 2 == c >> 2:
        special = aces if a >> 2 == 12 else trips
        if special is not None:
            return special
    sa, sb, sc = a & 3, b & 3, c & 3
    pa, pb, pc = POINTS[a], POINTS[b], POINTS[c]
    if sa == sb:
        return float(pa + pb + pc) if sb == sc else float(max(pa + pb, pc))
    if sa == sc:
        return float(max(pa + pc, pb))
    if sb == sc:
        return float(max(pb + pc, pa))
    return float(max(pa, pb, pc))
