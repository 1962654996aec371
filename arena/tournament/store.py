"""The results store: SQLite (WAL) holding bots, tournaments, matches and their logs.

One writer (the tournament runner's main process) commits each finished match in one
transaction, so a crash loses at most the matches still being played, never half of one.
Ratings are derived from the stored matches (:mod:`arena.tournament.ratings`) and cached
here; the matches are the truth.  The schema is versioned (``PRAGMA user_version``) and
upgraded by the migrations in :data:`MIGRATIONS`, oldest first.

Longer than most modules: the schema, its migrations and every query of the results are
kept in one file, so that their SQL can be read (and checked against the schema) at once.
The host's own tables (accounts, sessions, owners, submissions, uploads, audit: migration 5) are
created here, with the one schema version, and queried by :mod:`arena.host.ledger`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import sqlite3
import struct
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Self
from urllib.parse import quote

from arena.deals import deal_key
from arena.errors import ArenaError
from arena.tournament.results import Gathered, Results

__all__ = [
    "DEFAULT_DB",
    "MatchRecord",
    "Results",
    "SeatRecord",
    "Store",
    "HeldError",
    "StoreError",
    "TIMEOUT_ENV",
    "VersionRow",
]

DEFAULT_DB: Final = Path("results") / "arena.db"
TIMEOUT_ENV: Final = "ARENA_DB_TIMEOUT"
"""Seconds to wait for a database another process holds locked (default 10) before
giving up with a :class:`StoreError`."""

MIGRATIONS: Final = (
    # 1: the first schema
    """
    CREATE TABLE versions (
        id INTEGER PRIMARY KEY,
        bot TEXT NOT NULL,
        hash TEXT NOT NULL,
        label TEXT NOT NULL,
        path TEXT,
        manifest TEXT NOT NULL,
        created REAL NOT NULL,
        withdrawn REAL,
        UNIQUE (bot, hash)
    );
    CREATE TABLE tournaments (
        name TEXT PRIMARY KEY,
        spec TEXT NOT NULL,
        created REAL NOT NULL,
        updated REAL NOT NULL
    );
    CREATE TABLE entries (
        tournament TEXT NOT NULL,
        bot TEXT NOT NULL,
        created REAL NOT NULL,
        PRIMARY KEY (tournament, bot)
    );
    CREATE TABLE matches (
        id TEXT PRIMARY KEY,
        tournament TEXT NOT NULL,
        seq INTEGER NOT NULL,
        variant TEXT NOT NULL,
        players INTEGER NOT NULL,
        options TEXT NOT NULL,
        seed INTEGER NOT NULL,
        reason TEXT NOT NULL,
        rounds INTEGER NOT NULL,
        decisions INTEGER NOT NULL,
        faults TEXT NOT NULL,
        sandbox TEXT NOT NULL,
        duration REAL NOT NULL,
        finished REAL NOT NULL,
        log BLOB NOT NULL
    );
    CREATE INDEX matches_by_tournament ON matches (tournament, seq);
    CREATE TABLE seats (
        match TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        version INTEGER NOT NULL REFERENCES versions (id),
        placement INTEGER NOT NULL,
        score REAL NOT NULL,
        faults INTEGER NOT NULL,
        decisions INTEGER NOT NULL,
        think_s REAL NOT NULL,
        PRIMARY KEY (match, seat)
    );
    CREATE INDEX seats_by_version ON seats (version);
    CREATE TABLE ratings (
        scope TEXT NOT NULL,
        version INTEGER NOT NULL REFERENCES versions (id),
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        matches INTEGER NOT NULL,
        PRIMARY KEY (scope, version)
    );
    CREATE TABLE rated (
        scope TEXT PRIMARY KEY,
        matches INTEGER NOT NULL
    );
    """,
    # 2: ratings are rated without dynamics (tau = 0): drop those cached with the old one
    """
    DELETE FROM ratings;
    DELETE FROM rated;
    """,
    # 3: deals come from a secret key per tournament; a match records which deal it played
    """
    CREATE TABLE deal_keys (
        tournament TEXT PRIMARY KEY,
        key BLOB NOT NULL,
        created REAL NOT NULL
    );
    ALTER TABLE matches ADD COLUMN deal INTEGER;
    """,
    # 4: each ranking's TrueSkill environment is fitted to its own matches and cached with it
    """
    ALTER TABLE rated ADD COLUMN beta REAL;
    ALTER TABLE rated ADD COLUMN draw REAL;
    DELETE FROM ratings;
    DELETE FROM rated;
    """,
    # 5: the host's tables (arena host): accounts, their sessions, the bots they own, the
    # submissions queue and the audit log; queried by arena/host/ledger.py
    """
    CREATE TABLE accounts (
        name TEXT PRIMARY KEY,
        folded TEXT NOT NULL UNIQUE,
        operator INTEGER NOT NULL DEFAULT 0,
        token_id TEXT UNIQUE,
        token_salt BLOB,
        token_hash BLOB,
        created REAL NOT NULL,
        disabled REAL,
        failures INTEGER NOT NULL DEFAULT 0,
        locked_until REAL NOT NULL DEFAULT 0
    );
    CREATE TABLE sessions (
        id_hash BLOB PRIMARY KEY,
        account TEXT NOT NULL REFERENCES accounts (name),
        csrf TEXT NOT NULL,
        created REAL NOT NULL,
        expires REAL NOT NULL
    );
    CREATE TABLE owners (
        folded TEXT PRIMARY KEY,
        bot TEXT NOT NULL,
        account TEXT NOT NULL REFERENCES accounts (name),
        created REAL NOT NULL,
        disabled REAL
    );
    CREATE TABLE submissions (
        id INTEGER PRIMARY KEY,
        account TEXT NOT NULL REFERENCES accounts (name),
        address TEXT NOT NULL,
        tournament TEXT,
        status TEXT NOT NULL,
        bot TEXT,
        version INTEGER REFERENCES versions (id),
        reason TEXT,
        log TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX submissions_by_status ON submissions (status, id);
    CREATE INDEX submissions_by_account ON submissions (account, created);
    CREATE INDEX submissions_by_address ON submissions (address, created);
    CREATE TABLE uploads (
        submission INTEGER PRIMARY KEY REFERENCES submissions (id),
        archive BLOB NOT NULL
    );
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT NOT NULL,
        address TEXT NOT NULL DEFAULT '',
        detail TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX audit_by_action ON audit (action, address, at);
    """,
    # 6: a competition's key is published once its final is played (anyone may deal it again)
    """
    ALTER TABLE deal_keys ADD COLUMN published REAL;
    """,
    # 7: each seat's luck (arena.luck), measured by the estimate the match names
    """
    ALTER TABLE matches ADD COLUMN luck_version TEXT;
    ALTER TABLE seats ADD COLUMN luck REAL;
    """,
)


APPLICATION_ID: Final = 0x33314152
"""``PRAGMA application_id`` of an arena results database ("31AR")."""
_LOCKS_AT: Final = 1 << 40
"""Byte offset of the tournament locks in the database file: far beyond SQLite's own lock
bytes (at 1 GiB) and any real database's size; the locks lock bytes, not data."""


class StoreError(ArenaError, ValueError):
    """The database cannot be used: locked, full, corrupt, not a results database, or from
    a newer arena."""


class HeldError(StoreError):
    """A tournament is being run by another process (:meth:`Store.hold`)."""


class _Cursor(sqlite3.Cursor):
    """A cursor whose every failure is a :class:`StoreError` that says what to do."""

    path: Path

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as error:
            raise _store_error(error, self.path) from None

    def executemany(self, sql: str, parameters: Any, /) -> _Cursor:
        try:
            return super().executemany(sql, parameters)
        except sqlite3.Error as error:
            raise _store_error(error, self.path) from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as error:
            raise _store_error(error, self.path) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as error:
            raise _store_error(error, self.path) from None

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as error:
            raise _store_error(error, self.path) from None


class _Connection(sqlite3.Connection):
    """A connection whose cursors raise :class:`StoreError` (a damaged page, a full disk,
    a lock held too long) wherever a query fails, not only in transactions."""

    path: Path

    def cursor(self, factory: Any = None) -> _Cursor:  # type: ignore[override]
        cursor = super().cursor(_Cursor)
        cursor.path = self.path
        return cursor

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> _Cursor:
        return self.cursor().executemany(sql, parameters)


@dataclass(frozen=True)
class VersionRow:
    """One registered version of a bot."""

    id: int
    bot: str
    hash: str
    label: str
    """``name@manifest-version``, as the referee reports the bot."""
    path: str | None
    """The immutable copy the arena runs (``None`` for an installed package's bot)."""
    manifest: dict[str, Any]
    created: float
    withdrawn: float | None

    @property
    def short(self) -> str:
        """``name:hash8``: how tables and ids name a version."""
        return f"{self.bot}:{self.hash[:8]}"


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat's result in a finished match."""

    version: int
    placement: int
    score: float
    faults: int = 0
    decisions: int = 0
    think_s: float = 0.0


@dataclass(frozen=True)
class MatchRecord:
    """A finished match as stored: what was played, by whom, how it ended, and its log."""

    id: str
    tournament: str
    seq: int
    """Position in the tournament's schedule: ratings are computed in this order, so a
    resumed run rates exactly like an uninterrupted one."""
    variant: str
    options: dict[str, Any]
    seed: int
    seats: tuple[SeatRecord, ...]
    reason: str
    rounds: int
    decisions: int
    faults: list[dict[str, Any]] = field(default_factory=list)
    sandbox: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    finished: float = 0.0
    log: bytes = b""
    """The full event log, zlib-compressed JSON (see :func:`compress_log`)."""
    deal: int | None = None
    """Which deal of its tournament it played (dealt from the tournament's secret key; then
    ``seed`` is 0); None for a match dealt from a public seed."""

    @property
    def placements(self) -> tuple[int, ...]:
        """Placement per seat."""
        return tuple(s.placement for s in self.seats)


_NO_LOG: Final = ("id, tournament, seq, variant, players, options, seed, reason, rounds, decisions, faults,"
                  " sandbox, duration, finished, x'' AS log, deal")
"""A match's columns, its log left out."""


class Store:
    """A connection to the results database; create it, upgrade it, read and write it."""

    def __init__(self, path: Path | str = DEFAULT_DB, *, timeout_s: float | None = None,
                 read_only: bool = False) -> None:
        """Open (creating and upgrading) the database at ``path``; ``read_only``: open an
        existing, current one that nothing through this store can change (SQLite's
        ``mode=ro``), for readers that may run beside a writer or on a file they may not change."""
        self.path = Path(path)
        self.read_only = read_only
        if timeout_s is None:
            timeout_s = _timeout_from_environment()
        existed = _check_file(self.path)
        self._lock_fd = -1
        try:
            if read_only:
                uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
                db = sqlite3.connect(uri, uri=True, timeout=timeout_s, isolation_level=None, factory=_Connection)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None, factory=_Connection)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot open the results database {self.path}{' read-only' if read_only else ''}: "
                             f"{error}") from None
        self._db: _Connection = db
        self._db.path = self.path
        self._db.row_factory = sqlite3.Row
        try:
            if existed:
                self._check_ours()
            if read_only:
                if self.schema_version != len(MIGRATIONS):
                    raise StoreError(f"{self.path} has schema version {self.schema_version}, this arena reads "
                                     f"version {len(MIGRATIONS)}: run any other arena command on it once to "
                                     "upgrade it")
                return
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable at each checkpoint, 6x faster
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        """Close the connection (finished transactions are already on disk)."""
        self._db.close()
        if self._lock_fd >= 0:  # only now: closing any descriptor of the file drops SQLite's locks
            os.close(self._lock_fd)
            self._lock_fd = -1

    def _check_ours(self) -> None:
        """StoreError unless the database is the arena's (its application id, or the tables of
        an arena from before it set one)."""
        application = self._db.execute("PRAGMA application_id").fetchone()[0]
        if application == APPLICATION_ID:
            return
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if application == 0 and {"versions", "matches", "seats"} <= tables:
            return  # written by an arena from before application ids
        raise StoreError(f"{self.path} is an SQLite database of another program, not a results database: give "
                         "another --db (a new file is created)")

    @contextlib.contextmanager
    def hold(self, name: str) -> Iterator[None]:
        """Hold the lock of ``name`` (a tournament) for the block; :class:`HeldError` if
        another process holds it.

        The lock is on the database file itself (an open-file-description lock on a byte of
        its own, chosen by the name), so it holds whatever path, link or hard link leads to
        the file: a lock file beside the path given would not."""
        if self._lock_fd < 0:
            self._lock_fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
        offset = _lock_offset(name)
        try:
            fcntl.fcntl(self._lock_fd, fcntl.F_OFD_SETLK, _flock(fcntl.F_WRLCK, offset))
        except (BlockingIOError, PermissionError):
            raise HeldError(f"{name!r} is already running on {self.path.resolve()}") from None
        try:
            yield
        finally:
            fcntl.fcntl(self._lock_fd, fcntl.F_OFD_SETLK, _flock(fcntl.F_UNLCK, offset))

    def held(self, name: str) -> bool:
        """Whether a process holds the lock of ``name`` (an ``arena run``, ``league`` or
        ``test`` playing it now), asked of the kernel without taking it."""
        try:
            answer = fcntl.fcntl(_descriptor(self.path), fcntl.F_OFD_GETLK, _flock(fcntl.F_WRLCK, _lock_offset(name)))
        except OSError:
            return False
        return bool(struct.unpack("hhqqi4x", answer)[0] != fcntl.F_UNLCK)

    def check(self) -> None:
        """StoreError if the database is damaged (SQLite's quick check of every page)."""
        problems = [r[0] for r in self._db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise _damaged(self.path, "; ".join(problems[:3]))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The schema version this database is at."""
        version: int = self._db.execute("PRAGMA user_version").fetchone()[0]
        return version

    def _migrate(self) -> None:
        current = self.schema_version
        if current > len(MIGRATIONS):
            raise StoreError(
                f"{self.path} has schema version {current}; this arena knows up to {len(MIGRATIONS)}: upgrade the arena"
            )
        for number in range(current, len(MIGRATIONS)):
            with self._transaction():
                for statement in _statements(MIGRATIONS[number]):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {number + 1}")
        if self._db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db, self.path)

    # -- bots and versions ------------------------------------------------------------

    def register(self, bot: str, hash_: str, label: str, path: str | None, manifest: dict[str, Any]) -> VersionRow:
        """The version of ``bot`` with content ``hash_``, added if new (a withdrawn one comes back)."""
        with self._transaction():
            self._db.execute(
                "INSERT INTO versions (bot, hash, label, path, manifest, created) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (bot, hash) DO UPDATE SET withdrawn = NULL",
                (bot, hash_, label, path, json.dumps(manifest), time.time()),
            )
        row = self._db.execute("SELECT * FROM versions WHERE bot = ? AND hash = ?", (bot, hash_)).fetchone()
        return _version(row)

    def versions(self, bot: str | None = None, *, withdrawn: bool = False) -> list[VersionRow]:
        """Registered versions, oldest first; withdrawn ones only if asked."""
        sql = "SELECT * FROM versions WHERE (? IS NULL OR bot = ?)"
        if not withdrawn:
            sql += " AND withdrawn IS NULL"
        return [_version(r) for r in self._db.execute(sql + " ORDER BY bot, id", (bot, bot))]

    def version(self, version_id: int) -> VersionRow:
        """One version by its id."""
        row = self._db.execute("SELECT * FROM versions WHERE id = ?", (version_id,)).fetchone()
        if row is None:
            raise StoreError(f"no bot version with id {version_id}")
        return _version(row)

    def latest(self, bot: str) -> VersionRow | None:
        """The newest version of ``bot`` that is not withdrawn."""
        row = self._db.execute(
            "SELECT * FROM versions WHERE bot = ? AND withdrawn IS NULL ORDER BY id DESC LIMIT 1", (bot,)
        ).fetchone()
        return _version(row) if row else None

    def withdraw(self, bot: str, hash_prefix: str | None = None) -> list[VersionRow]:
        """Withdraw every version of ``bot`` (or those whose hash starts with ``hash_prefix``)
        and its tournament entries; their results stay.  Returns what was withdrawn."""
        chosen = [v for v in self.versions(bot) if hash_prefix is None or v.hash.startswith(hash_prefix)]
        with self._transaction():
            for v in chosen:
                self._db.execute("UPDATE versions SET withdrawn = ? WHERE id = ?", (time.time(), v.id))
            if hash_prefix is None or not self.versions(bot):
                self._db.execute("DELETE FROM entries WHERE bot = ?", (bot,))
        return chosen

    # -- tournaments ------------------------------------------------------------------

    def save_tournament(self, name: str, spec: dict[str, Any]) -> None:
        """Record (or update) a tournament's resolved spec."""
        now = time.time()
        with self._transaction():
            self._db.execute(
                "INSERT INTO tournaments (name, spec, created, updated) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, updated = excluded.updated",
                (name, json.dumps(spec), now, now),
            )

    def tournament_spec(self, name: str) -> dict[str, Any] | None:
        """The spec recorded by the tournament's last run, None if it never ran here."""
        row = self._db.execute("SELECT spec FROM tournaments WHERE name = ?", (name,)).fetchone()
        return None if row is None else dict(json.loads(row["spec"]))

    def tournaments(self) -> list[tuple[str, int, float]]:
        """(name, matches stored, last update) of every tournament, most recent first."""
        rows = self._db.execute(
            "SELECT t.name, (SELECT COUNT(*) FROM matches m WHERE m.tournament = t.name) AS n,"
            " MAX(t.updated, COALESCE((SELECT MAX(finished) FROM matches m WHERE m.tournament = t.name), 0)) AS u"
            " FROM tournaments t ORDER BY u DESC, t.name"
        )
        return [(r["name"], r["n"], r["u"]) for r in rows]

    def enter(self, tournament: str, bot: str) -> bool:
        """Enter ``bot`` in ``tournament``; False if it already was."""
        with self._transaction():
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO entries (tournament, bot, created) VALUES (?, ?, ?)",
                (tournament, bot, time.time()),
            )
        return cursor.rowcount == 1

    def recent_faults(self, tournament: str, version: int, last: int) -> tuple[int, int]:
        """Of ``version``'s last ``last`` matches in ``tournament``: how many it faulted in,
        and how many there were."""
        rows = self._db.execute(
            "SELECT s.faults FROM seats s JOIN matches m ON m.id = s.match WHERE m.tournament = ? AND s.version = ?"
            " ORDER BY m.seq DESC LIMIT ?", (tournament, version, last)).fetchall()
        return sum(1 for r in rows if r["faults"] > 0), len(rows)

    def entries(self, tournament: str) -> list[str]:
        """Bots entered in ``tournament`` with ``arena submit``, in entry order."""
        rows = self._db.execute("SELECT bot FROM entries WHERE tournament = ? ORDER BY created, bot", (tournament,))
        return [r["bot"] for r in rows]

    # -- deal keys --------------------------------------------------------------------

    def publish_key(self, tournament: str) -> None:
        """Mark ``tournament``'s key as public: its pages show it from now on."""
        with self._transaction():
            self._db.execute("UPDATE deal_keys SET published = ? WHERE tournament = ? AND published IS NULL",
                             (time.time(), tournament))

    def published_key(self, tournament: str) -> bytes | None:
        """``tournament``'s key if it has been published (:meth:`publish_key`), else None."""
        row = self._db.execute("SELECT key FROM deal_keys WHERE tournament = ? AND published IS NOT NULL",
                               (tournament,)).fetchone()
        return None if row is None else bytes(row["key"])

    def deal_key(self, tournament: str) -> bytes | None:
        """The secret key ``tournament`` deals from, None before its first run."""
        row = self._db.execute("SELECT key FROM deal_keys WHERE tournament = ?", (tournament,)).fetchone()
        return None if row is None else bytes(row["key"])

    def match_seed(self, match: MatchRecord) -> int | bytes | None:
        """What dealt ``match``: its deal's key (from the tournament's key), or its public
        seed; None when the tournament's key is not in this database."""
        if match.deal is None:
            return match.seed
        key = self.deal_key(match.tournament)
        return None if key is None else deal_key(key, match.variant, len(match.seats), match.deal)

    def save_deal_key(self, tournament: str, key: bytes) -> None:
        """Record the key ``tournament`` deals from (once: a tournament keeps its key)."""
        with self._transaction():
            self._db.execute("INSERT INTO deal_keys (tournament, key, created) VALUES (?, ?, ?)",
                             (tournament, key, time.time()))

    # -- matches ----------------------------------------------------------------------

    def finished_ids(self, tournament: str) -> set[str]:
        """Ids of the tournament's stored matches: a resumed run skips them."""
        return {r[0] for r in self._db.execute("SELECT id FROM matches WHERE tournament = ?", (tournament,))}

    def next_seq(self, tournament: str) -> int:
        """One past the highest ``seq`` stored for ``tournament`` (leagues number as they go)."""
        row = self._db.execute("SELECT MAX(seq) FROM matches WHERE tournament = ?", (tournament,)).fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def record(self, match: MatchRecord) -> bool:
        """Store a finished match and its seats in one transaction; False if it was already
        stored (a match is never counted twice)."""
        with self._transaction():
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO matches (id, tournament, seq, variant, players, options, seed, reason,"
                " rounds, decisions, faults, sandbox, duration, finished, log, deal)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (match.id, match.tournament, match.seq, match.variant, len(match.seats), json.dumps(match.options),
                 match.seed, match.reason, match.rounds, match.decisions, json.dumps(match.faults),
                 json.dumps(match.sandbox), match.duration_s, match.finished or time.time(), match.log, match.deal),
            )
            if cursor.rowcount == 0:
                return False
            self._db.executemany(
                "INSERT INTO seats (match, seat, version, placement, score, faults, decisions, think_s)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(match.id, i, s.version, s.placement, s.score, s.faults, s.decisions, s.think_s)
                 for i, s in enumerate(match.seats)],
            )
        return True

    def matches(self, tournament: str | None = None, variant: str | None = None, *,
                with_log: bool = False) -> Iterator[MatchRecord]:
        """Stored matches in rating order (tournament, then schedule position)."""
        columns = "*" if with_log else _NO_LOG
        rows = self._db.execute(
            f"SELECT {columns} FROM matches WHERE (? IS NULL OR tournament = ?) AND (? IS NULL OR variant = ?)"
            " ORDER BY tournament, seq, rowid",
            (tournament, tournament, variant, variant),
        ).fetchall()
        seats: dict[str, list[SeatRecord]] = {}
        for s in self._db.execute(
            "SELECT s.* FROM seats s JOIN matches m ON m.id = s.match WHERE (? IS NULL OR m.tournament = ?)"
            " AND (? IS NULL OR m.variant = ?) ORDER BY s.match, s.seat",
            (tournament, tournament, variant, variant),
        ):
            seats.setdefault(s["match"], []).append(
                SeatRecord(s["version"], s["placement"], s["score"], s["faults"], s["decisions"], s["think_s"])
            )
        for r in rows:
            yield _match(r, tuple(seats.get(r["id"], ())))

    def results(self, tournament: str | None = None, variant: str | None = None, *,
                luck: str | None = None) -> Results:
        """The stored matches as rankings read them (:class:`Results`), in rating order, in
        one query: a fraction of the time and memory of :meth:`matches`.  With ``luck`` (an
        estimate's version), each seat's luck by that estimate, NaN where not measured."""
        cursor = self._db.cursor()
        cursor.row_factory = None  # plain tuples: a ladder has many
        rows = cursor.execute(
            "SELECT m.id, m.variant, m.deal, s.version, s.placement, s.faults,"
            " CASE WHEN m.luck_version = ? THEN s.luck END"
            " FROM matches m JOIN seats s ON s.match = m.id WHERE (? IS NULL OR m.tournament = ?)"
            " AND (? IS NULL OR m.variant = ?) ORDER BY m.tournament, m.seq, m.rowid, s.seat",
            (luck, tournament, tournament, variant, variant),
        )
        gathered = Gathered(luck=luck is not None)
        current = None
        for match_id, played, deal, version, placement, faults, seat_luck in rows:
            if match_id != current:
                current = match_id
                gathered.match(played, deal)
            gathered.seat(version, placement, faults, math.nan if seat_luck is None else seat_luck)
        return gathered.results()

    def unmeasured(self, tournament: str, version: str, variant: str | None = None) -> list[str]:
        """The ids of the matches of ``tournament`` whose luck the estimate ``version`` has
        not measured yet, in the order they were played."""
        return [r[0] for r in self._db.execute(
            "SELECT id FROM matches WHERE tournament = ? AND (? IS NULL OR variant = ?)"
            " AND luck_version IS NOT ? ORDER BY seq, rowid", (tournament, variant, variant, version))]

    def save_luck(self, measured: Sequence[tuple[str, str, Sequence[float] | None]]) -> None:
        """Record each ``(match id, estimate version, luck per seat or None)``: None marks a
        match the estimate cannot measure, so that it is not tried again."""
        with self._transaction():
            for match_id, version, luck in measured:
                self._db.execute("UPDATE matches SET luck_version = ? WHERE id = ?", (version, match_id))
                self._db.execute("UPDATE seats SET luck = NULL WHERE match = ?", (match_id,))
                for seat, value in enumerate(luck or ()):
                    self._db.execute("UPDATE seats SET luck = ? WHERE match = ? AND seat = ?",
                                     (value, match_id, seat))

    def luck(self, tournament: str, version: str) -> dict[str, tuple[float, ...] | None]:
        """Each match's luck per seat by the estimate ``version`` (None: not measurable);
        matches it has not measured are left out."""
        found: dict[str, list[float | None]] = {}
        for match_id, luck in self._db.execute(
                "SELECT m.id, s.luck FROM matches m JOIN seats s ON s.match = m.id"
                " WHERE m.tournament = ? AND m.luck_version = ? ORDER BY m.id, s.seat", (tournament, version)):
            found.setdefault(match_id, []).append(luck)
        return {k: None if any(x is None for x in v) else tuple(float(x) for x in v if x is not None)
                for k, v in found.items()}

    def variants(self, tournament: str | None = None) -> list[str]:
        """The variants with stored matches (in ``tournament``), sorted."""
        return [r[0] for r in self._db.execute(
            "SELECT DISTINCT variant FROM matches WHERE (? IS NULL OR tournament = ?) ORDER BY variant",
            (tournament, tournament))]

    def match(self, match_id: str, *, with_log: bool = True) -> MatchRecord:
        """One match (with its log); StoreError naming close ids if there is none."""
        row = self._db.execute(f"SELECT {'*' if with_log else _NO_LOG} FROM matches WHERE id = ?",
                               (match_id,)).fetchone()
        if row is None:
            close = [r[0] for r in self._db.execute(
                "SELECT id FROM matches WHERE id LIKE ? ORDER BY id LIMIT 5", (f"%{match_id}%",))]
            hint = f"; did you mean {', '.join(close)}?" if close else "; `arena export` lists the stored matches"
            raise StoreError(f"no match {match_id!r} in {self.path}{hint}")
        seats = tuple(
            SeatRecord(s["version"], s["placement"], s["score"], s["faults"], s["decisions"], s["think_s"])
            for s in self._db.execute("SELECT * FROM seats WHERE match = ? ORDER BY seat", (match_id,))
        )
        return _match(row, seats)

    def count(self, tournament: str | None = None, variant: str | None = None) -> int:
        """How many matches are stored (for a tournament, a variant)."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM matches WHERE (? IS NULL OR tournament = ?) AND (? IS NULL OR variant = ?)",
            (tournament, tournament, variant, variant),
        ).fetchone()
        return int(row[0])

    # -- the ratings cache -------------------------------------------------------------

    def save_ratings(self, scope: str, ratings: dict[int, tuple[float, float, int]], matches: int,
                     environment: tuple[float, float] | None = None) -> None:
        """Replace the cached ratings of ``scope`` (version -> (mu, sigma, matches rated)) and
        the (beta, draw probability) they were rated with."""
        with self._transaction():
            self._db.execute("DELETE FROM ratings WHERE scope = ?", (scope,))
            self._db.executemany(
                "INSERT INTO ratings (scope, version, mu, sigma, matches) VALUES (?, ?, ?, ?, ?)",
                [(scope, v, mu, sigma, n) for v, (mu, sigma, n) in ratings.items()],
            )
            self._db.execute(
                "INSERT INTO rated (scope, matches, beta, draw) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (scope) DO UPDATE SET matches = excluded.matches, beta = excluded.beta,"
                " draw = excluded.draw", (scope, matches, *(environment or (None, None)))
            )

    def cached_ratings(self, scope: str) -> tuple[dict[int, tuple[float, float, int]], int] | None:
        """The cached ratings of ``scope`` and how many matches they cover, if any."""
        row = self._db.execute("SELECT matches FROM rated WHERE scope = ?", (scope,)).fetchone()
        if row is None:
            return None
        ratings = {r["version"]: (r["mu"], r["sigma"], r["matches"])
                   for r in self._db.execute("SELECT * FROM ratings WHERE scope = ?", (scope,))}
        return ratings, int(row["matches"])

    def cached_environment(self, scope: str) -> tuple[float, float] | None:
        """The (beta, draw probability) the cached ratings of ``scope`` were rated with."""
        row = self._db.execute("SELECT beta, draw FROM rated WHERE scope = ?", (scope,)).fetchone()
        if row is None or row["beta"] is None:
            return None
        return float(row["beta"]), float(row["draw"])


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; errors become :class:`StoreError` that say what to do."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db = db
        self._path = path

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")  # a StoreError if it cannot begin

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: object) -> None:
        if kind is None:
            try:
                self._db.execute("COMMIT")
                return
            except StoreError:
                self._rollback()
                raise
        self._rollback()
        if isinstance(error, sqlite3.Error):
            raise _store_error(error, self._path) from None

    def _rollback(self) -> None:
        """Undo the transaction, unless SQLite already did (it does on a full disk)."""
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error, StoreError):  # the error that led here is the one to report
                self._db.execute("ROLLBACK")


def _timeout_from_environment() -> float:
    value = os.environ.get(TIMEOUT_ENV, "10")
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise StoreError(f"{TIMEOUT_ENV}={value!r}: give the seconds to wait for a locked database, e.g. 10")
    return seconds


def _store_error(error: sqlite3.Error, path: Path) -> StoreError:
    text = str(error)
    if "locked" in text or "busy" in text:
        return StoreError(f"the results database {path} is locked by another process ({text}); try again")
    if "full" in text:
        return StoreError(f"the disk holding {path} is full ({text}); free space, then run again to resume")
    if isinstance(error, sqlite3.DatabaseError) and ("malformed" in text or "not a database" in text
                                                     or "corrupt" in text):
        return _damaged(path, text)
    return StoreError(f"the results database {path} failed: {text}")


def _damaged(path: Path, what: str) -> StoreError:
    return StoreError(f"the results database {path} is damaged ({what}): restore it from a backup, or save what "
                      f"it still holds with `sqlite3 {path} .recover | sqlite3 recovered.db`, or give another --db")


_HEADERS: Final[dict[tuple[int, int], int]] = {}
"""A descriptor of each database file this process has checked, by device and inode,
kept open for the process's life.  Closing *any* descriptor of a file drops every POSIX
lock the process holds on it, SQLite's included: a header read with ``open()`` and
``close()`` while another connection of the same process (a thread of ``arena host``)
is in a transaction would take that connection's locks away from under it."""


def _descriptor(path: Path) -> int:
    """A read-only descriptor of the file at ``path``, opened once and never closed."""
    info = os.stat(path)
    key = (info.st_dev, info.st_ino)
    fd = _HEADERS.get(key)
    if fd is None:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        if os.fstat(fd).st_ino != info.st_ino:  # replaced between the stat and the open: ask again
            os.close(fd)  # another file's descriptor: no lock of ours is on it
            return _descriptor(path)
        fd = _HEADERS.setdefault(key, fd)
    return fd


def _header(path: Path) -> bytes:
    """The first 16 bytes of ``path``, read without closing a descriptor of it."""
    return os.pread(_descriptor(path), 16, 0)


def _check_file(path: Path) -> bool:
    """Whether ``path`` exists; StoreError if it is there but cannot be a results database."""
    try:
        header = _header(path)
    except FileNotFoundError:
        return False
    except IsADirectoryError:
        raise StoreError(f"{path} is a folder; --db names the results database file") from None
    except OSError as error:
        raise StoreError(f"cannot read the results database {path}: {error.strerror}") from None
    if not header:
        raise StoreError(f"{path} is an empty file, not a results database: remove it, or give another --db "
                         "(a new database is created where no file is)")
    if header != b"SQLite format 3\0":
        raise StoreError(f"{path} is not a results database (not an SQLite file): give another --db")
    return True


def _lock_offset(name: str) -> int:
    """The byte of the database file whose lock is ``name``'s (:meth:`Store.hold`)."""
    return _LOCKS_AT + int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big")


def _flock(kind: int, offset: int) -> bytes:
    """A ``struct flock`` for one byte at ``offset`` (its pid is 0, as OFD locks need)."""
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, offset, 1, 0)


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def _version(row: sqlite3.Row) -> VersionRow:
    return VersionRow(row["id"], row["bot"], row["hash"], row["label"], row["path"], json.loads(row["manifest"]),
                      row["created"], row["withdrawn"])


def _match(row: sqlite3.Row, seats: tuple[SeatRecord, ...]) -> MatchRecord:
    return MatchRecord(
        id=row["id"], tournament=row["tournament"], seq=row["seq"], variant=row["variant"],
        options=json.loads(row["options"]), seed=row["seed"], seats=seats, reason=row["reason"],
        rounds=row["rounds"], decisions=row["decisions"], faults=json.loads(row["faults"]),
        sandbox=json.loads(row["sandbox"]), duration_s=row["duration"], finished=row["finished"],
        log=bytes(row["log"]), deal=row["deal"],
    )
