"""``arena test`` and tournaments that play on until their order is settled, through the CLI
with real bot processes and a real results database."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import (
    TEST_BOTS,
    arena,
    copy_bot,
    ctrl_c,
    finish,
    query,
    scratch,
    start_arena,
    stored_count,
    tournament_file,
    wait_until,
)

from arena.botspec import BOTS_DIR
from arena.luck import VERSION as LUCK_VERSION
from arena.referee import TimeControl
from arena.tournament import sequential
from arena.tournament.store import Store
from arena.web.overview import competition
from arena.web.readonly import ReadOnlyStore


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def test_a_clearly_better_bot_is_called_better_stored_and_shown_again(home: Path) -> None:
    db = home / "arena.db"
    args = ("test", "heuristic", "random", "-v", "scat", "--batch", "8", "--db", db, "-q")
    first = arena(*args)
    assert first.returncode == 0, first.stderr
    assert "heuristic is better than random" in first.stdout
    line = next(x for x in first.stdout.splitlines() if x.startswith("test-heuristic-random-scat-2p: deals "))
    assert line.endswith(": better") and "evidence better x" in line
    with Store(db) as store:
        stored = store.count("test-heuristic-random-scat-2p")
        kept = store.tournament_spec("test-heuristic-random-scat-2p") or {}
    assert stored % 2 == 0 and stored >= 16  # whole deals, both seatings each
    assert kept["test"]["margin"] == 0.05 and kept["test"]["new"] == "heuristic"
    shown = arena("test", "heuristic", "random", "--db", db, "--show")
    assert shown.returncode == 0 and shown.stdout.strip() == line
    again = arena(*args)  # decided already: nothing more is played
    assert again.returncode == 0 and line in again.stdout
    with Store(db) as store:
        assert store.count("test-heuristic-random-scat-2p") == stored
    table = json.loads(arena("table", "-t", "test-heuristic-random-scat-2p", "--json", "--db", db).stdout)
    assert [r["bot"] for r in table["standings"]] == ["heuristic", "random"]


@pytest.mark.long(27)
def test_a_test_scored_with_the_luck_taken_out_decides_and_shows_again(home: Path) -> None:
    db = home / "arena.db"
    args = ("test", "heuristic", "random", "-v", "scat", "--luck", "--batch", "8", "--db", db, "-q")
    first = arena(*args)
    assert first.returncode == 0, first.stderr
    assert "heuristic is better than random" in first.stdout
    line = next(x for x in first.stdout.splitlines() if x.startswith("test-heuristic-random-scat-2p: deals "))
    assert arena("test", "heuristic", "random", "--luck", "--db", db, "--show").stdout.strip() == line
    raw = arena("test", "heuristic", "random", "--db", db, "--show").stdout.strip().splitlines()
    assert raw[0].startswith("test-heuristic-random-scat-2p: deals ") and raw[0] != line  # the same deals, raw
    assert raw[1].startswith("(scored without the luck taken out, as asked: the test was played with --luck")
    with Store(db) as store:
        kept = store.tournament_spec("test-heuristic-random-scat-2p") or {}
    assert kept["test"]["luck"] is True
    switched = arena("test", "heuristic", "random", "--max-deals", "200", "--db", db, "-q")  # go on, scored raw
    assert switched.returncode == 2
    assert "test-heuristic-random-scat-2p was played with --luck: go on with it" in switched.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--players", "3"), "a 3-player test needs 1 field bot (--field), not 0"),
        (("--margin", "0.7"), "margin, alpha and beta must each be between 0 and 0.5"),
        (("--show",), "no test 'test-threshold-random-scat-2p'"),
        (("-o", "deck=33"), "deck"),  # refused before any worker starts
        (("-o", "no_such_rule=1"), "no_such_rule"),
    ],
)
def test_test_mistakes_are_one_clear_line(home: Path, extra: tuple[str, ...], message: str) -> None:
    done = arena("test", "threshold", "random", "--db", home / "arena.db", *extra)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.long(30)
def test_a_settled_tournament_stops_once_its_order_is_clear(home: Path) -> None:
    path = tournament_file(home, "settling", ["heuristic", "random"], deals=6,
                           extra="[settle]\nconfidence = 0.95\nmax_matches = 200")
    db = home / "arena.db"
    done = arena("run", path, "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    # 200 matches allow 16 steps of 12: each look is judged at 1 - 0.05 / 16
    assert ("settled: every bot is ahead of the next at 95% (each of up to 16 looks judged at 99.69%, so that all "
            "looks together keep 95%), after 12 deals per table") in done.stdout
    with Store(db) as store:
        assert store.count("settling") == 24  # 6 deals gave too few groups to judge; 6 more settled it
        assert (store.tournament_spec("settling") or {})["deals"] == 12


@pytest.mark.long(35)
def test_a_tournament_can_settle_on_luck_adjusted_comparisons(home: Path) -> None:
    path = tournament_file(home, "lucky", ["heuristic", "random"], deals=6,
                           extra="[settle]\nconfidence = 0.95\nmax_matches = 200\nluck = true")
    db = home / "arena.db"
    done = arena("run", path, "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    assert "settled: every bot is ahead of the next at 95%" in done.stdout
    with Store(db) as store:
        assert (store.tournament_spec("lucky") or {})["settle"]["luck"] is True
        measured = store.luck("lucky", LUCK_VERSION)  # every match up to the last look
        assert len(measured) == store.count("lucky") and all(m is not None for m in measured.values())


def test_an_unsettled_tournament_stops_at_its_limit_and_says_so(home: Path) -> None:
    twin = copy_bot(BOTS_DIR / "random", home / "twin", name="twin")  # equally strong: never separated
    path = tournament_file(home, "capped", ["random", twin], deals=10,
                           extra="[settle]\nconfidence = 0.999\nmax_matches = 30")
    done = arena("run", path, "--db", home / "arena.db", "-q")
    assert done.returncode == 0, done.stderr
    assert "not settled at 99.9% after 10 deals per table (the limit is 30 matches)" in done.stdout


def test_a_field_of_bundled_bots_shares_the_table_with_a_bot_of_another_author(home: Path) -> None:
    """The test's one table seats every bot it names: authors are not kept apart there,
    though the bundled field bots share an author that the new bot does not."""
    mine = copy_bot(BOTS_DIR / "random", home / "mine", name="mine")
    manifest = mine / "bot.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('author = "Thirty-One Arena"',
                                                                       'author = "Someone Else"'), encoding="utf-8")
    done = arena("test", str(mine), "heuristic", "--players", "3", "--field", "random", "-v", "scat",
                 "--max-deals", "8", "--batch", "8", "--db", home / "arena.db", "-q")
    assert done.returncode == 0, done.stderr
    assert "authors apart" not in done.stderr
    with Store(home / "arena.db") as store:
        assert store.matches(), "the test played no match"


@pytest.mark.long(50)
def test_two_copies_of_a_deterministic_bot_are_not_better_and_the_report_says_they_played_alike(
        home: Path) -> None:
    """Every deal level: the old test floored the variance and ended at deal 8 with an LLR of
    -100 and an interval of 0.500 to 0.500; now the level deals move the test only a little
    at a time, and the report says why the verdict came."""
    twin = copy_bot(BOTS_DIR / "threshold", home / "twin", name="twin")
    done = arena("test", str(twin), "threshold", "-v", "scat", "--db", home / "arena.db", "-q")
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if ": deals " in x)
    deals = int(line.split(": deals ")[1].split()[0])
    assert line.endswith(": not better") and deals > 8, line
    assert "every deal ended level" in done.stdout
    assert "(0.500 to 0.500)" not in line


@pytest.mark.parametrize(("new", "base", "title"), [
    ("./rust-scat", "random", r"test-rust-scat\.[0-9a-f]{6}-random-scat-2p"),  # was test-._rust-scat-random-scat-2p
    ("../bots/mine/", "./old", r"test-mine\.[0-9a-f]{6}-old\.[0-9a-f]{6}-scat-2p"),
    ("mine:ab12cd34", "random", r"test-mine_ab12cd34-random-scat-2p"),
])
def test_a_test_is_named_after_its_bots_not_their_paths(new: str, base: str, title: str) -> None:
    assert re.fullmatch(title, sequential.TestPlan(new, base).title), sequential.TestPlan(new, base).title


def test_two_folders_of_one_name_are_two_tests() -> None:
    """``arena test ../v3/mybot ../v2/mybot`` would have resumed an earlier ``../v2/mybot
    ../v1/mybot`` had both been named after the folders' names alone."""
    assert sequential.TestPlan("../v3/mybot", "../v2/mybot").title != \
        sequential.TestPlan("../v2/mybot", "../v1/mybot").title


@pytest.mark.long(30)
def test_base_plays_at_its_own_time_control_and_new_at_the_tests(home: Path) -> None:
    """--base-move-ms gives BASE its own time control (a strength ladder's rung at 15 ms),
    NEW keeping --move-ms: each copy of the clock-watching bot crashes at the start of a
    match that tells its seat another move_ms than it expects, and none does.  Without the
    option BASE is told NEW's 200 ms, and crashes."""
    fast = copy_bot(TEST_BOTS / "clockwatch", home / "fast", name="fast")
    slow = copy_bot(TEST_BOTS / "clockwatch", home / "slow", name="slow")
    (slow / "expect_ms.txt").write_text("15")
    db = home / "arena.db"
    name = sequential.TestPlan(str(fast), str(slow), base_time=TimeControl(move_ms=15)).title
    assert name.endswith("-scat-2p-base15ms")
    done = arena("test", fast, slow, "--move-ms", "200", "--base-move-ms", "15", "--max-deals", "8",
                 "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    with Store(db) as store:
        played = list(store.matches(name))
    assert len(played) == 16 and all(not m.faults for m in played), [m.faults for m in played if m.faults]
    with ReadOnlyStore(db) as store:  # the pages read the test back from its stored settings
        shown = competition(store, name).test
        assert shown is not None and shown.deals == 8
    again = arena("test", fast, slow, "--move-ms", "200", "--max-deals", "8", "--db", db, "-q")
    assert again.returncode == 0, again.stderr
    with Store(db) as store:
        crashed = list(store.matches(sequential.TestPlan(str(fast), str(slow)).title))
    assert crashed and all(m.faults for m in crashed)  # the check means something
    resumed = arena("test", fast, slow, "--move-ms", "200", "--base-move-ms", "30", "--max-deals", "16",
                    "--name", name, "--db", db, "-q")
    assert resumed.returncode == 2 and "own time controls changed" in resumed.stderr, resumed.stderr


def test_a_test_stopped_mid_batch_shows_only_its_complete_deals(home: Path) -> None:
    """Ctrl+C in the middle of a batch, then --show: the verdict rests on the deals played
    in every seating, never on deals whose other seating is still to come (which would
    undo the duplicate deals' balance); the run resumed decides as a whole."""
    slow = copy_bot(TEST_BOTS / "dawdler", home / "dawdler", name="dawdler")
    db = home / "arena.db"
    name = sequential.TestPlan("threshold", str(slow)).title
    first = arena("test", "threshold", slow, "--max-deals", "8", "--db", db, "-q")  # one complete batch
    assert first.returncode == 0, first.stderr
    running = start_arena("test", "threshold", slow, "--max-deals", "16", "--db", db, "-q")
    wait_until(lambda: stored_count(db, name) >= 17, "the second batch's first matches")
    ctrl_c(running)
    finish(running)
    ids = [row[0] for row in query(db, "SELECT id FROM matches WHERE tournament = ?", name)]
    deals = {re.search(r"-d(\d+)r\d+$", i).group(1) for i in ids}  # type: ignore[union-attr]
    complete = sum(1 for d in deals if sum(1 for i in ids if re.search(rf"-d{d}r\d+$", i)) == 2)
    shown = arena("test", "threshold", slow, "--db", db, "--show")
    assert shown.returncode == 0, shown.stderr
    assert re.search(rf": deals {complete} \(", shown.stdout), (complete, len(ids), shown.stdout)
