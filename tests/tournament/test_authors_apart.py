"""Authors apart through the real command: two bots of one author (folded case and spaces)
never share a table, and a file whose tables only same-author bots could fill is refused."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import arena, copy_bot, scratch, tournament_file

from arena.botspec import BOTS_DIR
from arena.tournament.store import Store


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def by(author: str, source: str, target: Path, name: str) -> Path:
    """A copy of a bundled bot, renamed and by ``author``."""
    folder = copy_bot(BOTS_DIR / source, target, name=name, variants=["scat"])
    manifest = folder / "bot.toml"
    manifest.write_text(re.sub(r'(?m)^author = ".*"$', f'author = "{author}"', manifest.read_text()))
    return folder


def test_two_bots_of_one_author_never_share_a_stored_table(home: Path) -> None:
    entrants = [by("Ann", "random", home / "ann-1", "ann-1"), by(" ann ", "threshold", home / "ann-2", "ann-2"),
                by("Bea", "random", home / "bea", "bea")]
    path = tournament_file(home, "apart", entrants, [("scat", [2])], deals=2)
    db = home / "arena.db"
    result = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "authors apart" in result.stderr  # the run says so
    assert "8/8 scheduled matches stored (complete)" in result.stdout  # 2 tables, 2 deals, 2 rotations
    with Store(db) as store:
        bot_of = {v.id: v.bot for v in store.versions()}
        seated = [frozenset(bot_of[s.version] for s in match.seats) for match in store.matches("apart")]
    assert len(seated) == 8
    assert set(seated) == {frozenset({"ann-1", "bea"}), frozenset({"ann-2", "bea"})}


def test_a_file_whose_tables_only_one_authors_bots_could_fill_is_refused_and_plays_nothing(home: Path) -> None:
    entrants = [by("Ann", "random", home / "ann-1", "ann-1"), by("ANN", "threshold", home / "ann-2", "ann-2"),
                by("Bea", "random", home / "bea", "bea")]
    path = tournament_file(home, "crowded", entrants, [("scat", [2, 3])])
    db = home / "arena.db"
    result = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert result.returncode == 2, result.stderr
    assert "scat for 3" in result.stderr and "'Ann' (ann-1, ann-2)" in result.stderr
    assert "authors_apart = false" in result.stderr
    with Store(db) as store:
        assert store.count("crowded") == 0
