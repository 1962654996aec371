"""The luck of chance events, summed per seat (the control variate of AIVAT's chance terms).

A chance event (a deal, a card drawn) has equally likely outcomes; the value estimate
gives every seat a value after each.  The event's luck for a seat is its value after the
outcome that happened minus the mean over every outcome that could have happened: its
mean is zero given everything before the event, whatever the values are, so the sum over
a match's events is zero on average and a result minus its luck keeps the result's mean.

The luck is kept within a bound: an event whose swing could take a seat's running total
past it adds nothing for that seat.  The rule looks only at what was known before the
event (the total so far and every outcome's value), so the skipped terms are chosen
predictably and the estimate stays unbiased, while the adjusted result stays in a known
range for tests that need one (``arena test`` bets on bounded scores).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["Ledger"]


class Ledger:
    """Each seat's luck so far, by kind of event (``deal``, ``draw``...), each kind scaled
    by its weight."""

    def __init__(self, seats: int, weights: Mapping[str, float], bound: float) -> None:
        self.weights = weights
        self.bound = bound
        self.total: list[float] = [0] * seats  # exact zeros: the tests sum fractions
        self.parts: dict[str, list[float]] = {kind: [0] * seats for kind in weights}
        self.skipped = 0
        """Seat terms left out because they could have crossed the bound."""

    def add(self, kind: str, values: Sequence[Sequence[float]], realized: int, seats: Sequence[int]) -> None:
        """One event: ``values[k][i]`` is seat ``seats[i]``'s value after outcome ``k`` (all
        equally likely), and outcome ``realized`` happened."""
        weight = self.weights.get(kind, 0.0)
        count = len(values)
        if count < 2 or not weight:
            return
        for i, seat in enumerate(seats):
            column = [row[i] for row in values]
            mean = sum(column) / count
            swing = weight * max(abs(v - mean) for v in column)
            term = weight * (column[realized] - mean)
            if abs(self.total[seat]) + swing > self.bound:
                self.skipped += 1
                continue
            self.total[seat] += term
            self.parts[kind][seat] += term
