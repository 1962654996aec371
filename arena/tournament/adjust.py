"""Luck-adjusted comparison scores for stored matches (:mod:`arena.luck`).

A match's luck is measured from its stored log and deal the first time a verdict asks for
it, and stored with the match (by the estimate's version: results of two estimates are
never mixed).  The adjusted score of seat ``i`` against seat ``j`` of an ``n``-seat match is
its comparison score minus ``(n - 1) / n * (luck_i - luck_j)``: averaged over the other
seats, it is the seat's result minus its own luck.  A match whose luck cannot be measured
(its deal key gone, or a log the rules engine would not play again) keeps its raw score,
which is as unbiased.  Placements, and so ratings and who won, never change.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.luck import BOUND, VERSION, match_luck, no_estimate, supported
from arena.tournament.logs import decompress_log
from arena.tournament.store import MatchRecord, Store

__all__ = ["VERSION", "LuckBook", "measure_luck", "no_estimate", "spread", "supported"]
"""With the estimate's version and what it covers (:mod:`arena.luck`), for the commands and
pages above this layer."""

BATCH = 200
"""Matches measured per transaction: an interrupted measurement keeps what it finished."""


def spread(players: int) -> float:
    """How far outside 0..1 a luck-adjusted pair score can reach at a table of ``players``:
    ``(n - 1) / n`` times the difference of two lucks, each at most ``BOUND``."""
    return 2 * BOUND * (players - 1) / players


def measure_luck(store: Store, tournament: str, variant: str | None = None,
                 progress: Callable[[int, int], None] | None = None) -> int:
    """Measure and store the luck of every match of ``tournament`` not yet measured by this
    arena's estimate; returns how many were stored.  A match whose deal key is not in this
    database is left for later (the key may come); one the estimate cannot measure is
    marked so.  ``progress(done, of)`` hears of the start, of every batch and of the end
    (nothing when nothing is to be measured): the first look at a large tournament replays
    thousands of matches.  A read-only store measures nothing."""
    if store.read_only:  # a reader takes what is measured; the rest counts raw
        return 0
    done = 0
    pending: list[tuple[str, str, tuple[float, ...] | None]] = []
    seeds = {i: seed for i in store.unmeasured(tournament, VERSION, variant)
             if (seed := store.match_seed(store.match(i, with_log=False))) is not None}
    if progress is not None and seeds:
        progress(0, len(seeds))
    for looked, (match_id, seed) in enumerate(seeds.items(), 1):
        match = store.match(match_id)
        found = None
        if match.log and supported(match.variant):
            found = match_luck(match.variant, len(match.seats), match.options, seed, decompress_log(match.log))
        pending.append((match.id, VERSION, None if found is None else found.seats))
        if len(pending) >= BATCH:
            store.save_luck(pending)
            done += len(pending)
            pending = []
            if progress is not None:
                progress(looked, len(seeds))
    if pending:
        store.save_luck(pending)
        done += len(pending)
        if progress is not None:
            progress(len(seeds), len(seeds))
    return done


class LuckBook:
    """The stored luck of one tournament's matches, measured where missing."""

    def __init__(self, store: Store, tournament: str) -> None:
        self.store, self.tournament = store, tournament
        self._luck: dict[str, tuple[float, ...] | None] = {}

    def refresh(self) -> None:
        """Measure the matches stored since the last look."""
        measure_luck(self.store, self.tournament)
        self._luck = self.store.luck(self.tournament, VERSION)

    def pair_score(self, match: MatchRecord, i: int, j: int) -> float:
        """Seat ``i``'s comparison score against seat ``j``, luck removed where measured."""
        a, b = match.seats[i].placement, match.seats[j].placement
        raw = 1.0 if a < b else 0.5 if a == b else 0.0
        luck = self._luck.get(match.id)
        if luck is None:
            return raw
        n = len(match.seats)
        return raw - (n - 1) / n * (luck[i] - luck[j])
