"""Hostile entrants against the whole tournament flow, through the real command: a bot
that once crashed every command it reached must now be refused or forfeit, and every
other match must be stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import SANDBOX_BOTS, arena, copy_bot, outcomes, query, scratch, tournament_file

from arena.botspec import BOTS_DIR


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def test_a_deeply_nested_hello_is_refused_by_submit_with_a_clear_reason(home: Path) -> None:
    """The hello's RecursionError killed ``arena submit`` with a traceback."""
    bot = copy_bot(SANDBOX_BOTS / "nested-hello", home / "nested-hello")
    result = arena("submit", bot, "--db", home / "arena.db")
    assert result.returncode == 2, result.stderr
    assert "startup: malformed before hello" in result.stderr and "RecursionError" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_deeply_nested_hello_forfeits_its_matches_and_every_match_is_stored(home: Path) -> None:
    """It killed the referee worker and every resume died the same way (0 of 12 stored)."""
    path = tournament_file(home, "nest", [copy_bot(BOTS_DIR / "random", home / "random"),
                                          copy_bot(SANDBOX_BOTS / "nested-hello", home / "nested-hello")],
                           [("scat", [2])], deals=2)
    db = home / "arena.db"
    result = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "4/4 scheduled matches stored (complete)" in result.stdout
    stored = outcomes(db, "nest")
    assert len(stored) == 4 and all(dict(seats)["random"] == 1 for seats in stored.values())
    faults = [row[0] for row in query(db, "SELECT faults FROM matches")]
    assert all("malformed before hello" in f for f in faults)
