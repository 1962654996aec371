"""The value estimate of the three-card games: how a seat's match stands, from every hand.

Fixed in advance, never fitted to the matches it adjusts (docs/RANKING.md):

* a hand's **strength** is its rank among every three-card hand of the deck by the rules'
  own order for finding the loser (the family's ``low_key``), from 0 (the worst) to 1;
  four cards (a seat that drew and has yet to discard) are worth their best three;
* the chance that a seat **loses the round** is a soft minimum of the strengths
  (``exp(-strength / temperature)``, normalised over the seats still in), sharper the
  fewer turns are left (the caller's temperature);
* what losing costs comes from the **lives**: a chain in which every round one seat still
  in, chosen uniformly, loses one life, gives each seat's expected number of others it
  outlasts for every count of lives (points and chips games: one seat below, the loser).

A seat's value is its expected share of the others placed below it: the loss chances
weight what each seat's loss would leave.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import combinations
from typing import Any

from arena.cards import Card, new_deck
from arena.rules.game import Family

__all__ = ["HandRanks", "after_loss", "hand_ranks", "seat_values"]


class HandRanks:
    """Strength of every three-card hand under one family's options."""

    def __init__(self, family: Family, options: Mapping[str, Any]) -> None:
        deck = new_deck(int(options.get("deck", 52)))
        hands = [tuple(sorted(h)) for h in combinations(deck, 3)]
        keys = [family.evaluate(h, options).low_key for h in hands]
        order = sorted(range(len(hands)), key=keys.__getitem__)
        strength: dict[tuple[int, ...], float] = {}
        top = len(hands) - 1
        i = 0
        while i < len(order):  # equal keys share their mean rank
            j = i
            while j + 1 < len(order) and keys[order[j + 1]] == keys[order[i]]:
                j += 1
            rank = (i + j) / 2 / top
            for k in order[i : j + 1]:
                strength[hands[k]] = rank
            i = j + 1
        self._strength = strength

    def of(self, cards: Sequence[Card]) -> float:
        """The strength of three cards, or the best three of four."""
        if len(cards) == 3:
            return self._strength[tuple(sorted(cards))]
        return max(self._strength[tuple(sorted(three))] for three in combinations(cards, 3))


_RANKS: dict[tuple[str, tuple[tuple[str, Any], ...]], HandRanks] = {}


def hand_ranks(family: Family, options: Mapping[str, Any]) -> HandRanks:
    """The ranks for a family and its options, built once per process (22,100 hands)."""
    key = (family.name, tuple(sorted((k, repr(v)) for k, v in options.items())))
    if key not in _RANKS:
        _RANKS[key] = HandRanks(family, options)
    return _RANKS[key]


@cache
def _outlasted(left: tuple[int, ...]) -> tuple[float, ...]:
    """For lives left ``left`` (sorted, at least 1 each), each seat's expected number of the
    others it outlasts when every round one of them, uniformly, loses a life."""
    m = len(left)
    if m == 1:
        return (0.0,)
    total = [0.0] * m
    for t in range(m):
        after = list(left)
        after[t] -= 1
        if after[t] == 0:
            rest = after[:t] + after[t + 1 :]
            below = _lookup(rest)
            for s in range(m):
                if s != t:
                    total[s] += 1 + below[s if s < t else s - 1]
        else:
            below = _lookup(after)
            for s in range(m):
                total[s] += below[s]
    return tuple(x / m for x in total)


def _lookup(left: Sequence[int]) -> tuple[float, ...]:
    """:func:`_outlasted` for lives in any order (the chain is symmetric)."""
    order = sorted(range(len(left)), key=left.__getitem__)
    found = _outlasted(tuple(left[i] for i in order))
    result = [0.0] * len(left)
    for k, i in enumerate(order):
        result[i] = found[k]
    return tuple(result)


@cache
def after_loss(left: tuple[int, ...] | None, active: int, players: int) -> tuple[tuple[float, ...], ...]:
    """``[t][s]``: seat ``s``'s expected share of the others placed below it if seat ``t``
    loses the round (the ``active`` seats still in, indexed among themselves; ``left`` their
    lives left, or None where no lives are kept: the loser alone is one place down)."""
    others = max(players - 1, 1)
    if left is None:
        return tuple(tuple(0.0 if s == t else 1 / others for s in range(active)) for t in range(active))
    rows = []
    for t in range(active):
        after = list(left)
        after[t] -= 1
        if after[t] == 0:
            rest = _lookup(after[:t] + after[t + 1 :])
            row = [0.0 if s == t else (1 + rest[s if s < t else s - 1]) / others for s in range(active)]
        else:
            row = [v / others for v in _lookup(after)]
        rows.append(tuple(row))
    return tuple(rows)


def seat_values(strengths: Sequence[float], table: Sequence[Sequence[float]], temperature: float) -> list[float]:
    """Each seat's value from its hand's strength and the table of :func:`after_loss`: a
    hand ``temperature`` stronger (in strength, 0..1) is e times less likely the loser."""
    low = min(strengths)
    weights = [math.exp((low - x) / temperature) for x in strengths]
    total = sum(weights)
    m = len(strengths)
    return [sum(weights[t] * table[t][s] for t in range(m)) / total for s in range(m)]
