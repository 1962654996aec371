"""Who sits where at a person's table, and the names the person sees for each seat."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.rules import get_variant

__all__ = ["COMPASS", "Table", "seat_names"]

COMPASS: Final = {2: ("North",), 3: ("West", "East"), 4: ("West", "North", "East")}
"""The other seats, clockwise from the person's left, as a person at a card table names
them (the person sits South); larger tables number their seats."""


def seat_names(players: int, seat: int) -> tuple[str, ...]:
    """A name per seat as the person in ``seat`` sees the table: ``You``, then the others
    clockwise (``West``, ``North``, ``East``), or ``Seat N`` at tables of five or more.

    >>> seat_names(4, 1)
    ('East', 'You', 'West', 'North')
    >>> seat_names(5, 0)[:2]
    ('You', 'Seat 1')
    """
    compass = COMPASS.get(players)
    names = []
    for number in range(players):
        offset = (number - seat) % players
        if offset == 0:
            names.append("You")
        elif compass is not None:
            names.append(compass[offset - 1])
        else:
            names.append(f"Seat {number}")
    return tuple(names)


@dataclass(frozen=True)
class Table:
    """A match as the person's seat knows it from ``match_start``, with who plays each seat."""

    variant: str
    family: str
    """The rules family's name (``thirty-one``, ``widow``, ``fifty-one``, ``fifty-one-chinese``,
    ``empat-satu``, ``skat``): narration and views differ by family."""
    options: Mapping[str, Any]
    players: int
    seat: int
    """The person's seat."""
    names: tuple[str, ...]
    """What each seat is called on screen (:func:`seat_names`)."""
    who: tuple[str, ...]
    """Who plays each seat: the person's name, the bots' names."""

    @classmethod
    def seated(cls, variant: str, options: Mapping[str, Any], players: int, seat: int,
               who: Sequence[str] = ()) -> Table:
        """The table of a match of ``variant`` with the person in ``seat``; ``who`` names each
        seat's player (default: its screen name)."""
        names = seat_names(players, seat)
        family = get_variant(variant).family.name
        return cls(variant, family, dict(options), players, seat, names, tuple(who) or names)

    def name(self, seat: int) -> str:
        """The screen name of ``seat``."""
        return self.names[seat] if 0 <= seat < self.players else f"Seat {seat}"

    def mention(self, seat: int) -> str:
        """``seat``'s name inside a sentence: ``you`` for the person."""
        return "you" if seat == self.seat else self.name(seat)

    def you(self, seat: int) -> bool:
        """Whether ``seat`` is the person's."""
        return seat == self.seat
