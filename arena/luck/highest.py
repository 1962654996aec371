"""The chance events of the games the best hand wins: the four- and five-card relatives
(fifty-one, fifty-one-chinese, empat-satu) and Skat.

* **The deal**: every assignment of the dealt hands to the seats dealt (as in
  :mod:`arena.luck.three_cards`); a card dealt beyond the hands (the Chinese first player's
  sixth) stays with its seat, and a table or skat dealt beside them stays where it is.
* **A card drawn** from the stock (fifty-one-chinese, empat-satu): every card still in it.

A seat's value is its chance of holding the best hand, a soft maximum of the hands'
strengths.  A hand's **strength**, 0 to 1, is the share of a fixed sample of hands of its
size that the rules' own order puts below it (the best of its cards, when it holds more);
in Skat, a count of what makes a declarer's game (jacks, aces, tens, a long suit).  Fifty-
one's table turns and clears, and the cards out of play, are left out (unbiased, less
variance taken out).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations, permutations
from typing import Any, Final

from arena.cards import Card, new_deck, parse_cards
from arena.luck.follower import Follower
from arena.luck.ledger import Ledger
from arena.rules.game import Event, Family, MatchState

__all__ = ["HAND_SIZES", "Highest", "skat_strength"]

HAND_SIZES: Final = {"fifty-one": 5, "fifty-one-chinese": 5, "empat-satu": 4, "skat": 10}
TEMPERATURES: Final = {"deal": 0.15, "draw": 0.1}
"""Of the soft maximum (strength units, 0..1), per kind of event: set once, by judgement,
before any evaluation (the weights then scale what each kind contributes)."""
SAMPLE: Final = 4000
"""Hands in the fixed sample that strengths are read against."""


class _Ranks:
    """Strengths against a fixed sample of hands (drawn from a fixed seed: the estimate is
    part of the arena's code, never of the matches it measures)."""

    def __init__(self, family: Family, options: Mapping[str, Any], size: int) -> None:
        deck = new_deck(int(options.get("deck", 52)))
        dice = random.Random(f"arena.luck {family.name} {size}")
        self.keys = sorted(family.evaluate(dice.sample(deck, size), options).high_key for _ in range(SAMPLE))
        self.family, self.options, self.size = family, options, size

    def of(self, cards: Sequence[Card]) -> float:
        if len(cards) > self.size:
            return max(self.of(list(c)) for c in combinations(cards, self.size))
        key = self.family.evaluate(cards, self.options).high_key
        return (bisect_left(self.keys, key) + bisect_right(self.keys, key)) / (2 * SAMPLE)


_RANKS: dict[tuple[str, str], _Ranks] = {}

_JACKS: Final = {"Jc": 4.0, "Js": 3.0, "Jh": 2.0, "Jd": 1.0}


def skat_strength(cards: Sequence[Card]) -> float:
    """What a ten-card Skat hand brings to a game, scaled to about 0..1: jacks (the club jack
    most), aces, tens, and the longest suit beside the jacks."""
    names = [str(c) for c in cards]
    score = sum(_JACKS.get(n, 0.0) for n in names)
    score += sum(1.5 for n in names if n[0] == "A") + sum(1.0 for n in names if n[0] == "T")
    suits = [n[1] for n in names if n[0] != "J"]
    score += max((suits.count(s) for s in "cshd"), default=0)
    return score / 30


class Highest(Follower):
    """Follows a match of the games the best hand wins."""

    def __init__(self, state: MatchState, ledger: Ledger) -> None:
        super().__init__(state, ledger)
        family = state.variant.family
        self.size = HAND_SIZES[family.name]
        if family.name == "skat":
            self.strength: Callable[[Sequence[Card]], float] = skat_strength
        else:
            key = (family.name, repr(sorted(state.options.items())))
            if key not in _RANKS:
                _RANKS[key] = _Ranks(family, state.options, self.size)
            self.strength = _RANKS[key].of

    def _seen(self, event: Event) -> None:
        if event.kind == "deal":
            self._deal(event)

    def _values(self, strengths: Sequence[float], temperature: float) -> list[float]:
        """Each seat's chance of the best hand: a soft maximum."""
        high = max(strengths)
        weights = [math.exp((x - high) / temperature) for x in strengths]
        total = sum(weights)
        return [w / total for w in weights]

    def _deal(self, event: Event) -> None:
        private = event.private or {}
        seats = sorted(private)
        if len(seats) < 2:
            return
        hands = [parse_cards(private[s]["hand"]) for s in seats]
        packets = [h[: self.size] for h in hands]
        extras = [h[self.size :] for h in hands]
        m = len(seats)
        orders: Sequence[Sequence[int]] = (list(permutations(range(m))) if m <= 5
                                           else [[(i + k) % m for i in range(m)] for k in range(m)])
        strength = {i: self.strength(packets[i]) for i in range(m)} if not any(extras) else None
        values = []
        for p in orders:
            if strength is not None:
                row = [strength[p[i]] for i in range(m)]
            else:
                row = [self.strength(packets[p[i]] + extras[i]) for i in range(m)]
            values.append(self._values(row, TEMPERATURES["deal"]))
        self.ledger.add("deal", values, 0, seats)

    def _draw(self, state: MatchState, seat: int, candidates: list[Card]) -> None:
        if not self.ledger.weights.get("draw"):
            return
        active = [s for s in range(self.players) if state.seats.active[s]]  # type: ignore[attr-defined]
        hands: list[list[Card]] = state.hands  # type: ignore[attr-defined]
        kept = hands[seat][:-1]
        mine = active.index(seat)
        strengths = [self.strength(hands[s]) for s in active]
        values = []
        for card in candidates:
            strengths[mine] = self.strength([*kept, card])
            values.append(self._values(strengths, TEMPERATURES["draw"]))
        self.ledger.add("draw", values, candidates.index(hands[seat][-1]), active)
