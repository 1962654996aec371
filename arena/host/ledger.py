"""The host's ledger: accounts and their tokens, browser sessions, who owns which bot name,
the submissions queue and the audit log, in the results database (migration 5).

The results' SQL stays in :mod:`arena.tournament.store`; the host's is here.  Every write
is one ``BEGIN IMMEDIATE`` transaction, so a check and the write it allows (a free
submission slot, an unclaimed name, a queued submission) cannot be split by another
process.  A token is stored only as its scrypt hash: a copy of the database does not let
anyone submit.  Every method that depends on the time takes ``now``, for tests.

One :class:`Ledger` per thread (SQLite connections stay in the thread that opened them).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Self

from arena.botspec import folded
from arena.errors import ArenaError
from arena.text import printable

# the store's connection, transaction and lock wait: one behaviour for every writer of the file
from arena.tournament.store import Store, StoreError, _Connection, _timeout_from_environment, _Transaction

__all__ = [
    "Account",
    "AuditEntry",
    "DAY_S",
    "FloodError",
    "HOST_ACTOR",
    "SIGNUP_ACTOR",
    "Ledger",
    "LedgerError",
    "LOCK_S",
    "LOG_CAP",
    "MAX_FAILURES",
    "STATUSES",
    "Submission",
]

STATUSES: Final = ("queued", "building", "testing", "accepted", "refused")
QUEUE_TURN_S: Final = 300.0
"""How much later an upload counts in the validation queue for each upload its account
made in the 24 hours before it (about a validation's time): a later author's first goes
before it, a first that comes more than this later does not."""
HOST_ACTOR: Final = "host"
"""The audit log's actor for what the host does by itself (lock-outs, validation results)."""
SIGNUP_ACTOR: Final = "sign-up"
"""The audit log's actor for an account a visitor made at ``/signup``."""
MAX_FAILURES: Final = 5
"""Wrong secrets in a row for one token that lock its account ..."""
LOCK_S: Final = 900.0
"""... for this long: guessing a 256-bit secret at 5 tries a quarter-hour is hopeless."""
LOG_CAP: Final = 64 * 1024
"""Bytes of a submission's log kept (its end): a chatty build cannot fill the disk."""
TEXT_CAP: Final = 4000
"""Characters kept of a submission's reason and of an audit entry's fields."""
DAY_S: Final = 86400.0
SESSIONS: Final = 10
"""Browser sessions an account keeps (its newest): signing in over and over replaces
them, so it cannot grow the database."""

_RESERVED: Final = frozenset({folded(HOST_ACTOR), folded(SIGNUP_ACTOR), "operator"})
"""Actor names of the audit log that no account may take (its entries would read as the host's)."""
_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_.-]{0,31}")
_TOKEN: Final = re.compile(r"a31_([0-9a-f]{16})_([A-Za-z0-9_-]{43})")
_DUMMY_SECRET: Final = "x" * 43
_DUMMY_SALT: Final = bytes(16)
_CUT: Final = "[earlier lines cut: the log keeps its last 64 KiB]\n"
_SUBMISSION: Final = "id, account, address, tournament, status, bot, version, reason, log, created, updated"
"""A submission's columns (its archive is in ``uploads``, read only by :meth:`Ledger.archive`)."""


class LedgerError(ArenaError, ValueError):
    """What was asked of the ledger cannot be done (no such account, a taken name ...)."""


class FloodError(LedgerError):
    """A rate limit is reached (submissions, sign-ins); the message says which."""


@dataclass(frozen=True)
class Account:
    """An author's (or operator's) account; its token is never held here."""

    name: str
    operator: bool
    created: float
    disabled: float | None
    locked_until: float = 0.0
    """Until when its token is refused after repeated wrong secrets (0: never locked)."""

    def locked(self, now: float | None = None) -> bool:
        """Whether its token is refused now for repeated wrong secrets."""
        return _now(now) < self.locked_until


@dataclass(frozen=True)
class Submission:
    """An uploaded bot and how far its validation got."""

    id: int
    account: str
    address: str
    tournament: str | None
    status: str
    bot: str | None
    version: int | None
    reason: str | None
    log: str
    created: float
    updated: float


@dataclass(frozen=True)
class AuditEntry:
    """One recorded action: who did what to what, from where."""

    at: float
    actor: str
    action: str
    target: str
    address: str
    detail: str


class Ledger:
    """A connection to the host's tables of the results database (created and upgraded by
    :class:`~arena.tournament.store.Store` first)."""

    def __init__(self, path: Path | str, *, timeout_s: float | None = None) -> None:
        self.path = Path(path)
        if timeout_s is None:
            timeout_s = _timeout_from_environment()
        Store(self.path, timeout_s=timeout_s).close()
        try:
            db = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None, factory=_Connection)
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the results database {self.path}: {error}") from None
        self._db: _Connection = db
        self._db.path = self.path
        self._db.row_factory = sqlite3.Row
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        """Close the connection (finished transactions are already on disk)."""
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db, self.path)

    # -- accounts and tokens ----------------------------------------------------------

    def add_account(self, name: str, *, operator: bool = False, actor: str, address: str = "",
                    per_address_day: int | None = None, now: float | None = None) -> tuple[Account, str]:
        """Create an account; returns it and its token, which only its hash outlives.
        LedgerError if ``actor`` made ``per_address_day`` accounts from ``address`` in the
        last day already: counted in the transaction that adds it, so sign-ups sent at the
        same moment cannot all count the same old number."""
        now = _now(now)
        if not _NAME.fullmatch(name):
            raise LedgerError(f"account name {name!r}: 1 to 32 of a-z, 0-9, '_', '.' and '-', starting with a "
                              "letter or digit")
        if folded(name) in _RESERVED:
            raise LedgerError(f"account name {name!r} is the audit log's name for the host itself: choose another")
        self._check_free(name)  # before the scrypt: a sign-up for a taken name costs nothing
        token_id, salt, digest, token = _new_token()
        with self._transaction():
            self._check_free(name)
            if per_address_day is not None and self.audited(
                    "add account", actor=actor, address=address, within_s=DAY_S, now=now) >= per_address_day:
                raise LedgerError("this address has made as many accounts as a day allows: try again tomorrow")
            self._db.execute(
                "INSERT INTO accounts (name, folded, operator, token_id, token_salt, token_hash, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)", (name, folded(name), int(operator), token_id, salt, digest, now))
            self._record(actor, "add account", name, address, "operator" if operator else "", now)
        return Account(name, operator, now, None), token

    def _check_free(self, name: str) -> None:
        row = self._db.execute("SELECT name FROM accounts WHERE folded = ?", (folded(name),)).fetchone()
        if row is not None:
            existing = row["name"]
            raise LedgerError(f"account {name!r} exists already" if existing == name
                              else f"{name!r} reads as {existing!r}, an existing account")

    def accounts(self) -> list[Account]:
        """Every account, by name."""
        return [_account(r) for r in self._db.execute("SELECT * FROM accounts ORDER BY name")]

    def account(self, name: str) -> Account | None:
        """The account ``name``, if there is one."""
        row = self._db.execute("SELECT * FROM accounts WHERE name = ?", (name,)).fetchone()
        return None if row is None else _account(row)

    def disable_account(self, name: str, *, actor: str, address: str = "", now: float | None = None) -> Account:
        """Refuse the account's token and end its sessions (its bots and results stay)."""
        now = _now(now)
        with self._transaction():
            self._existing(name)
            self._db.execute("UPDATE accounts SET disabled = COALESCE(disabled, ?) WHERE name = ?", (now, name))
            self._db.execute("DELETE FROM sessions WHERE account = ?", (name,))
            self._record(actor, "disable account", name, address, "", now)
            return _account(self._existing(name))

    def enable_account(self, name: str, *, actor: str, address: str = "", now: float | None = None) -> Account:
        """Let a disabled account's token work again; also lifts a lock-out (the operator's
        way to let an author in who was locked by someone else's guessing)."""
        now = _now(now)
        with self._transaction():
            self._existing(name)
            self._db.execute("UPDATE accounts SET disabled = NULL, failures = 0, locked_until = 0 WHERE name = ?",
                             (name,))
            self._record(actor, "enable account", name, address, "", now)
            return _account(self._existing(name))

    def rotate_token(self, name: str, *, actor: str, address: str = "", now: float | None = None) -> str:
        """A new token for the account: the old one stops working at once and its sessions
        end (a leaked token is undone by this).  Also lifts a lock-out."""
        now = _now(now)
        token_id, salt, digest, token = _new_token()
        with self._transaction():
            self._existing(name)
            self._db.execute(
                "UPDATE accounts SET token_id = ?, token_salt = ?, token_hash = ?, failures = 0, locked_until = 0"
                " WHERE name = ?", (token_id, salt, digest, name))
            self._db.execute("DELETE FROM sessions WHERE account = ?", (name,))
            self._record(actor, "rotate token", name, address, "", now)
        return token

    def authenticate(self, token: str, *, address: str = "", now: float | None = None) -> Account | None:
        """The enabled, unlocked account whose token this is; None for every kind of failure.

        Every token costs one lookup, one scrypt and one transaction, whatever its shape, so
        the time taken does not tell a malformed token or an unknown id from a wrong secret.
        """
        now = _now(now)
        parsed = _TOKEN.fullmatch(token)
        token_id, secret = parsed.groups() if parsed else ("", _DUMMY_SECRET)
        row = self._db.execute("SELECT token_salt, token_hash FROM accounts WHERE token_id = ?",
                               (token_id,)).fetchone()
        digest = _scrypt(secret, _DUMMY_SALT if row is None else bytes(row["token_salt"]))
        right = row is not None and hmac.compare_digest(digest, bytes(row["token_hash"]))
        with self._transaction():
            current = self._db.execute("SELECT * FROM accounts WHERE token_id = ?", (token_id,)).fetchone()
            if (row is None or current is None or current["token_hash"] != row["token_hash"]  # rotated meanwhile
                    or current["disabled"] is not None or now < current["locked_until"]):
                return None
            name = current["name"]
            if right:
                if current["failures"]:
                    self._db.execute("UPDATE accounts SET failures = 0, locked_until = 0 WHERE name = ?", (name,))
                return Account(name, bool(current["operator"]), current["created"], None)
            failures = current["failures"] + 1
            locked = failures >= MAX_FAILURES
            self._db.execute("UPDATE accounts SET failures = ?, locked_until = ? WHERE name = ?",
                             (failures, now + LOCK_S if locked else current["locked_until"], name))
            if locked:
                self._record(HOST_ACTOR, "locked", name, address,
                             f"{failures} wrong tokens in a row: refused for {LOCK_S / 60:.0f} min", now)
        return None

    def audited(self, action: str, *, within_s: float, actor: str | None = None, target: str | None = None,
                address: str | None = None, now: float | None = None) -> int:
        """Audit entries of ``action`` in the last ``within_s`` seconds (by ``actor``, on
        ``target``, from ``address``, where given): what the host's rate limits count."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM audit WHERE action = ? AND at > ? AND (? IS NULL OR actor = ?)"
            " AND (? IS NULL OR target = ?) AND (? IS NULL OR address = ?)",
            (action, _now(now) - within_s, actor, actor, target, target, address, address)).fetchone()
        return int(row[0])

    def token_current(self, name: str, token_id: str, *, now: float | None = None) -> bool:
        """Whether ``token_id`` is the account's token's id and not locked out: a token
        checked a moment ago is still good (not rotated) without paying scrypt again."""
        row = self._db.execute("SELECT token_id, locked_until FROM accounts WHERE name = ?", (name,)).fetchone()
        return row is not None and row["token_id"] == token_id and _now(now) >= row["locked_until"]

    # -- sessions ---------------------------------------------------------------------

    def open_session(self, account: str, *, lifetime_s: float = 7 * DAY_S, address: str = "",
                     per_hour: int | None = None, now: float | None = None) -> tuple[str, str]:
        """A browser session for ``account`` (signed in with its token): (the session id for
        the cookie, its CSRF token).  Only the id's SHA-256 is stored.  FloodError if the
        account signed in ``per_hour`` times in the last hour: counted in the transaction
        that opens it, so sign-ins sent at the same moment cannot all count the same number."""
        now = _now(now)
        session_id, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        with self._transaction():
            if self._existing(account)["disabled"] is not None:
                raise LedgerError(f"account {account!r} is disabled")
            if per_hour is not None and self.audited("sign in", target=account, within_s=3600, now=now) >= per_hour:
                raise FloodError(f"this account has signed in {per_hour} times in the last hour: wait")
            self._db.execute("DELETE FROM sessions WHERE expires <= ?", (now,))  # the expired go as others come
            self._db.execute("INSERT INTO sessions (id_hash, account, csrf, created, expires) VALUES (?, ?, ?, ?, ?)",
                             (_session_hash(session_id), account, csrf, now, now + lifetime_s))
            self._db.execute("DELETE FROM sessions WHERE account = ? AND id_hash NOT IN (SELECT id_hash FROM sessions"
                             " WHERE account = ? ORDER BY created DESC LIMIT ?)", (account, account, SESSIONS))
            self._record(account, "sign in", account, address, "", now)
        return session_id, csrf

    def session(self, session_id: str, *, now: float | None = None) -> tuple[Account, str] | None:
        """(account, CSRF token) of a session still valid whose account is enabled."""
        row = self._db.execute(
            "SELECT a.*, s.csrf FROM sessions s JOIN accounts a ON a.name = s.account"
            " WHERE s.id_hash = ? AND s.expires > ? AND a.disabled IS NULL",
            (_session_hash(session_id), _now(now))).fetchone()
        return None if row is None else (_account(row), row["csrf"])

    def close_session(self, session_id: str, *, address: str = "", now: float | None = None) -> None:
        """End a session (signing out); nothing if there is none."""
        with self._transaction():
            row = self._db.execute("DELETE FROM sessions WHERE id_hash = ? RETURNING account",
                                   (_session_hash(session_id),)).fetchone()
            if row is not None:
                self._record(row["account"], "sign out", row["account"], address, "", _now(now))

    # -- ownership of bot names -------------------------------------------------------

    def owner(self, bot: str) -> str | None:
        """The account owning the name ``bot`` (as :func:`~arena.botspec.folded` reads it)."""
        row = self._db.execute("SELECT account FROM owners WHERE folded = ?", (folded(bot),)).fetchone()
        return None if row is None else str(row["account"])

    def claim(self, bot: str, account: str, *, now: float | None = None) -> bool:
        """Make the name ``bot`` ``account``'s if nobody owns it: True if it is now (or was
        already) this account's, False if another's.  First come, first served.  LedgerError
        if the account or the bot is disabled (an upload validated while it was, is not
        entered: a build may keep a version in validation for many minutes)."""
        now = _now(now)
        with self._transaction():
            if self._existing(account)["disabled"] is not None:
                raise LedgerError(f"account {account!r} is disabled")
            if self.bot_disabled(bot):
                raise LedgerError(f"the bot {bot!r} was disabled by the operator: it takes no new versions")
            inserted = self._db.execute("INSERT OR IGNORE INTO owners (folded, bot, account, created) VALUES"
                                        " (?, ?, ?, ?)", (folded(bot), bot, account, now)).rowcount == 1
            if inserted:
                self._record(account, "claim bot", bot, "", "", now)
                return True
            row = self._db.execute("SELECT account FROM owners WHERE folded = ?", (folded(bot),)).fetchone()
            return bool(row["account"] == account)

    def disable_bot(self, bot: str, *, actor: str, address: str = "", now: float | None = None) -> None:
        """Take no new versions of an owned bot (its versions and results stay)."""
        now = _now(now)
        with self._transaction():
            if self._db.execute("UPDATE owners SET disabled = COALESCE(disabled, ?) WHERE folded = ?",
                                (now, folded(bot))).rowcount == 0:
                raise LedgerError(f"no account owns a bot {bot!r}")
            self._record(actor, "disable bot", bot, address, "", now)

    def bot_disabled(self, bot: str) -> bool:
        """Whether the operator disabled the bot ``bot`` (folded)."""
        row = self._db.execute("SELECT disabled FROM owners WHERE folded = ?", (folded(bot),)).fetchone()
        return row is not None and row["disabled"] is not None

    def bots_of(self, account: str) -> list[str]:
        """The names ``account`` owns, in the order it claimed them."""
        rows = self._db.execute("SELECT bot FROM owners WHERE account = ? ORDER BY created, bot", (account,))
        return [r["bot"] for r in rows]

    # -- the submissions queue --------------------------------------------------------

    def enqueue(self, account: str, address: str, archive: bytes, tournament: str | None, *, per_account_day: int,
                per_address_day: int, now: float | None = None) -> Submission:
        """Queue an upload; FloodError if the account made ``per_account_day`` submissions
        in the last 24 h, or the address ``per_address_day``.  The count and the insert are
        one transaction: two uploads at once cannot both take the last free slot."""
        now = _now(now)
        with self._transaction():
            if self._existing(account)["disabled"] is not None:
                raise LedgerError(f"account {account!r} is disabled")
            self.check_quota(account, address, per_account_day=per_account_day, per_address_day=per_address_day,
                             now=now)
            cursor = self._db.execute(
                "INSERT INTO submissions (account, address, tournament, status, created, updated)"
                " VALUES (?, ?, ?, 'queued', ?, ?)", (account, address, tournament, now, now))
            number = cursor.lastrowid
            assert number is not None  # an INSERT into a rowid table
            self._db.execute("INSERT INTO uploads (submission, archive) VALUES (?, ?)", (number, archive))
            self._record(account, "submit", f"submission {number}", address,
                         f"{len(archive)} bytes" + (f" for {tournament}" if tournament else ""), now)
            return self._submission(number)

    def check_quota(self, account: str, address: str, *, per_account_day: int, per_address_day: int,
                    now: float | None = None) -> None:
        """FloodError if the account made ``per_account_day`` submissions in the last 24 h,
        or the address ``per_address_day``: asked before an upload is read, so a sender at
        its limit holds none of the host's memory, and again when it is queued."""
        now = _now(now)
        for column, value, limit, who in (("account", account, per_account_day, f"account {account!r}"),
                                          ("address", address, per_address_day, f"address {address}")):
            times = [r[0] for r in self._db.execute(
                f"SELECT created FROM submissions WHERE {column} = ? AND created > ? ORDER BY created",
                (value, now - DAY_S))]
            if len(times) >= limit:
                raise FloodError(_flood(who, len(times), limit, times, now))

    def claim_next(self, *, now: float | None = None) -> Submission | None:
        """Take the next queued submission for validation (status ``building``); one
        transaction, so two validators never take the same one.

        Next is the oldest, each counted as if it had come :data:`QUEUE_TURN_S` later for
        every upload its account made in the 24 hours before it: an author who queues a
        day's uploads at once holds the validator for one of them before a later author's
        first, and an upload goes before everything that comes more than that long, times
        its account's uploads before it, after it: none waits for ever."""
        with self._transaction():
            row = self._db.execute(
                "SELECT id FROM submissions AS s WHERE status = 'queued' ORDER BY s.created + ? *"
                " (SELECT COUNT(*) FROM submissions AS t WHERE t.account = s.account AND t.created > s.created - ?"
                " AND t.id < s.id), id LIMIT 1", (QUEUE_TURN_S, DAY_S)).fetchone()
            if row is None:
                return None
            self._db.execute("UPDATE submissions SET status = 'building', updated = ? WHERE id = ?",
                             (_now(now), row["id"]))
            return self._submission(row["id"])

    def set_status(self, id: int, status: str, *, reason: str | None = None, bot: str | None = None,
                   version: int | None = None, now: float | None = None) -> None:
        """Move a submission on (reason, bot and version are kept unless given); audited
        when it is decided (accepted or refused)."""
        if status not in STATUSES:
            raise LedgerError(f"status {status!r}: one of {', '.join(STATUSES)}")
        now = _now(now)
        reason = None if reason is None else printable(_short(reason), lines=False)
        with self._transaction():
            if self._db.execute(
                "UPDATE submissions SET status = ?, reason = COALESCE(?, reason), bot = COALESCE(?, bot),"
                " version = COALESCE(?, version), updated = ? WHERE id = ?",
                (status, reason, bot, version, now, id)).rowcount == 0:
                raise LedgerError(f"no submission {id}")
            if status in ("accepted", "refused"):
                current = self._submission(id)
                detail = "; ".join(x for x in (current.bot, current.reason if status == "refused" else None) if x)
                self._record(HOST_ACTOR, status, f"submission {id}", "", detail, now)

    def append_log(self, id: int, text: str, *, now: float | None = None) -> None:
        """Add a line to a submission's log (made printable; only its last 64 KiB are kept)."""
        with self._transaction():
            self._append(id, text, _now(now))

    def _append(self, id: int, text: str, now: float) -> None:
        row = self._db.execute("SELECT log FROM submissions WHERE id = ?", (id,)).fetchone()
        if row is None:
            raise LedgerError(f"no submission {id}")
        line = printable(text).rstrip("\n") + "\n"
        self._db.execute("UPDATE submissions SET log = ?, updated = ? WHERE id = ?",
                         (_capped(row["log"] + line), now, id))

    def submission(self, id: int) -> Submission | None:
        """One submission (without its archive), if there is one."""
        row = self._db.execute(f"SELECT {_SUBMISSION} FROM submissions WHERE id = ?", (id,)).fetchone()
        return None if row is None else _as_submission(row)

    def _submission(self, id: int) -> Submission:
        found = self.submission(id)
        assert found is not None  # read in the transaction that wrote it
        return found

    def submissions(self, account: str | None = None, *, limit: int = 100) -> list[Submission]:
        """The latest submissions (of ``account``), newest first."""
        rows = self._db.execute(f"SELECT {_SUBMISSION} FROM submissions WHERE ? IS NULL OR account = ?"
                                " ORDER BY id DESC LIMIT ?", (account, account, limit))
        return [_as_submission(r) for r in rows]

    def archive(self, id: int) -> bytes:
        """The uploaded archive of a submission."""
        row = self._db.execute("SELECT archive FROM uploads WHERE submission = ?", (id,)).fetchone()
        if row is None:
            raise LedgerError(f"no submission {id}")
        return bytes(row["archive"])

    def requeue_interrupted(self, *, now: float | None = None) -> int:
        """At the host's start: queue again what was being validated when it stopped (the
        validator died with it).  Returns how many."""
        now = _now(now)
        with self._transaction():
            rows = self._db.execute("SELECT id, status FROM submissions WHERE status IN ('building', 'testing')"
                                    " ORDER BY id").fetchall()
            for row in rows:
                self._append(row["id"], f"queued again: the host stopped while this was {row['status']}", now)
            self._db.execute("UPDATE submissions SET status = 'queued', updated = ? WHERE status IN"
                             " ('building', 'testing')", (now,))
            if rows:
                self._record(HOST_ACTOR, "requeue", ", ".join(f"submission {r['id']}" for r in rows), "",
                             "interrupted by the host's stop", now)
        return len(rows)

    # -- the audit log ----------------------------------------------------------------

    def record(self, actor: str, action: str, target: str, *, address: str = "", detail: str = "",
               now: float | None = None) -> None:
        """Add an entry to the audit log (the other writes add their own)."""
        with self._transaction():
            self._record(actor, action, target, address, detail, _now(now))

    def _record(self, actor: str, action: str, target: str, address: str, detail: str, now: float) -> None:
        self._db.execute("INSERT INTO audit (at, actor, action, target, address, detail) VALUES (?, ?, ?, ?, ?, ?)",
                         (now, *(printable(_short(x), lines=False) for x in (actor, action, target, address, detail))))

    def audit(self, *, limit: int = 200) -> list[AuditEntry]:
        """The latest audit entries, newest first."""
        rows = self._db.execute("SELECT * FROM audit ORDER BY id DESC LIMIT ?", (limit,))
        return [AuditEntry(r["at"], r["actor"], r["action"], r["target"], r["address"], r["detail"]) for r in rows]

    def _existing(self, name: str) -> sqlite3.Row:
        row: sqlite3.Row | None = self._db.execute("SELECT * FROM accounts WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise LedgerError(f"no account {name!r}")
        return row


def _now(now: float | None) -> float:
    return time.time() if now is None else now


def _scrypt(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)


def _new_token() -> tuple[str, bytes, bytes, str]:
    """(token id, salt, scrypt hash of the secret, the token to hand out once)."""
    token_id, secret, salt = secrets.token_hex(8), secrets.token_urlsafe(32), secrets.token_bytes(16)
    return token_id, salt, _scrypt(secret, salt), f"a31_{token_id}_{secret}"


def _session_hash(session_id: str) -> bytes:
    return hashlib.sha256(session_id.encode(errors="replace")).digest()


def _account(row: sqlite3.Row) -> Account:
    return Account(row["name"], bool(row["operator"]), row["created"], row["disabled"], row["locked_until"])


def _as_submission(row: sqlite3.Row) -> Submission:
    return Submission(row["id"], row["account"], row["address"], row["tournament"], row["status"], row["bot"],
                      row["version"], row["reason"], row["log"], row["created"], row["updated"])


def _short(text: str) -> str:
    """``text`` cut to :data:`TEXT_CAP` characters: a refusal's reason quotes what it
    refused, and a 20 MB name in a 20 KB upload made a 20 MB reason, audit entry and
    answer to every listing of the account's submissions."""
    if len(text) <= TEXT_CAP:
        return text
    return f"{text[:TEXT_CAP]}... ({len(text) - TEXT_CAP:,} more characters)"


def _capped(log: str) -> str:
    """``log`` cut to its last :data:`LOG_CAP` bytes, at a line's start where it can."""
    data = log.encode()
    if len(data) <= LOG_CAP:
        return log
    tail = data[len(data) - LOG_CAP + len(_CUT):].decode(errors="ignore")
    newline = tail.find("\n")
    if 0 <= newline < len(tail) - 1:
        tail = tail[newline + 1:]
    return _CUT + tail


def _flood(who: str, count: int, limit: int, times: list[float], now: float) -> str:
    if limit <= 0:
        return f"{who} may not submit here (its limit is 0 a day)"
    frees = times[count - limit] + DAY_S - now  # the submission whose ageing out brings the count below the limit
    return (f"{who} made {count} submissions in the last 24 h, its limit: the next is possible in "
            f"{_duration(frees)}")


def _duration(seconds: float) -> str:
    minutes = max(1, -int(-seconds // 60))
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"
