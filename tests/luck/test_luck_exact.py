"""The luck estimate on a game small enough to enumerate: every order of a six-card deck.

Two seats are dealt one card each; each in turn, holding less than 3, draws the stock's top
card and keeps the higher; the higher card wins.  The chance events are entered in a
:class:`~arena.luck.ledger.Ledger` as :mod:`arena.luck.three_cards` enters a real match's:
the deal as every assignment of the dealt packets to the seats, each draw as every card
still in the stock.  Sums are exact fractions over all 720 orders.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from fractions import Fraction
from itertools import permutations

import pytest

from arena.luck.ledger import Ledger

CARDS = tuple(range(6))
ORDERS = list(permutations(CARDS))
Value = Callable[[tuple[int, ...]], tuple[Fraction, Fraction]]
"""Each seat's value after a history (the cards dealt and drawn so far, in order)."""


def play(order: tuple[int, ...]) -> tuple[list[tuple[int, ...]], tuple[int, int]]:
    """The histories after each draw, and the seats' results."""
    hands = [order[0], order[1]]
    history, after, top = list(order[:2]), [], 2
    for seat in (0, 1):
        if hands[seat] < 3:
            hands[seat] = max(hands[seat], order[top])
            history.append(order[top])
            top += 1
            after.append(tuple(history))
    return after, ((1, 0) if hands[0] > hands[1] else (0, 1))


def luck(order: tuple[int, ...], value: Value, bound: float = math.inf) -> list[float]:
    """Each seat's luck in the match dealt ``order``."""
    ledger = Ledger(2, {"deal": Fraction(1), "draw": Fraction(1)}, bound)
    a, b = order[:2]
    ledger.add("deal", [value((a, b)), value((b, a))], 0, (0, 1))
    draws, _ = play(order)
    for history in draws:
        before = history[:-1]
        stock = sorted(set(CARDS) - set(before))
        ledger.add("draw", [value((*before, card)) for card in stock], stock.index(history[-1]), (0, 1))
    return ledger.total


def exact_value(history: tuple[int, ...]) -> tuple[Fraction, Fraction]:
    """The expected results given the history: the best value estimate there is."""
    results = [play(o)[1] for o in ORDERS if o[: len(history)] == history]
    return (Fraction(sum(r[0] for r in results), len(results)), Fraction(sum(r[1] for r in results), len(results)))


def random_value(seed: int) -> Value:
    """A value table of arbitrary fractions: a poor estimate, but a fixed one."""
    rng = random.Random(seed)
    table: dict[tuple[int, ...], tuple[Fraction, Fraction]] = {}

    def value(history: tuple[int, ...]) -> tuple[Fraction, Fraction]:
        if history not in table:
            table[history] = (Fraction(rng.randint(-9, 9), 7), Fraction(rng.randint(-9, 9), 5))
        return table[history]
    return value


@pytest.mark.parametrize("value", [exact_value, random_value(1), random_value(2)], ids=["exact", "random1", "random2"])
def test_the_luck_has_mean_zero_exactly_whatever_the_value(value: Value) -> None:
    totals = [luck(order, value) for order in ORDERS]
    assert all(isinstance(t, Fraction) for seat in totals for t in seat)
    assert sum(t[0] for t in totals) == 0 and sum(t[1] for t in totals) == 0
    assert any(t[0] != 0 for t in totals)  # there is luck to take out


@pytest.mark.parametrize("bound", [Fraction(1, 3), Fraction(1, 10)])
def test_a_bound_keeps_the_luck_unbiased_and_within_it(bound: Fraction) -> None:
    value = random_value(3)
    totals = [luck(order, value, bound) for order in ORDERS]
    assert sum(t[0] for t in totals) == 0 and sum(t[1] for t in totals) == 0
    assert max(abs(x) for t in totals for x in t) <= bound
    unbounded = [luck(order, value) for order in ORDERS]
    assert totals != unbounded  # the bound did bind


def test_with_the_exact_value_only_the_deals_unordered_cards_are_left() -> None:
    """Every chance event after the unordered deal is taken out: the result minus its luck
    is the mean over the two ways of handing out the same two cards."""
    for order in ORDERS:
        _, results = play(order)
        a, b = order[:2]
        left = (exact_value((a, b))[0] + exact_value((b, a))[0]) / 2
        assert results[0] - luck(order, exact_value)[0] == left
    spread = {results[0] for results in (play(o)[1] for o in ORDERS)}
    assert spread == {0, 1}  # while the raw result varies
