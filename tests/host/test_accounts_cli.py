"""The operator's commands (arena accounts ..., arena backup), run as the real `arena`
command on real databases, one of them while another process keeps writing it."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.host.ledger import MAX_FAILURES, Ledger
from arena.tournament.store import MatchRecord, SeatRecord, Store


def arena(*args: str, db: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "arena.cli", *args, *(["--db", str(db)] if db else [])]
    environment = {k: v for k, v in os.environ.items() if k != "ARENA_DB"}
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=environment)


def refused(result: subprocess.CompletedProcess[str], message: str) -> None:
    """The command failed as a user mistake: exit 2, one line naming it, no traceback."""
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr


def added(db: Path, name: str, *options: str) -> str:
    result = arena("accounts", "add", name, *options, db=db)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_add_prints_the_token_once_with_how_to_use_it(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    result = arena("accounts", "add", "bob", db=db)
    assert result.returncode == 0, result.stderr
    token = result.stdout.strip()
    assert token.startswith("a31_") and result.stdout.count("\n") == 1  # alone on stdout: `$(arena accounts add)`
    assert "only this once" in result.stderr
    assert "export ARENA_TOKEN=" in result.stderr and "~/.config/arena/token" in result.stderr
    assert "mode 600" in result.stderr and "arena submit --to" in result.stderr
    operator = added(db, "ann", "--operator")
    with Ledger(db) as ledger:
        bob = ledger.authenticate(token)
        ann = ledger.authenticate(operator)
        assert bob is not None and bob.name == "bob" and not bob.operator
        assert ann is not None and ann.name == "ann" and ann.operator
        assert [(e.actor, e.action, e.target) for e in ledger.audit()] == [
            ("operator@cli", "add account", "ann"), ("operator@cli", "add account", "bob")]


def test_list_disable_enable_and_rotate(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    assert "no accounts" in arena("accounts", "list", db=db).stdout
    old = added(db, "bob")
    added(db, "ann", "--operator")
    carl = added(db, "carl")
    with Ledger(db) as ledger:
        assert ledger.claim("heuristic", "bob") and ledger.claim("greedy", "bob")
        for _ in range(MAX_FAILURES):
            ledger.authenticate(carl[:-1] + ("A" if carl[-1] != "A" else "B"))
    assert arena("accounts", "disable", "ann", db=db).returncode == 0
    listing = arena("accounts", "list", db=db).stdout.splitlines()
    rows = {line.split()[0]: line.split() for line in listing[2:]}
    assert rows["ann"][1:2] == ["yes"] and rows["ann"][-1] == "disabled"
    assert rows["bob"][-3:] == ["active", "heuristic,", "greedy"]
    assert rows["carl"][-1] == "locked"

    assert arena("accounts", "enable", "carl", db=db).returncode == 0  # lifts the lock
    no_rotate = arena("accounts", "token", "bob", db=db)
    refused(no_rotate, "stored only as hashes and cannot be shown again")
    assert "--rotate" in no_rotate.stderr
    rotated = arena("accounts", "token", "bob", "--rotate", db=db)
    assert rotated.returncode == 0 and "only this once" in rotated.stderr
    new = rotated.stdout.strip()
    with Ledger(db) as ledger:
        assert ledger.authenticate(old) is None
        assert ledger.authenticate(new) is not None
        assert ledger.authenticate(carl) is not None
        assert ledger.authenticate(added(db, "dora")) is not None
        ann = ledger.account("ann")
        assert ann is not None and ann.disabled is not None
    audit = arena("accounts", "audit", "--limit", "4", db=db)
    lines = audit.stdout.splitlines()
    assert audit.returncode == 0 and len(lines) == 2 + 4
    assert [line.split()[3:5] for line in lines[2:]] == [
        ["add", "account"], ["rotate", "token"], ["enable", "account"], ["disable", "account"]]
    assert all(line.split()[2] == "operator@cli" for line in lines[2:])


@pytest.mark.parametrize(("args", "message"), [
    (["accounts", "add", "Bob Smith"], "account name 'Bob Smith'"),
    (["accounts", "add", "bob."], "'bob.' reads as 'bob', an existing account"),
    (["accounts", "disable", "ghost"], "no account 'ghost'"),
    (["accounts", "enable", "ghost"], "no account 'ghost'"),
    (["accounts", "token", "ghost", "--rotate"], "no account 'ghost'"),
    (["accounts", "token", "ghost"], "no account 'ghost'"),
])
def test_mistakes_are_one_clear_line(tmp_path: Path, args: list[str], message: str) -> None:
    db = tmp_path / "arena.db"
    with Ledger(db) as ledger:
        ledger.add_account("bob", actor="test")
    refused(arena(*args, db=db), message)


def test_every_command_explains_itself() -> None:
    for command, words in [("add", "only the token's hash"), ("list", "locked"), ("disable", "sessions end"),
                           ("enable", "unlock"), ("token", "--rotate"), ("audit", "newest first")]:
        result = arena("accounts", command, "--help")
        assert result.returncode == 0 and words in " ".join(result.stdout.split()), (command, result.stdout)
    result = arena("backup", "--help")
    assert result.returncode == 0 and "online backup" in " ".join(result.stdout.split())


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from arena.host.ledger import Ledger
    db, ready, stop = (Path(a) for a in sys.argv[1:])
    with Ledger(db) as ledger:
        n = 0
        while not stop.exists():
            ledger.record("writer", "tick", str(n), detail="x" * 500)
            if n % 10 == 0:
                ledger.enqueue("bob", "10.0.0.1", bytes(100_000), None, per_account_day=10**9,
                               per_address_day=10**9)
            n += 1
            if n == 50:
                ready.touch()
""")


def make_database(db: Path) -> None:
    """Two accounts and one stored match."""
    with Store(db) as store:
        a = store.register("alpha", "aa" * 32, "alpha@1", None, {"version": "1"}).id
        b = store.register("beta", "bb" * 32, "beta@1", None, {"version": "1"}).id
        store.record(MatchRecord(id="t-scat-2p-00000000-d0r0", tournament="t", seq=0, variant="scat", options={},
                                 seed=0, seats=(SeatRecord(a, 1, 1.0), SeatRecord(b, 2, 0.0)), reason="last one "
                                 "standing", rounds=3, decisions=20))
    with Ledger(db) as ledger:
        ledger.add_account("bob", actor="test")
        ledger.add_account("ann", actor="test")


def test_backup_copies_a_database_while_another_process_writes_it(tmp_path: Path) -> None:
    db, copy = tmp_path / "arena.db", tmp_path / "backups" / "copy.db"
    copy.parent.mkdir()
    make_database(db)
    ready, stop = tmp_path / "ready", tmp_path / "stop"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(ready), str(stop)])
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert writer.poll() is None and time.monotonic() < deadline, "the writer did not start writing"
            time.sleep(0.05)
        result = arena("backup", str(copy), db=db)
        assert writer.poll() is None  # still writing after the copy
    finally:
        stop.touch()
        assert writer.wait(60) == 0
    assert result.returncode == 0, result.stderr
    assert "1 match, 2 accounts; integrity check ok" in result.stdout
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert sorted(p.name for p in copy.parent.iterdir()) == ["copy.db"]  # no temporary file left
    with sqlite3.connect(copy) as opened:
        assert opened.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert {r[0] for r in opened.execute("SELECT name FROM accounts")} == {"ann", "bob"}
        ticks = opened.execute("SELECT COUNT(*) FROM audit WHERE action = 'tick'").fetchone()[0]
    opened.close()
    with Ledger(db) as ledger:
        assert 50 <= ticks < len(ledger.audit(limit=10**6))  # one moment of it, while it grew on
    with Ledger(copy) as ledger:  # the copy is a database the arena uses as it is
        assert [a.name for a in ledger.accounts()] == ["ann", "bob"]


def test_backup_replaces_a_file_only_when_forced(tmp_path: Path) -> None:
    db, copy = tmp_path / "arena.db", tmp_path / "copy.db"
    make_database(db)
    copy.write_text("keep me")
    refused(arena("backup", str(copy), db=db), "exists: give another file, or --force to replace it")
    assert copy.read_text() == "keep me"
    result = arena("backup", str(copy), "--force", db=db)
    assert result.returncode == 0, result.stderr
    with Ledger(copy) as ledger:
        assert len(ledger.accounts()) == 2


def test_backup_refuses_what_is_not_a_results_database(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    refused(arena("backup", str(tmp_path / "copy.db"), db=missing), "no database at")
    assert not missing.exists()
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as opened:
        opened.execute("CREATE TABLE notes (text TEXT)")
    opened.close()
    refused(arena("backup", str(tmp_path / "copy.db"), db=other), "another program")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]
