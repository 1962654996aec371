"""A ranking's matches as flat arrays: who sat at each table and how each seat placed.

Rankings read every match of theirs again and again (the ratings, the tallies, the
deal-group bootstrap, the head-to-head records), and a ladder's host renders them while
the ladder stores more.  As Python objects a match took some 700 bytes, held while a page
rendered, and the host's memory rose with the ladder (the C allocator keeps what a
rendering touched).  As arrays a match takes some 70 bytes, in blocks the allocator gives
back, and the sums over them are numpy's.
"""

from __future__ import annotations

import hashlib
import math
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final, Protocol

import numpy as np
import numpy.typing as npt

__all__ = ["NO_DEAL", "Gathered", "Outcome", "Pairs", "Results", "Seated"]

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

NO_DEAL: Final = -1
"""The deal of a match dealt from a public seed (it shares its cards with no other)."""


class Seated(Protocol):
    """What rankings read of a seat."""

    @property
    def version(self) -> int: ...
    @property
    def placement(self) -> int: ...
    @property
    def faults(self) -> int: ...


class Outcome(Protocol):
    """What rankings read of a match (a stored match record has these, and more)."""

    @property
    def variant(self) -> str: ...
    @property
    def deal(self) -> int | None: ...
    @property
    def seats(self) -> tuple[Seated, ...]: ...


@dataclass(frozen=True)
class Pairs:
    """Every two seats at one table, the first seated before the second: their match, and
    their seats' positions in :attr:`Results.version` (and its sibling arrays)."""

    match: Ints
    first: Ints
    second: Ints


@dataclass(frozen=True, eq=False)
class Results:
    """Matches in rating order; match ``k``'s seats are ``starts[k]:starts[k + 1]`` of the
    seat arrays, in seat order."""

    variants: tuple[str, ...]
    """The variants' names, by the codes :attr:`variant` holds."""
    variant: Ints
    deal: Ints
    """Per match, which deal of its tournament it played, or :data:`NO_DEAL`."""
    starts: Ints
    version: Ints
    placement: Ints
    faults: Ints
    luck: Floats | None = None
    """Each seat's luck (:mod:`arena.luck`), NaN where not measured; None when not asked for."""

    @classmethod
    def of(cls, matches: Iterable[Outcome]) -> Results:
        """``matches`` (stored match records, or anything with their fields) as arrays."""
        gathered = Gathered()
        for match in matches:
            gathered.match(match.variant, match.deal)
            for seat in match.seats:
                gathered.seat(seat.version, seat.placement, seat.faults)
        return gathered.results()

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, wanted: slice) -> Results:
        """The matches ``wanted`` (a slice, step 1), sharing these arrays."""
        low, high, step = wanted.indices(len(self))
        if step != 1:
            raise ValueError("matches are taken in order, a step of 1")
        high = max(low, high)
        first, last = int(self.starts[low]), int(self.starts[high])
        return Results(self.variants, self.variant[low:high], self.deal[low:high], self.starts[low:high + 1] - first,
                       self.version[first:last], self.placement[first:last], self.faults[first:last],
                       None if self.luck is None else self.luck[first:last])

    @property
    def sizes(self) -> Ints:
        """Each match's number of seats."""
        return np.diff(self.starts)

    def tables(self) -> Iterator[tuple[list[int], list[int]]]:
        """Each match's versions and placements, seat by seat, as Python lists (rating reads
        them one match at a time)."""
        versions, placements, starts = self.version.tolist(), self.placement.tolist(), self.starts.tolist()
        for k in range(len(starts) - 1):
            low, high = starts[k], starts[k + 1]
            yield versions[low:high], placements[low:high]

    def said(self) -> bytes:
        """All that rating these matches depends on, match by match (each match's seat count,
        then its seats' versions and placements): the said of two runs of matches, joined,
        is the said of both."""
        sizes = self.sizes
        heads = np.arange(len(sizes)) + 2 * self.starts[:-1]
        out = np.empty(len(sizes) + 2 * len(self.version), dtype=np.int64)
        out[heads] = sizes
        seat_at = np.repeat(heads + 1 - 2 * self.starts[:-1], sizes) + 2 * np.arange(len(self.version))
        out[seat_at] = self.version
        out[seat_at + 1] = self.placement
        return out.tobytes()

    def digest(self) -> bytes:
        """A digest of :meth:`said`."""
        return hashlib.blake2b(self.said(), digest_size=20).digest()

    def groups(self) -> tuple[Ints, int]:
        """Each match's deal group (numbered in order of first appearance), and how many
        there are: the matches dealt the same cards (same variant, table size and deal)
        share one; a match from a public seed is alone in its own."""
        n = len(self)
        if n == 0:
            return np.zeros(0, dtype=np.int64), 0
        alone = self.deal == NO_DEAL
        deal = np.where(alone, -1 - np.arange(n), self.deal)
        keys = np.stack([self.variant, self.sizes, deal], axis=1)
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        number = np.empty(len(first), dtype=np.int64)
        number[order] = np.arange(len(first))
        return number[inverse.reshape(-1)], len(first)

    def pairs(self) -> Pairs:
        """Every two seats of each match (in no particular order of matches)."""
        sizes = self.sizes
        matches, firsts, seconds = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)], [
            np.zeros(0, dtype=np.int64)]
        for size in np.unique(sizes).tolist():
            these = np.flatnonzero(sizes == size)
            a, b = np.triu_indices(size, 1)
            base = self.starts[these][:, None]
            matches.append(np.repeat(these, len(a)))
            firsts.append((base + a).reshape(-1))
            seconds.append((base + b).reshape(-1))
        return Pairs(np.concatenate(matches), np.concatenate(firsts), np.concatenate(seconds))


class Gathered:
    """:class:`Results` gathered a match at a time, in plain arrays (no object kept per
    match or seat while a ladder's matches are read)."""

    def __init__(self, *, luck: bool = False) -> None:
        self._codes: dict[str, int] = {}
        self._variant, self._deal, self._starts = array("q"), array("q"), array("q", [0])
        self._version, self._placement, self._faults = array("q"), array("q"), array("q")
        self._luck = array("d") if luck else None

    def match(self, variant: str, deal: int | None) -> None:
        """Begin a match: its seats follow (:meth:`seat`)."""
        codes = self._codes
        code = codes.get(variant)
        if code is None:
            code = codes[variant] = len(codes)
        self._variant.append(code)
        self._deal.append(NO_DEAL if deal is None else deal)
        self._starts.append(self._starts[-1])

    def seat(self, version: int, placement: int, faults: int, luck: float = math.nan) -> None:
        """The current match's next seat."""
        self._version.append(version)
        self._placement.append(placement)
        self._faults.append(faults)
        if self._luck is not None:
            self._luck.append(luck)
        self._starts[-1] += 1

    def results(self) -> Results:
        columns = (self._variant, self._deal, self._starts, self._version, self._placement, self._faults)
        variant, deal, starts, version, placement, faults = (
            np.frombuffer(c, dtype=np.int64) if len(c) else np.zeros(0, np.int64) for c in columns)
        luck = None if self._luck is None else np.array(self._luck, dtype=np.float64)
        return Results(tuple(self._codes), variant, deal, starts, version, placement, faults, luck)
