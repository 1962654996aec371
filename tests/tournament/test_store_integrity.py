"""A store that cannot be fooled: the run lock holds whatever path leads to the database,
a damaged database is reported in one sentence by every command, and a file that is not a
results database is refused.  Real databases, real damage, the real command."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import TEST_BOTS, arena, copy_bot, finish, scratch, start_arena, stored_count, tournament_file, wait_until

from arena.botspec import BOTS_DIR
from arena.tournament.store import APPLICATION_ID, Store, StoreError


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def slow_file(home: Path, deals: int = 3) -> Path:
    """Two matches per deal, made slow by the dawdler."""
    return tournament_file(home, "slow", [copy_bot(BOTS_DIR / "random", home / "random"), TEST_BOTS / "dawdler"],
                           [("scat", [2])], deals=deals)


@pytest.mark.parametrize("how", ["symlink", "hard link", "another spelling"])
def test_a_second_run_through_another_path_to_the_database_is_refused(home: Path, how: str) -> None:
    # far longer than the test waits (it is stopped once checked): however loaded the
    # machine, the first run is still playing when the second starts
    path, db = slow_file(home, deals=200), home / "arena.db"
    Store(db).close()
    other = {"symlink": home / "via-link.db", "hard link": home / "hard.db",
             "another spelling": home / "x" / ".." / "arena.db"}[how]
    if how == "symlink":
        other.symlink_to(db)
    elif how == "hard link":
        os.link(db, other)
    else:
        (home / "x").mkdir()
    first = start_arena("run", path, "--db", db, "-q", "--workers", "1", "--concurrency", "1")
    try:
        wait_until(lambda: stored_count(db, "slow") >= 1, "the first run under way")
        second = arena("run", path, "--db", other, "-q")
        assert second.returncode == 2, second.stdout
        assert "'slow' is already running" in second.stderr and "Traceback" not in second.stderr
    finally:
        first.terminate()
        finish(first)


def damage(db: Path) -> None:
    """Overwrite with garbage a page of the matches and one of the seats (where every
    command that reads results must pass), wherever the schema put them."""
    with sqlite3.connect(db) as raw:
        size = raw.execute("PRAGMA page_size").fetchone()[0]
        pages = [raw.execute("SELECT MAX(pageno) FROM dbstat WHERE name = ?", (table,)).fetchone()[0]
                 for table in ("matches", "seats")]
    with open(db, "r+b") as file:
        for page in pages:
            file.seek((page - 1) * size)
            file.write(b"\xde\xad\xbe\xef" * (size // 4))


def test_a_damaged_database_is_reported_in_one_sentence_by_every_command(home: Path) -> None:
    path, db = slow_file(home), home / "arena.db"
    done = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damage(db)
    for command in (["run", path], ["table", "-t", "slow"], ["crosstable", "-t", "slow"], ["export", "-t", "slow"],
                    ["rerate"]):  # (commands that read only intact pages, such as `bots`, still work)
        result = arena(*command, "--db", db)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert "is damaged" in result.stderr and ".recover" in result.stderr, (command, result.stderr)
        assert "Traceback" not in result.stderr and "complete" not in result.stdout, (command, result.stdout)


def test_files_that_are_not_a_results_database_are_refused(home: Path) -> None:
    empty = home / "empty.db"
    empty.touch()
    text = home / "notes.db"
    text.write_text("not a database\n")
    foreign = home / "foreign.db"
    with sqlite3.connect(foreign) as raw:
        raw.execute("CREATE TABLE recipes (name TEXT)")
    for path, said in ((empty, "is an empty file"), (text, "not an SQLite file"), (foreign, "of another program")):
        before = path.read_bytes()
        result = arena("table", "--db", path)
        assert result.returncode == 2 and said in result.stderr, (path, result.stderr)
        assert path.read_bytes() == before, "the file was changed"
        with pytest.raises(StoreError, match=said):
            Store(path)
    fresh = home / "fresh.db"
    Store(fresh).close()
    with sqlite3.connect(fresh) as raw:
        assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
