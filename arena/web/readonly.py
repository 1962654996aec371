"""The results database opened read-only: what the web pages read, and never change.

The tournament views (:mod:`arena.tournament.views`) take a :class:`Store`; when a
ranking's cached ratings are older than its matches they recompute them and write the
cache back.  The web app must never write (it may run beside ``arena run``, as another
user, on a copy, or on a file it may not change), so :class:`ReadOnlyStore` opens SQLite
with ``mode=ro`` (any write fails in SQLite itself) and keeps recomputed ratings in a
memory cache shared between requests instead.

It subclasses :class:`Store` to reuse every query, and so sets the few connection
attributes the store's own constructor would (that constructor creates and migrates).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from arena.tournament import store as store_module
from arena.tournament.store import Store, StoreError
from arena.tournament.views import ResultsError

__all__ = ["Played", "RatingsMemo", "ReadOnlyStore", "SeatRow", "running"]

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


class ReadOnlyStore(Store):
    """A :class:`Store` that cannot write: SQLite opened with ``mode=ro``; ratings the
    views recompute go to a :class:`RatingsMemo`."""

    def __init__(self, path: Path, memo: RatingsMemo | None = None) -> None:
        if not path.is_file():
            raise ResultsError(f"no results database at {path}: play a tournament first (`arena run`), or point "
                               "--db (or ARENA_DB) at one")
        self.path = path
        self._lock_fd = -1
        self._memo = memo or RatingsMemo()
        uri = f"file:{quote(str(path.resolve()))}?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True, timeout=10, isolation_level=None, factory=store_module._Connection)
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the results database {path} read-only: {error}") from None
        self._db = db
        db.path = path
        db.row_factory = sqlite3.Row
        try:
            self._check_ours()
            if self.schema_version != len(store_module.MIGRATIONS):
                raise StoreError(f"{path} has schema version {self.schema_version}, this arena reads version "
                                 f"{len(store_module.MIGRATIONS)}: run any other arena command on it once to "
                                 "upgrade it (the web pages never write)")
        except BaseException:
            db.close()
            raise

    def played(self) -> dict[str, Played]:
        """Every competition with stored matches (leagues record no tournament row)."""
        rows = self._db.execute("SELECT tournament, COUNT(*) AS n, MAX(finished) AS last FROM matches"
                                " GROUP BY tournament")
        return {r["tournament"]: Played(r["n"], r["last"]) for r in rows}

    def seats_of(self, versions: Sequence[int]) -> list[SeatRow]:
        """Every stored seat played by one of ``versions``, in schedule order."""
        marks = ", ".join("?" * len(versions))
        rows = self._db.execute(
            "SELECT s.*, m.tournament, m.variant FROM seats s JOIN matches m ON m.id = s.match"
            f" WHERE s.version IN ({marks}) ORDER BY m.tournament, m.seq, s.seat", tuple(versions))
        return [SeatRow(r["match"], r["tournament"], r["variant"], r["seat"], r["version"], r["placement"],
                        r["score"], r["faults"], r["decisions"], r["think_s"]) for r in rows]

    def faulted(self, tournament: str | None = None) -> list[tuple[str, list[dict[str, Any]]]]:
        """(match id, faults) of every stored match with a fault, in schedule order."""
        rows = self._db.execute("SELECT id, faults FROM matches WHERE faults != '[]' AND (? IS NULL OR"
                                " tournament = ?) ORDER BY tournament, seq", (tournament, tournament))
        return [(r["id"], json.loads(r["faults"])) for r in rows]

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


_HELD_PROBE: Final = struct.Struct("hhqqi4x")


def running(path: Path, tournament: str) -> bool:
    """Whether a process holds ``tournament``'s run lock on the database at ``path`` (an
    ``arena run``, ``league`` or ``test`` playing it now).  Asks the kernel who holds the
    lock byte :meth:`Store.hold` takes, without taking it."""
    offset = store_module._LOCKS_AT + int.from_bytes(hashlib.sha256(tournament.encode()).digest()[:4], "big")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        answer = fcntl.fcntl(fd, fcntl.F_OFD_GETLK, _HELD_PROBE.pack(fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0))
    except OSError:
        return False
    finally:
        os.close(fd)
    return bool(_HELD_PROBE.unpack(answer)[0] != fcntl.F_UNLCK)
