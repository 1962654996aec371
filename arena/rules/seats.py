"""Seats at a table: who is still in, the order of play, forfeits and placements (docs/RULES.md 1).

Every family keeps the same books on its seats: play passes to the next seat still in
(clockwise, or counter-clockwise in Chinese Fifty-One), a seat that forfeits is out at
once and placed below every seat that did not, and the others are placed by the
family's standing.  :class:`Lives` adds what every elimination game keeps besides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Self

from arena.rules.game import rank_placements

__all__ = ["Lives", "Seats"]


class Seats:
    """Which seats are still in, which way play passes, and the order seats forfeited.

    ``step`` is the direction of play: +1 passes left (clockwise, seat numbers rising),
    -1 passes right.
    """

    def __init__(self, players: int, step: int = 1) -> None:
        self.active = [True] * players
        self.forfeits = [0] * players
        """1, 2, ... in the order seats forfeited; 0 for a seat that did not."""
        self.step = step

    @property
    def count(self) -> int:
        """Seats still in."""
        return sum(self.active)

    def next(self, seat: int) -> int:
        """The next seat in the direction of play that is still in."""
        active = self.active
        n = len(active)
        step = self.step
        seat = (seat + step) % n
        while not active[seat]:
            seat = (seat + step) % n
        return seat

    def order(self, first: int) -> list[int]:
        """Every seat still in, in the direction of play, starting with ``first``."""
        order = [first]
        for _ in range(self.count - 1):
            order.append(self.next(order[-1]))
        return order

    def after(self, seat: int) -> list[int]:
        """Every seat still in, from the one after ``seat`` round to ``seat`` (or its place):
        the order of a deal by ``seat``."""
        return self.order(self.next(seat))

    def clone(self) -> Self:
        """A copy whose books change independently of these (for :meth:`MatchState.clone`)."""
        new = object.__new__(type(self))
        new.__dict__.update({name: value[:] if type(value) is list else value for name, value in vars(self).items()})
        return new

    def forfeit(self, seat: int) -> None:
        """Take ``seat`` out now, placed below every seat that did not forfeit."""
        self.active[seat] = False
        self.forfeits[seat] = max(self.forfeits) + 1

    def placements(self, standing: Callable[[int], tuple[int, ...]]) -> tuple[int, ...]:
        """Competition ranks (1 = best) of every seat: seats that forfeited last, a later
        forfeit better; the others by ``standing(seat)``, higher better."""
        return rank_placements([(-1, f) if f else (1, *standing(s)) for s, f in enumerate(self.forfeits)])


class Lives(Seats):
    """The seats of an elimination game: lives, and the round each seat went out in.

    A round's losses are applied with the "every player would be eliminated" rule, and
    seats out are placed in the reverse order of elimination (the same round shares).
    """

    def __init__(self, players: int, lives: int, free_ride: bool) -> None:
        super().__init__(players)
        self.lives = [lives] * players
        self.floor = 0 if free_ride else 1
        """A seat with fewer lives is out (a free ride plays on at zero)."""
        self.out_round = [0] * players

    def settle(self, losses: Sequence[int], round_number: int) -> tuple[bool, list[int]]:
        """Apply a round's losses: (cancelled, seats eliminated).

        If they would eliminate every player still in, nothing changes (cancelled).
        """
        after = [have - lost for have, lost in zip(self.lives, losses)]
        out = [s for s, a in enumerate(self.active) if a and after[s] < self.floor]
        if out and len(out) == self.count:
            return True, []
        self.lives = after
        for s in out:
            self.active[s] = False
            self.out_round[s] = round_number
        return False, out

    def standing(self, seat: int) -> tuple[int, int]:
        """How a seat that did not forfeit is placed: seats still in by lives, then seats
        out by the round they went out in (later is better)."""
        return (1, self.lives[seat]) if self.active[seat] else (0, self.out_round[seat])
