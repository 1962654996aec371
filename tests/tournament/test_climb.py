"""``arena climb``: the strength ladder through the CLI, with real bots and a real database."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import arena, scratch

from arena.tournament import sequential
from arena.tournament.climb import LADDER_TIME, STRENGTH_LADDER, Rung, rung_plan, rungs_for
from arena.tournament.store import Store


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def _cells(row: str) -> list[str]:
    return re.split(r"\s{2,}", row.strip())


def test_a_bot_climbs_past_the_rungs_it_beats_and_stops_at_itself(home: Path) -> None:
    """threshold beats random, then meets itself on the next rung: the climb stops there,
    says how far it got, and each rung's test is stored under its own name."""
    db = home / "arena.db"
    done = arena("climb", "threshold", "-v", "scat", "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    rows = [_cells(line) for line in lines if line.startswith(("random at", "threshold at"))]
    assert rows[0][0] == "random at 200 ms" and rows[0][-1] == "better"
    assert rows[1][0] == "threshold at 200 ms" and rows[1][-1] == "the climber itself"
    assert len(rows) == 2  # no rung above the one it could not be tested against
    assert lines[-1] == ("threshold is better than random at 200 ms; the next rung, threshold at 200 ms, is "
                         "threshold itself")
    name = rung_plan(sequential.TestPlan("threshold", "random", time=LADDER_TIME), STRENGTH_LADDER[0]).title
    assert re.fullmatch(r"climb-threshold-random-scat-2p-200ms-[0-9a-f]{8}", name)
    with Store(db) as store:
        played = store.count(name)
    assert played >= 16
    again = arena("climb", "threshold", "-v", "scat", "--db", db, "-q")  # decided: the stored verdict stands
    assert again.returncode == 0 and again.stdout.splitlines()[-1] == lines[-1]
    with Store(db) as store:
        assert store.count(name) == played


def test_a_climb_can_score_its_rungs_with_the_luck_taken_out(home: Path) -> None:
    """--luck: each rung's test scores its deals with the cards' luck taken out, stored
    apart from the raw climb's (one test, one scoring)."""
    db = home / "arena.db"
    done = arena("climb", "threshold", "-v", "scat", "--luck", "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("threshold is better than random at 200 ms")
    name = rung_plan(sequential.TestPlan("threshold", "random", time=LADDER_TIME, luck=True), STRENGTH_LADDER[0]).title
    assert re.fullmatch(r"climb-threshold-random-scat-2p-200ms-luck-[0-9a-f]{8}", name)
    with Store(db) as store:
        assert (store.tournament_spec(name) or {})["test"]["luck"] is True
        assert store.count(name) >= 16


def test_rungs_that_do_not_play_the_variant_are_skipped_and_named(home: Path) -> None:
    done = arena("climb", "random", "-v", "fifty-one", "--db", home / "arena.db", "-q")
    assert done.returncode == 0, done.stderr
    skipped = next(line for line in done.stdout.splitlines() if line.startswith("skipped"))
    assert "threshold at 200 ms" in skipped and "heuristic" not in skipped and "ismcts" not in skipped
    assert done.stdout.splitlines()[-1] == ("random is not shown better than any rung; the next rung, random at "
                                           "200 ms, is random itself")


@pytest.mark.parametrize(("extra", "message"), [
    (("-v", "skat"), "needs 1 field bot"),
    (("-v", "skat", "--field", "heuristic"), "arena submit bots/heuristic --name heuristic-field"),
    (("-v", "scat", "-o", "lives=abc"), "lives"),
    (("-v", "nosuch"), "unknown variant"),
])
def test_climb_mistakes_are_one_clear_line(home: Path, extra: tuple[str, ...], message: str) -> None:
    done = arena("climb", "tracker", *extra, "--db", home / "arena.db")
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (home / "arena.db").exists() or "deals" not in done.stdout  # nothing was played


def test_each_rung_has_its_own_test_name_and_time() -> None:
    """The climber keeps its time control on every rung; a rung's bot plays at its own."""
    plan = sequential.TestPlan("./bots/mine", "random", "scat", time=LADDER_TIME)
    top = rung_plan(plan, Rung("ismcts", 50))
    assert top.base == "ismcts" and top.new == "./bots/mine" and top.time == LADDER_TIME
    assert top.base_time is not None and top.base_time.move_ms == 50 and top.base_time.bank_ms == LADDER_TIME.bank_ms
    assert rung_plan(plan, Rung("heuristic", LADDER_TIME.move_ms)).base_time is None
    assert top.spec(8).entrant_time == {"ismcts": top.base_time}
    assert top.title.startswith("climb-mine.")  # no such folder: no hash
    assert top.title.endswith("-ismcts-scat-2p-50ms-vs200ms")
    names = {rung_plan(plan, rung).title for rung in STRENGTH_LADDER}
    assert len(names) == len(STRENGTH_LADDER)
    named = sequential.TestPlan("mine", "random", name="night", time=LADDER_TIME)
    assert rung_plan(named, Rung("heuristic", 200)).title == "night-heuristic-scat-2p-200ms"
    playing, skipped = rungs_for("skat")
    assert [r.bot for r in skipped] == ["threshold"] and playing[0] == STRENGTH_LADDER[0]
