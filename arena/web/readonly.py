"""The results database opened read-only: what the web pages read, and never change.

The tournament views (:mod:`arena.tournament.views`) take a :class:`Store`; when a
ranking's cached ratings are older than its matches they recompute them and write the
cache back.  The web app must never write (it may run beside ``arena run``, as another
user, on a copy, or on a file it may not change), so :class:`ReadOnlyStore` opens SQLite
with ``mode=ro`` (any write fails in SQLite itself) and keeps recomputed ratings in a
memory cache shared between requests instead.

It is the :class:`Store` opened read-only, with the queries only the pages need.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.tournament.results import Results
from arena.tournament.store import MatchRecord, Store
from arena.tournament.views import ResultsError

__all__ = ["Played", "RatingsMemo", "ReadOnlyStore", "SeatRow", "Tally", "Wanted"]

Cached = tuple[dict[int, tuple[float, float, int]], int, tuple[float, float] | None]


class RatingsMemo:
    """Ratings recomputed by read-only stores, per scope, shared by every request of a
    server: each is valid while its scope's match count is unchanged (the views check)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scopes: dict[str, Cached] = {}

    def get(self, scope: str) -> Cached | None:
        with self._lock:
            return self._scopes.get(scope)

    def put(self, scope: str, cached: Cached) -> None:
        with self._lock:
            self._scopes[scope] = cached


@dataclass(frozen=True)
class Played:
    """What a competition has stored: its matches and when the last one finished."""

    matches: int
    last: float


@dataclass(frozen=True)
class SeatRow:
    """One seat of a stored match, with where the match belongs."""

    match: str
    tournament: str
    variant: str
    seat: int
    version: int
    placement: int
    score: float
    faults: int
    decisions: int
    think_s: float


@dataclass(frozen=True)
class Tally:
    """What one version scored in one competition and variant."""

    tournament: str
    variant: str
    version: int
    matches: int
    wins: int
    placements: int
    faults: int
    decisions: int


@dataclass(frozen=True)
class Wanted:
    """The match list's filters: a competition, a variant, a bot, and a result of the bot's
    (``won``: it placed first; ``lost``: it did not; ``faults``: it had faults; without a
    bot, of any seat)."""

    tournament: str | None = None
    variant: str | None = None
    bot: str | None = None
    result: str | None = None


class ReadOnlyStore(Store):
    """A :class:`Store` that cannot write: SQLite opened with ``mode=ro``; ratings the
    views recompute go to a :class:`RatingsMemo`."""

    def __init__(self, path: Path, memo: RatingsMemo | None = None) -> None:
        if not path.is_file():
            raise ResultsError(f"no results database at {path}: play a tournament first (`arena run`), or point "
                               "--db (or ARENA_DB) at one")
        super().__init__(path, read_only=True)
        self._memo = memo or RatingsMemo()
        self._results: dict[tuple[str | None, str | None, str | None], Results] = {}

    def results(self, tournament: str | None = None, variant: str | None = None, *,
                luck: str | None = None) -> Results:
        """As :meth:`Store.results`, read once per store: a page opens its own store and asks
        for a ranking's matches from several views (the table, the heat map, the history),
        which then all see the same matches."""
        key = (tournament, variant, luck)
        if key not in self._results:
            self._results[key] = super().results(tournament, variant, luck=luck)
        return self._results[key]

    def close(self) -> None:
        """Close the database, and let go of the matches read."""
        self._results.clear()
        super().close()

    def played(self) -> dict[str, Played]:
        """Every competition with stored matches (leagues record no tournament row)."""
        rows = self._db.execute("SELECT tournament, COUNT(*) AS n, MAX(finished) AS last FROM matches"
                                " GROUP BY tournament")
        return {r["tournament"]: Played(r["n"], r["last"]) for r in rows}

    def seats_of(self, versions: Sequence[int], newest: int | None = None) -> list[SeatRow]:
        """Every stored seat played by one of ``versions``, in schedule order; or the
        ``newest`` that finished last, newest first."""
        marks = ", ".join("?" * len(versions))
        order = "m.tournament, m.seq, s.seat" if newest is None else "m.finished DESC, m.rowid DESC, s.seat"
        rows = self._db.execute(
            "SELECT s.*, m.tournament, m.variant FROM seats s JOIN matches m ON m.id = s.match"
            f" WHERE s.version IN ({marks}) ORDER BY {order} LIMIT ?", (*versions, -1 if newest is None else newest))
        return [SeatRow(r["match"], r["tournament"], r["variant"], r["seat"], r["version"], r["placement"],
                        r["score"], r["faults"], r["decisions"], r["think_s"]) for r in rows]

    def tallies(self, versions: Sequence[int], only: Collection[str] | None = None) -> list[Tally]:
        """What ``versions`` scored, per competition (of ``only``) and variant, counted by SQLite."""
        marks = ", ".join("?" * len(versions))
        rows = self._db.execute(
            "SELECT m.tournament, m.variant, s.version, COUNT(*) AS n, SUM(s.placement = 1) AS wins,"
            " SUM(s.placement) AS placements, SUM(s.faults) AS faults, SUM(s.decisions) AS decisions"
            f" FROM seats s JOIN matches m ON m.id = s.match WHERE s.version IN ({marks})"
            " GROUP BY m.tournament, m.variant, s.version ORDER BY m.tournament, m.variant, s.version",
            tuple(versions))
        return [Tally(r["tournament"], r["variant"], r["version"], r["n"], r["wins"], r["placements"], r["faults"],
                      r["decisions"]) for r in rows if only is None or r["tournament"] in only]

    def thinking(self, versions: Sequence[int], only: Collection[str] | None = None) -> list[float]:
        """Mean seconds per decision of each stored seat of ``versions`` that decided."""
        marks = ", ".join("?" * len(versions))
        cursor = self._db.cursor()
        cursor.row_factory = None  # plain tuples: a ladder's bot has many seats
        rows = cursor.execute(
            "SELECT s.think_s / s.decisions, m.tournament FROM seats s JOIN matches m ON m.id = s.match"
            f" WHERE s.version IN ({marks}) AND s.decisions > 0", tuple(versions))
        return [mean for mean, tournament in rows if only is None or tournament in only]

    def faults_of(self, count: int, *, versions: Sequence[int] | None = None,
                  tournaments: Collection[str] | None = None,
                  variant: str | None = None) -> tuple[int, list[tuple[str, int, dict[str, Any]]]]:
        """How many faults the stored seats (of ``versions``, in ``tournaments`` and ``variant``)
        had, and those of the ``count`` faulty seats that finished last, newest first:
        (match id, version, fault)."""
        where = ["s.faults > 0", "(? IS NULL OR m.variant = ?)"]
        args: list[object] = [variant, variant]
        for column, values in (("s.version", versions), ("m.tournament", tournaments)):
            if values is not None:
                where.append(f"{column} IN ({', '.join('?' * len(values))})")
                args += [*values]
        clause = " AND ".join(where)
        total = self._db.execute(f"SELECT COALESCE(SUM(s.faults), 0) FROM seats s JOIN matches m ON m.id = s.match"
                                 f" WHERE {clause}", args).fetchone()[0]
        rows = self._db.execute(f"SELECT s.match, s.seat, s.version, m.faults FROM seats s JOIN matches m"
                                f" ON m.id = s.match WHERE {clause} ORDER BY m.finished DESC, m.rowid DESC, s.seat"
                                " LIMIT ?", [*args, count])
        return int(total), [(r["match"], r["version"], fault) for r in rows for fault in json.loads(r["faults"])
                            if fault.get("seat") == r["seat"]]

    def listed(self, wanted: Wanted, offset: int, count: int) -> tuple[int, list[MatchRecord]]:
        """How many stored matches ``wanted`` keeps, and ``count`` of them from ``offset``,
        the newest first (without their logs)."""
        mine = "SELECT 1 FROM seats s JOIN versions v ON v.id = s.version WHERE s.match = m.id"
        where, args = ["(? IS NULL OR m.tournament = ?)", "(? IS NULL OR m.variant = ?)"], \
            [wanted.tournament, wanted.tournament, wanted.variant, wanted.variant]
        if wanted.bot is not None:
            mine += " AND v.bot = ?"
        bot = [] if wanted.bot is None else [wanted.bot]
        if wanted.result == "won" or (wanted.result == "lost" and wanted.bot is not None):
            where.append(f"{'NOT ' if wanted.result == 'lost' else ''}EXISTS ({mine} AND s.placement = 1)")
            args += bot
        if wanted.result == "faults":
            where.append(f"EXISTS ({mine} AND s.faults > 0)")
            args += bot
        elif wanted.bot is not None:
            where.append(f"EXISTS ({mine})")
            args += bot
        clause = " AND ".join(where)
        total = self._db.execute(f"SELECT COUNT(*) FROM matches m WHERE {clause}", args).fetchone()[0]
        rows = self._db.execute(f"SELECT m.id FROM matches m WHERE {clause} ORDER BY m.finished DESC, m.rowid DESC"
                                " LIMIT ? OFFSET ?", [*args, count, offset]).fetchall()
        return int(total), [self.match(r["id"], with_log=False) for r in rows]

    def hashed_match_ids(self) -> list[str]:
        """The ids that pages name by a hash (:func:`arena.web.site.slug`: not plainly safe as
        a path segment), found by SQLite alone: normally none, and a made-up hashed address
        must not make the server hash every id of a ladder."""
        return [r[0] for r in self._db.execute(
            "SELECT id FROM matches WHERE id GLOB '*[^A-Za-z0-9_.-]*' OR id GLOB '[^A-Za-z0-9]*' OR id = ''"
            " OR length(id) > 128 OR instr(CAST(id AS BLOB), x'00') > 0")]

    def save_ratings(self, scope: str, ratings: dict[int, tuple[float, float, int]], matches: int,
                     environment: tuple[float, float] | None = None) -> None:
        """Keep recomputed ratings in memory (the database is not written)."""
        self._memo.put(scope, (dict(ratings), matches, environment))

    def cached_ratings(self, scope: str) -> tuple[dict[int, tuple[float, float, int]], int] | None:
        """The memory cache's ratings where they cover more matches than the database's."""
        newer = self._newer(scope)
        return super().cached_ratings(scope) if newer is None else (newer[0], newer[1])

    def cached_environment(self, scope: str) -> tuple[float, float] | None:
        """The environment that goes with :meth:`cached_ratings`."""
        newer = self._newer(scope)
        return super().cached_environment(scope) if newer is None else newer[2]

    def _newer(self, scope: str) -> Cached | None:
        memo = self._memo.get(scope)
        if memo is None:
            return None
        stored = super().cached_ratings(scope)
        return memo if stored is None or memo[1] > stored[1] else None
