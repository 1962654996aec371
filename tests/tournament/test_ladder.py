"""The ladder (``arena ladder FILE``) as an operator runs it: real bot processes, a real
database, the real command; the rule that no table seats two bots of one author checked
over every stored match."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import arena, copy_bot, finish, query, scratch, start_arena, stored_count, tournament_file, wait_until

from arena.botspec import BOTS_DIR


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def authored(home: Path, name: str, author: str) -> Path:
    folder = copy_bot(BOTS_DIR / "random", home / name, name=name, variants=["scat"])
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('author = "Thirty-One Arena"',
                                                                       f'author = "{author}"'), encoding="utf-8")
    return folder


def ladder_file(home: Path, bots: list[Path]) -> Path:
    return tournament_file(home, "ladder-test", bots, extra='mode = "ladder"\nopen = true', move_ms=5000)


def seats(db: Path) -> dict[str, list[tuple[str, str, int]]]:
    """Match id -> (bot, author, version id) per seat, for every ladder match."""
    found: dict[str, list[tuple[str, str, int]]] = {}
    for match, bot, manifest, version in query(
            db, "SELECT s.match, v.bot, v.manifest, v.id FROM seats s JOIN versions v ON v.id = s.version "
                "JOIN matches m ON m.id = s.match WHERE m.tournament = 'ladder-test'"):
        found.setdefault(match, []).append((bot, json.loads(manifest)["author"], version))
    return found


def test_the_ladder_never_seats_two_bots_of_one_author_and_plays_every_rotation(home: Path) -> None:
    bots = [authored(home, f"{who}-{i}", who) for who in ("ann", "bob", "cy") for i in (1, 2)]
    db = home / "arena.db"
    done = arena("ladder", ladder_file(home, bots), "--matches", "24", "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    played = seats(db)
    assert len(played) == 24
    for match, table in played.items():
        assert len({author for _, author, _ in table}) == len(table), (match, table)
    deals = query(db, "SELECT seq FROM matches WHERE tournament = 'ladder-test' ORDER BY seq")
    assert len(deals) == 24 and len({bot for table in played.values() for bot, _, _ in table}) == 6, \
        "the least-played, most uncertain versions seed the tables: all six play in 24 matches"


def test_a_new_version_joins_the_running_ladder_and_the_one_it_replaces_stops(home: Path) -> None:
    bots = [authored(home, f"{who}-1", who) for who in ("ann", "bob", "cy")]
    db = home / "arena.db"
    path = ladder_file(home, bots)
    assert arena("ladder", path, "--matches", "12", "--db", db, "-q").returncode == 0
    old = {v for table in seats(db).values() for bot, _, v in table if bot == "ann-1"}
    before = set(seats(db))
    manifest = bots[0] / "bot.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('version = "1.0.0"', 'version = "2.0.0"'),
                        encoding="utf-8")
    (bots[0] / "bot.py").write_text((bots[0] / "bot.py").read_text(encoding="utf-8") + "\n# version 2\n",
                                    encoding="utf-8")
    assert arena("submit", bots[0], "--db", db).returncode == 0
    done = arena("ladder", path, "--matches", "12", "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    later = {m: table for m, table in seats(db).items() if m not in before}
    versions = {v for table in later.values() for bot, _, v in table if bot == "ann-1"}
    assert versions and not versions & old, "the new version plays; the one it replaced no more"
    assert len(seats(db)) == 24, "the old version's matches stay"


def test_a_ladder_killed_at_any_moment_resumes_without_losing_or_doubling_a_match(home: Path) -> None:
    bots = [authored(home, f"{who}-1", who) for who in ("ann", "bob", "cy")]
    db = home / "arena.db"
    path = ladder_file(home, bots)
    running = start_arena("ladder", path, "--db", db, "-q")
    try:
        wait_until(lambda: stored_count(db, "ladder-test") >= 4, "the ladder under way")
    finally:
        running.send_signal(signal.SIGKILL)
        finish(running)
    kept = stored_count(db, "ladder-test")
    done = arena("ladder", path, "--matches", "6", "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    assert stored_count(db, "ladder-test") == kept + 6
    sequences = [s for (s,) in query(db, "SELECT seq FROM matches WHERE tournament = 'ladder-test'")]
    assert len(sequences) == len(set(sequences)), "no match stored twice"


def test_a_ladder_file_is_not_a_round_robin_and_says_which_command_plays_it(home: Path) -> None:
    path = ladder_file(home, [authored(home, "ann-1", "ann"), authored(home, "bob-1", "bob")])
    done = arena("run", path, "--db", home / "arena.db")
    assert done.returncode == 2 and "is a ladder" in done.stderr and "arena ladder" in done.stderr, done.stderr


@pytest.mark.long(27)
def test_a_version_that_keeps_faulting_is_paused_and_a_new_version_plays_again(home: Path) -> None:
    bots = [authored(home, f"{who}-1", who) for who in ("ann", "bob")]
    faulty = authored(home, "cy-1", "cy")
    (faulty / "bot.py").write_text("from arena.sdk import hookimpl\n\n\n@hookimpl\n"
                                   "def choose(legal: list[str]) -> str:\n    return 'not a move'\n", encoding="utf-8")
    db = home / "arena.db"
    path = tournament_file(home, "ladder-test", [*bots, faulty], move_ms=5000,
                           extra='mode = "ladder"\nopen = true\npause = { faulted = 2, of = 4 }')
    done = arena("ladder", path, "--matches", "40", "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    order = sorted(seats(db).items(), key=lambda item: int(query(db, "SELECT seq FROM matches WHERE id = ?",
                                                                  item[0])[0][0]))
    with_faulty = [i for i, (_, table) in enumerate(order) if any(bot == "cy-1" for bot, _, _ in table)]
    assert len(with_faulty) >= 2 and with_faulty[-1] < len(order) - 10, (with_faulty, len(order))
    (faulty / "bot.py").write_text((BOTS_DIR / "random" / "bot.py").read_text(encoding="utf-8"), encoding="utf-8")
    manifest = faulty / "bot.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('version = "1.0.0"', 'version = "2.0.0"'),
                        encoding="utf-8")
    assert arena("submit", faulty, "--db", db).returncode == 0
    before = set(seats(db))
    assert arena("ladder", path, "--matches", "12", "--db", db, "-q").returncode == 0
    assert any(bot == "cy-1" for m, table in seats(db).items() if m not in before for bot, _, _ in table)
