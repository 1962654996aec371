"""Names that cannot be squatted: bundled names are reserved, a tournament keeps the
versions it first met, and a version string names one program.  Through the real command."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import arena, copy_bot, outcomes, query, scratch, tournament_file

from arena.botspec import BOTS_DIR


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def test_a_bot_submitted_under_a_bundled_name_is_refused_and_the_name_plays_the_bundled_bot(home: Path) -> None:
    """An impostor submitted as ``heuristic`` was accepted, and a tournament naming
    ``heuristic`` then played it instead of the bundled bot."""
    impostor = copy_bot(BOTS_DIR / "random", home / "src" / "heuristic", name="heuristic", variants=["scat"])
    db = home / "arena.db"
    refused = arena("submit", impostor, "--db", db)
    assert refused.returncode == 2 and "is the name of a bundled bot" in refused.stderr
    assert "--name my-heuristic" in refused.stderr
    renamed = arena("submit", impostor, "--db", db, "--name", "my-heuristic")
    assert renamed.returncode == 0, renamed.stderr
    path = tournament_file(home, "real", ["heuristic", "my-heuristic"], [("scat", [2])])
    run = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert run.returncode == 0, run.stderr
    [(copy,)] = query(db, "SELECT path FROM versions WHERE bot = 'heuristic'")
    assert (Path(copy) / "bot.py").read_bytes() == (BOTS_DIR / "heuristic" / "bot.py").read_bytes()


def test_changed_code_under_a_registered_version_string_is_refused(home: Path) -> None:
    bot = copy_bot(BOTS_DIR / "random", home / "src" / "mine", name="mine", variants=["scat"])
    db = home / "arena.db"
    assert arena("submit", bot, "--db", db).returncode == 0
    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "\n# changed\n")
    again = arena("submit", bot, "--db", db)
    assert again.returncode == 2
    assert "mine 1.0.0 is registered already" in again.stderr and "new `version`" in again.stderr
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.0.0"', 'version = "1.0.1"'))
    assert arena("submit", bot, "--db", db).returncode == 0


def test_a_tournament_keeps_the_versions_it_first_met(home: Path) -> None:
    """A folder entrant that changes, or a newer submission, does not change who plays a
    tournament already under way; the run says so."""
    folder = copy_bot(BOTS_DIR / "random", home / "src" / "mine", name="mine", variants=["scat"])
    path = tournament_file(home, "pinned", [folder, "threshold"], [("scat", [2])], deals=1)
    db = home / "arena.db"
    first = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert first.returncode == 0, first.stderr
    (folder / "bot.py").write_text((folder / "bot.py").read_text() + "\n# a new version\n")
    path.write_text(path.read_text().replace("deals = 1", "deals = 2"))  # more matches to play
    second = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert second.returncode == 0, second.stderr
    assert "plays as mine@1.0.0" in second.stderr and "keeps its entrants" in second.stderr
    assert len(outcomes(db, "pinned")) == 4
    played = query(db, "SELECT DISTINCT v.hash FROM seats s JOIN versions v ON v.id = s.version WHERE v.bot = 'mine'")
    assert len(played) == 1, "two versions of one entrant played in one tournament"
