"""Names that cannot be squatted: bundled names are reserved, a tournament keeps the
versions it first met, and a version string names one program.  Through the real command."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import arena, copy_bot, outcomes, query, scratch, table_rows, tournament_file

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


def test_a_tournament_resumes_when_a_pinned_entrant_s_folder_is_gone(home: Path) -> None:
    """The file's entrants are checked before a run, all at once; a name the first run
    pinned to a version still plays that version when its folder has moved away."""
    folder = copy_bot(BOTS_DIR / "random", home / "src" / "gone", name="gone", variants=["scat"])
    path = tournament_file(home, "moved", [folder, "threshold"], [("scat", [2])], deals=1)
    db = home / "arena.db"
    assert arena("run", path, "--db", db, "-q", "--workers", "1").returncode == 0
    folder.rename(home / "elsewhere")
    path.write_text(path.read_text().replace("deals = 1", "deals = 2"))
    again = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert len(outcomes(db, "moved")) == 4


@pytest.mark.parametrize(("name", "reserved"), [("heuristic.", "heuristic"), ("heuristic-", "heuristic"),
                                                ("heuristic_", "heuristic"), ("heuristic..", "heuristic"),
                                                ("heu-ristic", "heuristic"), ("ran_dom", "random")])
def test_a_name_that_reads_as_a_bundled_name_is_refused_naming_it(home: Path, name: str, reserved: str) -> None:
    """Case, '.', '-' and '_' aside, ``heuristic.`` is ``heuristic`` to anyone reading a
    table; it was accepted, and passed for the bundled bot."""
    impostor = copy_bot(BOTS_DIR / "random", home / "src" / "impostor", name=name, variants=["scat"])
    db = home / "arena.db"
    refused = arena("submit", impostor, "--db", db)
    assert refused.returncode == 2, refused.stderr
    assert f"{name!r} reads as {reserved!r}, the name of a bundled bot" in refused.stderr, refused.stderr
    assert table_rows(db, "versions") == []
    by_option = arena("submit", copy_bot(BOTS_DIR / "random", home / "src" / "mine", name="mine", variants=["scat"]),
                      "--db", db, "--name", name)
    assert by_option.returncode == 2 and f"reads as {reserved!r}" in by_option.stderr, by_option.stderr


def test_a_name_that_reads_as_another_registered_bot_is_refused_and_a_new_version_is_taken(home: Path) -> None:
    """``my-bot`` beside a registered ``mybot`` would be told apart by punctuation alone; a
    new version of ``mybot`` itself is what resubmitting is for."""
    db = home / "arena.db"
    first = copy_bot(BOTS_DIR / "random", home / "src" / "mybot", name="mybot", variants=["scat"])
    assert arena("submit", first, "--db", db).returncode == 0
    other = copy_bot(BOTS_DIR / "random", home / "src" / "other", name="my-bot", variants=["scat"])
    (other / "bot.py").write_text((other / "bot.py").read_text() + "\n# someone else's\n")
    refused = arena("submit", other, "--db", db)
    assert refused.returncode == 2, refused.stderr
    assert "'my-bot' reads as 'mybot', a registered bot" in refused.stderr, refused.stderr
    assert arena("submit", other, "--db", db, "--name", "my_bot.").returncode == 2
    manifest = first / "bot.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.0.0"', 'version = "1.0.1"'))
    (first / "bot.py").write_text((first / "bot.py").read_text() + "\n# the next version\n")
    again = arena("submit", first, "--db", db)
    assert again.returncode == 0, again.stderr
    assert query(db, "SELECT bot, label FROM versions ORDER BY id") == [("mybot", "mybot@1.0.0"),
                                                                         ("mybot", "mybot@1.0.1")]


def test_a_bot_name_ending_in_a_newline_is_refused(home: Path) -> None:
    """The name pattern ended in ``$``, which also matches before a final newline: ``arena
    new-bot`` checks the name alone before writing anything."""
    refused = arena("new-bot", "mine\n", "--dir", home / "mine")
    assert refused.returncode == 2, refused.stderr
    assert "name 'mine\\n' must be lower-case letters, digits" in refused.stderr, refused.stderr
    assert not (home / "mine").exists()
    submitted = arena("submit", copy_bot(BOTS_DIR / "random", home / "src", variants=["scat"]), "--db",
                      home / "arena.db", "--name", "mine\n")
    assert submitted.returncode == 2 and "--name 'mine\\n'" in submitted.stderr, submitted.stderr


def test_a_person_name_ending_in_a_newline_is_refused(home: Path) -> None:
    db = home / "arena.db"
    assert arena("bots", "--db", db).returncode == 0  # the database exists: only the name can be refused
    refused = arena("play", "--name", "carol\n", "--history", "--db", db)
    assert refused.returncode == 2, (refused.stdout, refused.stderr)
    assert "--name 'carol\\n': a person's name is letters, digits" in refused.stderr, refused.stderr
    assert arena("play", "--name", "carol", "--history", "--db", db).returncode == 0


def test_a_manifest_nested_too_deep_to_read_is_refused_in_one_message(home: Path) -> None:
    """tomllib reads nesting by recursion: 100,000 levels raised RecursionError, a traceback
    instead of a refusal."""
    bot = copy_bot(BOTS_DIR / "random", home / "src" / "mine", name="mine", variants=["scat"])
    with (bot / "bot.toml").open("a") as manifest:
        manifest.write("notes = " + "[" * 100_000 + "]" * 100_000 + "\n")
    refused = arena("submit", bot, "--db", home / "arena.db")
    assert refused.returncode == 2, refused.stderr
    assert "not valid TOML: arrays and tables nested deeper than 16 levels" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_manifest_with_a_dotted_key_of_many_parts_is_refused_before_it_is_read(home: Path) -> None:
    """tomllib builds a dotted key in memory quadratic in its parts: 8,000 parts took 270 MB,
    40,000 about 6 GB, from a manifest of a few hundred kilobytes."""
    bot = copy_bot(BOTS_DIR / "random", home / "src" / "mine", name="mine", variants=["scat"])
    with (bot / "bot.toml").open("a") as manifest:
        manifest.write(".".join(["a"] * 40_000) + " = 1\n")
    refused = arena("submit", bot, "--db", home / "arena.db")
    assert refused.returncode == 2, refused.stderr
    assert "not valid TOML: a dotted key nested deeper than 16 tables" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize("name", ["heuristic", "random.", "thresh_old"])
def test_a_folder_entrant_under_a_bundled_name_is_refused(home: Path, name: str) -> None:
    """``arena submit`` refused the name, but a tournament file naming the folder installed
    it as ``heuristic``, beside (and passing for) the bundled bot."""
    impostor = copy_bot(BOTS_DIR / "random", home / "src" / "impostor", name=name, variants=["scat"])
    db = home / "arena.db"
    path = tournament_file(home, "squat", [impostor, "random"], [("scat", [2])])
    run = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert run.returncode == 2, run.stderr
    assert f"{impostor}: its bot.toml names it {name!r}" in run.stderr and "bundled bot" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.splitlines()) <= 2, run.stderr
    assert query(db, "SELECT bot FROM versions WHERE bot = ?", name) == []
