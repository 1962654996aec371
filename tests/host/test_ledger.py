"""The host's ledger on real SQLite files: tokens that only their owner can use and nobody
can read back, lock-outs, sessions, first-come bot names, a submissions queue whose limits
and claims hold under concurrent writers, and an audit entry for every change."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from arena.host.ledger import DAY_S, LOCK_S, LOG_CAP, MAX_FAILURES, QUEUE_TURN_S, FloodError, Ledger, LedgerError
from arena.tournament.store import Store

T = TypeVar("T")
NOW = 1_700_000_000.0
DAY = 86400.0
OP = "operator@cli"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "arena.db"


@pytest.fixture
def ledger(db: Path) -> Iterator[Ledger]:
    with Ledger(db) as opened:
        yield opened


def add(ledger: Ledger, name: str, *, operator: bool = False) -> str:
    """Add an account; its token."""
    return ledger.add_account(name, operator=operator, actor=OP, now=NOW)[1]


def wrong_secret(token: str) -> str:
    """The same token id with another secret of the right shape."""
    prefix, secret = token[:21], token[21:]
    return prefix + ("A" if secret[0] != "A" else "B") + secret[1:]


def at_once(workers: int, work: Callable[[Ledger], T], db: Path) -> list[T | BaseException]:
    """``work`` run by ``workers`` threads, each with its own Ledger, released together."""
    barrier = threading.Barrier(workers)
    results: list[T | BaseException] = []
    lock = threading.Lock()

    def run() -> None:
        with Ledger(db) as own:
            barrier.wait()
            try:
                result: T | BaseException = work(own)
            except Exception as error:  # collected and asserted on
                result = error
        with lock:
            results.append(result)

    threads = [threading.Thread(target=run) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(results) == workers
    return results


# -- tokens -----------------------------------------------------------------------------


def test_a_token_authenticates_its_account_and_nothing_else(ledger: Ledger) -> None:
    bob = add(ledger, "bob")
    ann = add(ledger, "ann", operator=True)
    assert bob.startswith("a31_") and len(bob.split("_", 2)[1]) == 16
    found = ledger.authenticate(bob, now=NOW)
    assert found is not None and found.name == "bob" and not found.operator
    other = ledger.authenticate(ann, now=NOW)
    assert other is not None and other.name == "ann" and other.operator
    assert [a.name for a in ledger.accounts()] == ["ann", "bob"]


@pytest.mark.parametrize("bad", [
    "", "a31_", "a31_0123456789abcdef_", "Bearer x", "a31_0123456789abcdef_" + "x" * 42,
    "a31_0123456789ABCDEF_" + "x" * 43, "a31_0123456789abcdef_" + "x" * 43 + " ", "x" * 10_000,
    "a31_0123456789abcdef_" + "x" * 43,  # the right shape, an unknown id
])
def test_every_malformed_or_unknown_token_is_refused_quietly(ledger: Ledger, bad: str) -> None:
    token = add(ledger, "bob")
    assert ledger.authenticate(bad, now=NOW) is None
    assert ledger.authenticate(token, now=NOW) is not None  # nothing counted against the account


def test_wrong_secrets_lock_the_account_for_a_while_even_against_the_right_token(ledger: Ledger) -> None:
    token = add(ledger, "bob")
    wrong = wrong_secret(token)
    for i in range(MAX_FAILURES):
        assert ledger.authenticate(wrong, address="10.0.0.9", now=NOW + i) is None
    locked_at = NOW + MAX_FAILURES - 1
    account = ledger.account("bob")
    assert account is not None and account.locked(now=locked_at + 1)
    assert ledger.authenticate(token, now=locked_at + 1) is None
    assert ledger.authenticate(wrong, now=locked_at + 2) is None  # does not extend the lock
    assert ledger.authenticate(token, now=locked_at + LOCK_S - 0.5) is None
    assert not ledger.token_current("bob", token.split("_")[1], now=locked_at + 1)
    entry = ledger.audit()[0]
    assert (entry.action, entry.target, entry.address, entry.actor) == ("locked", "bob", "10.0.0.9", "host")
    assert ledger.authenticate(token, now=locked_at + LOCK_S) is not None
    for i in range(MAX_FAILURES - 1):  # the success reset the count
        assert ledger.authenticate(wrong, now=locked_at + LOCK_S + 1 + i) is None
    assert ledger.authenticate(token, now=locked_at + LOCK_S + 10) is not None


def test_enabling_an_account_lifts_its_lock(ledger: Ledger) -> None:
    token = add(ledger, "bob")
    for _ in range(MAX_FAILURES):
        ledger.authenticate(wrong_secret(token), now=NOW)
    assert ledger.authenticate(token, now=NOW + 1) is None
    ledger.enable_account("bob", actor=OP, now=NOW + 2)
    assert ledger.authenticate(token, now=NOW + 3) is not None


def test_rotating_a_token_stops_the_old_one_and_its_sessions_at_once(ledger: Ledger) -> None:
    old = add(ledger, "bob")
    session, _ = ledger.open_session("bob", now=NOW)
    new = ledger.rotate_token("bob", actor=OP, now=NOW + 1)
    assert new != old
    assert ledger.authenticate(old, now=NOW + 2) is None
    assert ledger.session(session, now=NOW + 2) is None
    found = ledger.authenticate(new, now=NOW + 2)
    assert found is not None and found.name == "bob"
    assert ledger.token_current("bob", new.split("_")[1], now=NOW + 2)
    assert not ledger.token_current("bob", old.split("_")[1], now=NOW + 2)


def test_a_disabled_account_authenticates_to_nothing_until_enabled(ledger: Ledger) -> None:
    token = add(ledger, "bob")
    session, _ = ledger.open_session("bob", now=NOW)
    disabled = ledger.disable_account("bob", actor=OP, now=NOW + 1)
    assert disabled.disabled == NOW + 1
    assert ledger.authenticate(token, now=NOW + 2) is None
    assert ledger.session(session, now=NOW + 2) is None
    with pytest.raises(LedgerError, match="disabled"):
        ledger.open_session("bob", now=NOW + 2)
    enabled = ledger.enable_account("bob", actor=OP, now=NOW + 3)
    assert enabled.disabled is None
    assert ledger.authenticate(token, now=NOW + 4) is not None
    assert ledger.session(session, now=NOW + 4) is None  # the sessions stay ended


def test_the_secret_is_nowhere_in_the_database_nor_the_audit_nor_a_repr(db: Path) -> None:
    with Ledger(db) as ledger:
        account, first = ledger.add_account("bob", actor=OP, now=NOW)
        second = ledger.rotate_token("bob", actor=OP, now=NOW + 1)
        for _ in range(MAX_FAILURES):
            ledger.authenticate(wrong_secret(second), now=NOW + 2)
        ledger.enable_account("bob", actor=OP, now=NOW + 3)
        assert ledger.authenticate(second, now=NOW + 4) is not None
        session, csrf = ledger.open_session("bob", now=NOW + 5)
        audit = repr(ledger.audit())
        shown = repr(account) + repr(ledger.accounts()) + repr(ledger.session(session, now=NOW + 6))
        # the database as it is on disk, the write-ahead log included, while open
        stored = b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
    assert csrf in shown  # the csrf token is stored in clear (it is no credential by itself)
    for token in (first, second):
        secret = token.split("_", 2)[2]
        assert secret.encode() not in stored and token.encode() not in stored
        assert secret not in audit and secret not in shown
    assert session.encode() not in stored and session not in shown
    stored_after = b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
    assert second.split("_", 2)[2].encode() not in stored_after


def test_account_names_are_checked_and_folded(ledger: Ledger) -> None:
    add(ledger, "bob")
    for bad in ("", "Bob", "-bob", "b" * 33, "bob smith", "böb"):
        with pytest.raises(LedgerError, match="account name"):
            add(ledger, bad)
    with pytest.raises(LedgerError, match="'bob.' reads as 'bob', an existing account"):
        add(ledger, "bob.")
    with pytest.raises(LedgerError, match="exists already"):
        add(ledger, "bob")
    add(ledger, "b" * 32)


@pytest.mark.parametrize("change", ["disable_account", "enable_account", "rotate_token"])
def test_changing_an_unknown_account_says_so(ledger: Ledger, change: str) -> None:
    with pytest.raises(LedgerError, match="no account 'ghost'"):
        getattr(ledger, change)("ghost", actor=OP)


# -- sessions ---------------------------------------------------------------------------


def test_a_session_lasts_its_lifetime_and_ends_when_closed(ledger: Ledger) -> None:
    add(ledger, "bob")
    session, csrf = ledger.open_session("bob", lifetime_s=100, now=NOW)
    found = ledger.session(session, now=NOW + 99)
    assert found is not None and found[0].name == "bob" and found[1] == csrf
    assert ledger.session(session, now=NOW + 100) is None
    assert ledger.session("not a session", now=NOW) is None
    other, _ = ledger.open_session("bob", now=NOW + 200)
    assert ledger.session(other, now=NOW + 201) is not None
    ledger.close_session(other)
    assert ledger.session(other, now=NOW + 202) is None
    ledger.close_session(other)  # twice: nothing
    with pytest.raises(LedgerError, match="no account 'ghost'"):
        ledger.open_session("ghost")


# -- bot names --------------------------------------------------------------------------


def test_bot_names_are_first_come_first_served_as_folded(ledger: Ledger) -> None:
    add(ledger, "ann")
    add(ledger, "bob")
    assert ledger.owner("heuristic") is None
    assert ledger.claim("Bob.", "ann", now=NOW)
    assert not ledger.claim("bob", "bob", now=NOW + 1)
    assert ledger.claim("b-o-b", "ann", now=NOW + 2)  # already hers
    assert ledger.owner("BOB_") == "ann"
    assert ledger.bots_of("ann") == ["Bob."] and ledger.bots_of("bob") == []
    assert not ledger.bot_disabled("bob")
    ledger.disable_bot("bob", actor=OP, now=NOW + 3)
    assert ledger.bot_disabled("Bob.") and ledger.owner("bob") == "ann"
    with pytest.raises(LedgerError, match="no account owns a bot 'ghost'"):
        ledger.disable_bot("ghost", actor=OP)
    with pytest.raises(LedgerError, match="no account 'ghost'"):
        ledger.claim("other", "ghost")


def test_a_name_claimed_at_once_by_many_goes_to_exactly_one(db: Path) -> None:
    names = [f"author{i}" for i in range(6)]
    with Ledger(db) as ledger:
        for name in names:
            add(ledger, name)
    queue = list(names)
    lock = threading.Lock()

    def claim(own: Ledger) -> bool:
        with lock:
            me = queue.pop()
        return own.claim("prize", me)

    results = at_once(len(names), claim, db)
    assert sorted(results, key=str) == [False] * 5 + [True]
    with Ledger(db) as ledger:
        owner = ledger.owner("prize")
        assert owner is not None and ledger.bots_of(owner) == ["prize"]


# -- the queue --------------------------------------------------------------------------


def enqueue(ledger: Ledger, account: str = "bob", address: str = "10.0.0.1", *, now: float = NOW,
            per_account_day: int = 100, per_address_day: int = 100, archive: bytes = b"PK\x03\x04 a bot") -> int:
    return ledger.enqueue(account, address, archive, None, per_account_day=per_account_day,
                          per_address_day=per_address_day, now=now).id


def test_an_account_may_submit_so_often_a_day(ledger: Ledger) -> None:
    add(ledger, "bob")
    for i in range(3):
        enqueue(ledger, now=NOW + i, per_account_day=3)
    with pytest.raises(FloodError, match=r"account 'bob' made 3 submissions in the last 24 h, its limit: the next "
                                         r"is possible in 24 h 0 min"):
        enqueue(ledger, now=NOW + 3, per_account_day=3)
    with pytest.raises(FloodError, match="in 1 min"):
        enqueue(ledger, now=NOW + DAY - 1, per_account_day=3)
    enqueue(ledger, now=NOW + DAY + 0.5, per_account_day=3)  # the first has aged out
    with pytest.raises(FloodError):
        enqueue(ledger, now=NOW + DAY + 0.6, per_account_day=3)
    assert len(ledger.submissions("bob")) == 4


def test_an_address_may_submit_so_often_a_day_whatever_the_account(ledger: Ledger) -> None:
    add(ledger, "bob")
    add(ledger, "ann")
    enqueue(ledger, "bob", "10.0.0.1", now=NOW, per_address_day=2)
    enqueue(ledger, "ann", "10.0.0.1", now=NOW + 1, per_address_day=2)
    with pytest.raises(FloodError, match="address 10.0.0.1 made 2 submissions"):
        enqueue(ledger, "ann", "10.0.0.1", now=NOW + 2, per_address_day=2)
    enqueue(ledger, "ann", "10.0.0.2", now=NOW + 2, per_address_day=2)
    enqueue(ledger, "ann", "10.0.0.1", now=NOW + DAY + 0.5, per_address_day=2)


def test_a_disabled_or_unknown_account_cannot_submit(ledger: Ledger) -> None:
    add(ledger, "bob")
    ledger.disable_account("bob", actor=OP)
    with pytest.raises(LedgerError, match="disabled"):
        enqueue(ledger)
    with pytest.raises(LedgerError, match="no account 'ghost'"):
        enqueue(ledger, "ghost")


@pytest.mark.parametrize("limit", ["account", "address"])
def test_uploads_at_once_cannot_both_take_the_last_free_slot(db: Path, limit: str) -> None:
    with Ledger(db) as ledger:
        for i in range(8):
            add(ledger, f"author{i}")
        for _ in range(4):
            enqueue(ledger, "author0", "10.0.0.1", now=NOW)
    names = iter([f"author{i}" for i in range(8)])
    lock = threading.Lock()

    def submit(own: Ledger) -> int:
        with lock:
            name = next(names) if limit == "address" else "author0"
        return enqueue(own, name, "10.0.0.1", now=NOW + 1, per_account_day=5 if limit == "account" else 100,
                       per_address_day=5 if limit == "address" else 100)

    results = at_once(8, submit, db)
    assert sum(isinstance(r, int) for r in results) == 1
    assert sum(isinstance(r, FloodError) for r in results) == 7
    with Ledger(db) as ledger:
        assert len(ledger.submissions()) == 5


def test_the_queue_hands_out_the_oldest_first_and_keeps_the_archive(ledger: Ledger) -> None:
    add(ledger, "bob")
    add(ledger, "ann")
    first = enqueue(ledger, "bob", archive=b"first\x00bytes", now=NOW)
    second = ledger.enqueue("ann", "10.0.0.2", b"second", "weekly", per_account_day=9, per_address_day=9,
                            now=NOW + 1)
    assert second.status == "queued" and second.tournament == "weekly" and second.log == ""
    assert [s.id for s in ledger.submissions()] == [second.id, first]
    assert [s.id for s in ledger.submissions("bob")] == [first]
    assert [s.id for s in ledger.submissions(limit=1)] == [second.id]
    claimed = ledger.claim_next(now=NOW + 2)
    assert claimed is not None and claimed.id == first and claimed.status == "building" and claimed.updated == NOW + 2
    assert ledger.archive(first) == b"first\x00bytes"
    claimed = ledger.claim_next(now=NOW + 3)
    assert claimed is not None and claimed.id == second.id
    assert ledger.claim_next(now=NOW + 4) is None
    with pytest.raises(LedgerError, match="no submission 99"):
        ledger.archive(99)
    assert ledger.submission(99) is None


def test_the_queue_takes_a_later_authors_first_before_an_earlier_authors_second(ledger: Ledger) -> None:
    for name in ("ann", "bob", "cid", "dan"):
        add(ledger, name)
    ann = [enqueue(ledger, "ann", now=NOW + i) for i in range(4)]
    ledger.claim_next(now=NOW + 5)  # ann's first, being validated while the others queue
    bob = enqueue(ledger, "bob", now=NOW + 6)
    cid = enqueue(ledger, "cid", now=NOW + 7)
    dan = enqueue(ledger, "dan", now=NOW + 1 + QUEUE_TURN_S + 1)  # too late to go before ann's second
    order = [ann[0]]
    while (claimed := ledger.claim_next(now=NOW + 2 * QUEUE_TURN_S)) is not None:
        order.append(claimed.id)
        ledger.set_status(claimed.id, "refused", reason="not a bot")
    assert order == [ann[0], bob, cid, ann[1], dan, ann[2], ann[3]]
    later = enqueue(ledger, "ann", now=NOW + DAY_S + 4)  # a day after ann's last: a first again
    other = enqueue(ledger, "bob", now=NOW + DAY_S + 5)
    assert [ledger.claim_next(now=NOW + DAY_S + 6), ledger.claim_next(now=NOW + DAY_S + 6)] == [
        ledger.submission(later), ledger.submission(other)]  # bob's is a second (his first: 6 s into the day)


def test_validators_at_once_never_take_the_same_submission(db: Path) -> None:
    with Ledger(db) as ledger:
        add(ledger, "bob")
        queued = [enqueue(ledger, now=NOW + i) for i in range(40)]

    def drain(own: Ledger) -> list[int]:
        taken = []
        while (claimed := own.claim_next()) is not None:
            taken.append(claimed.id)
        return taken

    results = at_once(6, drain, db)
    taken = [i for r in results if isinstance(r, list) for i in r]
    assert len(taken) == len(queued)  # every validator took its share without an error
    assert sorted(taken) == queued
    with Ledger(db) as ledger:
        assert {s.status for s in ledger.submissions()} == {"building"}


def test_statuses_move_on_and_the_decision_is_audited(db: Path) -> None:
    with Store(db) as store:
        version = store.register("heuristic", "ab" * 32, "heuristic@1.0", None, {"version": "1.0"}).id
    with Ledger(db) as ledger:
        add(ledger, "bob")
        number = enqueue(ledger)
        ledger.claim_next(now=NOW + 1)
        ledger.set_status(number, "testing", bot="heuristic", now=NOW + 2)
        ledger.set_status(number, "accepted", version=version, now=NOW + 3)
        done = ledger.submission(number)
        assert done is not None
        assert (done.status, done.bot, done.version, done.updated) == ("accepted", "heuristic", version, NOW + 3)
        entry = ledger.audit()[0]
        assert (entry.actor, entry.action, entry.target, entry.detail) == ("host", "accepted",
                                                                            f"submission {number}", "heuristic")
        other = enqueue(ledger)
        ledger.set_status(other, "refused", reason="no bot.toml\x1b[2J", now=NOW + 4)
        refused = ledger.submission(other)
        assert refused is not None and refused.reason == "no bot.toml\\x1b[2J"
        assert ledger.audit()[0].detail == "no bot.toml\\x1b[2J"
        with pytest.raises(LedgerError, match="status 'done'"):
            ledger.set_status(number, "done")
        with pytest.raises(LedgerError, match="no submission 99"):
            ledger.set_status(99, "queued")


def test_what_a_stopped_host_was_validating_is_queued_again(ledger: Ledger) -> None:
    add(ledger, "bob")
    numbers = [enqueue(ledger, now=NOW + i) for i in range(4)]
    ledger.claim_next()
    ledger.claim_next()
    ledger.set_status(numbers[1], "testing")
    ledger.set_status(numbers[2], "refused", reason="late")
    assert ledger.requeue_interrupted(now=NOW + 10) == 2
    statuses = {s.id: s.status for s in ledger.submissions()}
    assert statuses == {numbers[0]: "queued", numbers[1]: "queued", numbers[2]: "refused", numbers[3]: "queued"}
    first = ledger.submission(numbers[0])
    second = ledger.submission(numbers[1])
    assert first is not None and "stopped while this was building" in first.log
    assert second is not None and "stopped while this was testing" in second.log
    assert ledger.audit()[0].action == "requeue"
    assert ledger.requeue_interrupted(now=NOW + 11) == 0


def test_a_chatty_build_log_keeps_only_its_end(ledger: Ledger) -> None:
    add(ledger, "bob")
    number = enqueue(ledger)
    ledger.append_log(number, "step one\x1b]52;c;clipboard\x07")
    first = ledger.submission(number)
    assert first is not None and first.log == "step one\\x1b]52;c;clipboard\\x07\n"
    for i in range(2000):
        ledger.append_log(number, f"line {i:05d} " + "é" * 30)
    ledger.append_log(number, "the last line", now=NOW + 5)
    log = ledger.submission(number)
    assert log is not None and log.updated == NOW + 5
    assert LOG_CAP - 100 < len(log.log.encode()) <= LOG_CAP
    assert log.log.startswith("[earlier lines cut") and log.log.endswith("line 01999 " + "é" * 30 + "\nthe last line\n")
    assert all(line.startswith(("line ", "the last", "[earlier")) for line in log.log.splitlines())
    with pytest.raises(LedgerError, match="no submission 99"):
        ledger.append_log(99, "x")


# -- the audit log ----------------------------------------------------------------------


def test_every_change_is_audited(ledger: Ledger) -> None:
    token = add(ledger, "bob")
    add(ledger, "ann", operator=True)
    ledger.disable_account("ann", actor=OP, address="127.0.0.1", now=NOW + 1)
    ledger.enable_account("ann", actor=OP, now=NOW + 2)
    ledger.rotate_token("ann", actor=OP, now=NOW + 3)
    session, _ = ledger.open_session("bob", address="10.0.0.1", now=NOW + 4)
    ledger.close_session(session, address="10.0.0.1", now=NOW + 5)
    ledger.claim("heuristic", "bob", now=NOW + 6)
    ledger.claim("heuristic", "bob", now=NOW + 6.5)  # no change: no entry
    ledger.disable_bot("heuristic", actor="ann", address="10.0.0.2", now=NOW + 7)
    number = enqueue(ledger, now=NOW + 8)
    ledger.set_status(number, "refused", reason="no manifest", now=NOW + 9)
    ledger.record("ann", "note", "bob", address="10.0.0.2", detail="hello", now=NOW + 10)
    for _ in range(MAX_FAILURES):
        ledger.authenticate(wrong_secret(token), address="10.0.0.3", now=NOW + 11)
    entries = ledger.audit()
    assert [(e.actor, e.action, e.target) for e in reversed(entries)] == [
        (OP, "add account", "bob"), (OP, "add account", "ann"), (OP, "disable account", "ann"),
        (OP, "enable account", "ann"), (OP, "rotate token", "ann"), ("bob", "sign in", "bob"),
        ("bob", "sign out", "bob"), ("bob", "claim bot", "heuristic"), ("ann", "disable bot", "heuristic"),
        ("bob", "submit", f"submission {number}"), ("host", "refused", f"submission {number}"),
        ("ann", "note", "bob"), ("host", "locked", "bob"),
    ]
    assert entries[-2].detail == "operator" and entries[-3].address == "127.0.0.1"
    assert entries[1].at == NOW + 10 and entries[1].detail == "hello" and entries[1].address == "10.0.0.2"
    assert [e.target for e in ledger.audit(limit=2)] == ["bob", "bob"]
