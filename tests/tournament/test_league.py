"""``arena league`` through the real command: matches among the registered bots, stored
under the tournament ``league``, stopped by Ctrl+C and continued by the next invocation,
rated as they go."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import (
    arena,
    copy_bot,
    ctrl_c,
    descendants,
    finish,
    no_bots_left,
    no_processes_left,
    outcomes,
    scratch,
    start_arena,
    stored_count,
    wait_until,
)

from arena.botspec import BOTS_DIR, load_manifest
from arena.tournament.ratings import ratings
from arena.tournament.registry import install
from arena.tournament.store import Store


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


@pytest.fixture
def db(home: Path) -> Path:
    """A database with three registered bots: random, threshold and lucky (random renamed)."""
    path = home / "arena.db"
    with Store(path) as store:
        for name, source in (("random", "random"), ("threshold", "threshold"), ("lucky", "random")):
            install(store, load_manifest(copy_bot(BOTS_DIR / source, home / "src" / name, name=name)))
    return path


def league(db: Path, *args: str) -> str:
    result = arena("league", "--variant", "scat", "--players", "2", "--move-ms", "2000", "--workers", "1", "--db", db,
                    "-q", *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def rated(db: Path) -> dict[str, tuple[float, float, int]]:
    with Store(db) as store:
        names = {v.id: v.bot for v in store.versions(withdrawn=True)}
        return {names[v]: (r.mu, r.sigma, r.matches) for v, r in ratings(store, "league").items()}


def test_the_league_plays_what_is_asked_stops_on_ctrl_c_and_the_next_run_continues(home: Path, db: Path) -> None:
    out = league(db, "--matches", "3")
    assert "league: 3 matches played" in out and "3/3 scheduled matches stored (complete)" in out
    first = outcomes(db, "league")
    assert len(first) == 3 and all(len(seats) == 2 for seats in first.values())
    assert sorted(first) == ["league-scat-2p-d0r0", "league-scat-2p-d0r1", "league-scat-2p-d2r0"]
    before = rated(db)
    assert sum(n for _, _, n in before.values()) == 3 * 2

    endless = start_arena("league", "--variant", "scat", "--players", "2", "--matches", "0", "--workers", "1",
                          "--db", db, "-q")
    wait_until(lambda: stored_count(db, "league") >= 5, "two more league matches")
    run = descendants(endless.pid)
    ctrl_c(endless)
    status, _, err = finish(endless)
    assert status == 130, err
    kept = outcomes(db, "league")
    assert f"stopped: every bot was killed; {len(kept)} league matches are kept" in err
    no_processes_left(run)
    no_bots_left(home)
    assert {m: kept[m] for m in first} == first

    out = league(db, "--matches", "4")
    assert "league: 4 matches played" in out
    after = outcomes(db, "league")
    assert len(after) == len(kept) + 4 and {m: after[m] for m in kept} == kept  # new ids only
    rated_now = rated(db)
    assert rated_now != before and sum(n for _, _, n in rated_now.values()) == len(after) * 2
    assert set(rated_now) == {"random", "threshold", "lucky"}  # the least-played bot always gets a table
    with Store(db) as store:
        assert {m.tournament for m in store.matches("league")} == {"league"}


def test_a_withdrawn_bot_leaves_the_league_and_too_few_bots_are_refused(db: Path) -> None:
    assert arena("withdraw", "lucky", "--db", db).returncode == 0
    league(db, "--matches", "2")
    assert {bot for seats in outcomes(db, "league").values() for bot, _ in seats} == {"random", "threshold"}

    refused = arena("league", "--variant", "scat", "--players", "3", "--matches", "1", "--db", db)
    assert refused.returncode == 2
    assert "the league needs at least 3 registered bots that play scat, it has 2" in refused.stderr
    assert len(outcomes(db, "league")) == 2


def test_a_league_asked_to_settle_says_whether_it_did(db: Path) -> None:
    """random and lucky are the same program: no number of matches orders them, so the league
    plays every match asked for and says the order is not settled."""
    out = league(db, "--matches", "6", "--settle", "0.95")
    assert "league: 6 matches played" in out and "not settled at 95% within 6 matches" in out
