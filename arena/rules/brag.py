"""Three-card brag ranks (docs/RULES.md section 2), the hand order of Stop the Bus.

From high to low: prial (three of a rank), running flush, run, flush, pair, high card.
Runs compare by their top card; Q-K-A is the highest run and A-2-3 the lowest (its top
card is the 3).  Flushes and high cards compare card by card from the highest, pairs by
the pair's rank and then the kicker.  Suits never break ties: identical ranks tie.

A brag hand's :class:`HandValue` has one sort key for both uses (``low_key`` and
``high_key`` are equal, as brag has no separate tie-break) and a numeric ``value`` that
orders hands the same way, written so it can be read: the category number, then two
decimal digits per deciding rank (2 to 14, ace 14) in comparison order::

    6.13        prial of kings              (category 6, rank 13)
    5.14        running flush Q-K-A         (category 5, top card 14)
    4.03        run A-2-3                   (category 4, top card 3)
    3.140907    ace-high flush A 9 7        (category 3, then 14, 09, 07)
    2.0904      pair of nines, four kicker  (category 2, pair 09, kicker 04)
    1.141309    ace high A K 9              (category 1, then 14, 13, 09)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arena.cards import Card
from arena.rules.hands import HandValue

__all__ = ["BRAG_CATEGORIES", "brag_value"]

HIGH_CARD, PAIR, FLUSH, RUN, RUNNING_FLUSH, PRIAL = 1, 2, 3, 4, 5, 6
BRAG_CATEGORIES: Final = ("", "high card", "pair", "flush", "run", "running flush", "prial")
"""Category names by category number (1 = high card ... 6 = prial)."""

_SINGULAR: Final = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                    "jack", "queen", "king", "ace")
_PLURAL: Final = ("twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
                  "jacks", "queens", "kings", "aces")
_LETTER: Final = "23456789TJQKA"
_ACE: Final = 12


def brag_value(cards: Sequence[Card]) -> HandValue:
    """The brag rank of a three-card hand (no input checks: callers validate)."""
    ordered = sorted(cards, reverse=True)  # by rank, high first (suits only order equal ranks)
    high, mid, low = (c >> 2 for c in ordered)
    flush = ordered[0] & 3 == ordered[1] & 3 == ordered[2] & 3
    if high == mid == low:
        return _hand(PRIAL, (high,), ordered, f"prial of {_PLURAL[high]}")
    if high == mid or mid == low:
        pair, kicker = (high, low) if high == mid else (low, high)
        made = [c for c in ordered if c >> 2 == pair] + [c for c in ordered if c >> 2 == kicker]
        return _hand(PAIR, (pair, kicker), made, f"pair of {_PLURAL[pair]}")
    top = _run_top(high, mid, low)
    if top is not None:
        made = ordered if top != 1 else ordered[1:] + ordered[:1]  # A-2-3 reads 3 2 A
        name = "running flush" if flush else "run"
        run = "-".join(_LETTER[c >> 2] for c in reversed(made))
        return _hand(RUNNING_FLUSH if flush else RUN, (top,), made, f"{name} {run}")
    if flush:
        return _hand(FLUSH, (high, mid, low), ordered, f"{_SINGULAR[high]}-high flush")
    return _hand(HIGH_CARD, (high, mid, low), ordered, f"{_SINGULAR[high]} high")


def _run_top(high: int, mid: int, low: int) -> int | None:
    """The rank index of a run's top card (A-2-3: the 3), or None if not a run."""
    if high - mid == 1 and mid - low == 1:
        return high
    if (high, mid, low) == (_ACE, 1, 0):  # A-2-3, the lowest run
        return 1
    return None


def _hand(category: int, ranks: tuple[int, ...], made: Sequence[Card], label: str) -> HandValue:
    key = (category, *ranks)
    value = category + sum((r + 2) / 100 ** (i + 1) for i, r in enumerate(ranks))
    return HandValue(round(value, 6), tuple(made), label, key, key)
