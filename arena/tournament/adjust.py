"""Luck-adjusted comparison scores for stored matches (:mod:`arena.luck`).

A match's luck is measured from its stored log and deal when a verdict first needs it, and
kept for the verdicts after it (``arena test`` recomputes its verdict after every batch).
The adjusted score of seat ``i`` against seat ``j`` of an ``n``-seat match is its
comparison score minus ``(n - 1) / n * (luck_i - luck_j)``: averaged over the other seats
it is the seat's result minus its own luck.  A match whose luck cannot be measured (its
deal key gone, or a log the rules engine would not play again) keeps its raw score, which
is as unbiased.
"""

from __future__ import annotations

from arena.luck import BOUND, match_luck
from arena.tournament.logs import decompress_log
from arena.tournament.store import MatchRecord, Store

__all__ = ["LuckBook", "spread"]


def spread(players: int) -> float:
    """How far outside 0..1 a luck-adjusted pair score can reach at a table of ``players``:
    ``(n - 1) / n`` times the difference of two lucks, each at most ``BOUND``."""
    return 2 * BOUND * (players - 1) / players


class LuckBook:
    """Each stored match's luck per seat, measured once."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._luck: dict[str, tuple[float, ...] | None] = {}

    def of(self, match: MatchRecord) -> tuple[float, ...] | None:
        """The luck of each seat of ``match`` (loaded with its log), or None."""
        if match.id not in self._luck:
            seed = self.store.match_seed(match)
            luck = None
            if seed is not None and match.log:
                found = match_luck(match.variant, len(match.seats), match.options, seed, decompress_log(match.log))
                luck = None if found is None else found.seats
            self._luck[match.id] = luck
        return self._luck[match.id]

    def pair_score(self, match: MatchRecord, i: int, j: int) -> float:
        """Seat ``i``'s comparison score against seat ``j``, luck removed where measured."""
        a, b = match.seats[i].placement, match.seats[j].placement
        raw = 1.0 if a < b else 0.5 if a == b else 0.0
        luck = self.of(match)
        if luck is None:
            return raw
        n = len(match.seats)
        return raw - (n - 1) / n * (luck[i] - luck[j])
