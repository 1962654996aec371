"""Suit scores of the four- and five-card relatives (docs/RULES.md sections 2 and 5).

The **net suit score** (Fifty-One, Empat Satu): choose one suit, add its cards' points
and subtract the points of every other card; the hand is worth the best such choice.
Chinese Fifty-One counts the plain **suit sum** instead ("as in the standard game of
Thirty-One", source text 000), in which exactly 51 in one suit is a *clear count*.

The :class:`HandValue` names the chosen suit in its label and lists that suit's cards
first, so ``arena hand`` shows which suit the score counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import POINTS, SUIT_NAMES, Card
from arena.rules.hands import HandValue

__all__ = [
    "CLEAR_COUNT",
    "is_clear_count",
    "net_suit_key",
    "net_suit_value",
    "one_suit",
    "suit_sum",
    "suit_sum_value",
]

CLEAR_COUNT = 51
"""Exactly this many points in one suit is a clear count (Chinese Fifty-One)."""


def one_suit(cards: Sequence[Card]) -> bool:
    """Whether every card of ``cards`` is of one suit."""
    suit = cards[0] & 3
    return all(c & 3 == suit for c in cards)


def is_clear_count(cards: Sequence[Card]) -> bool:
    """A five-card hand of one suit worth exactly 51 (A K Q J T of a suit)."""
    return len(cards) == 5 and one_suit(cards) and sum(POINTS[c] for c in cards) == CLEAR_COUNT


def _sums(cards: Sequence[Card]) -> list[int]:
    sums = [0, 0, 0, 0]
    for c in cards:
        sums[c & 3] += POINTS[c]
    return sums


def _best_net(cards: Sequence[Card]) -> tuple[int, int, int]:
    """(net suit score, lowest rank of the counted suit, that suit) of the best choice.

    Only suits the hand holds can be best; two suits scoring the same are split by the
    higher lowest card, the choice a player makes.
    """
    sums = [0, 0, 0, 0]
    low = [99, 99, 99, 99]
    for c in cards:
        suit = c & 3
        sums[suit] += POINTS[c]
        if c >> 2 < low[suit]:
            low[suit] = c >> 2
    total = sums[0] + sums[1] + sums[2] + sums[3]
    return max((2 * sums[s] - total, low[s], s) for s in range(4) if low[s] != 99)


def net_suit_key(cards: Sequence[Card]) -> tuple[int, int]:
    """(net suit score, lowest rank of the counted suit): the engine's fast path, with the
    value and order :func:`net_suit_value` gives."""
    score, lowest, _ = _best_net(cards)
    return score, lowest


def _suit_first(cards: Sequence[Card], suit: int) -> tuple[Card, ...]:
    """The suit's cards high to low, then the others high to low: the cards that make the score."""
    return tuple(sorted(cards, key=lambda c: (c & 3 == suit, c), reverse=True))


def net_suit_value(cards: Sequence[Card], *, lowest_tiebreak: bool = False) -> HandValue:
    """The net suit score: the best of (one suit's points) - (all other points).

    ``lowest_tiebreak`` (Empat Satu) puts the lowest card of the counted suit into both
    sort keys: equal scores are ordered by its rank.
    """
    score, lowest, suit = _best_net(cards)
    counted = sum(POINTS[c] for c in cards if c & 3 == suit)
    off = counted - score
    label = f"{SUIT_NAMES[suit]} {counted}" + (f" - {off}" if off else "")
    key = (score, lowest) if lowest_tiebreak else (score,)
    return HandValue(float(score), _suit_first(cards, suit), label, key, key)


def suit_sum(cards: Sequence[Card]) -> int:
    """The points of the hand's best suit: the engine's fast path of :func:`suit_sum_value`."""
    return max(_sums(cards))


def suit_sum_value(cards: Sequence[Card]) -> HandValue:
    """The suit sum of a hand of any size: the points of its best suit.

    Two suits with the same sum are split by their higher cards; a clear count says so in
    its label.
    """
    sums = _sums(cards)
    best = max(sums)
    suit = max(
        (s for s in range(4) if sums[s] == best),
        key=lambda s: sorted((c for c in cards if c & 3 == s), reverse=True),
    )
    label = f"{SUIT_NAMES[suit]} {best}"
    if is_clear_count(cards):
        label = f"clear count ({label})"
    key = (best,)
    return HandValue(float(best), _suit_first(cards, suit), label, key, key)
