"""``arena play`` in a real terminal, driven through tmux as a person would play it.

Each test starts the real command in a 160x50 tmux pane, reads the screen, picks one of
the numbered actions and types it, and then checks what was stored: a whole match to its
final placements (and its replay with ``arena show``), a refused input that keeps the
turn, Ctrl+C in the middle of a match, and a bot that crashes mid-match.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playpane import Pane, choices, have_tmux, move, over

from arena.tournament.logs import decompress_log
from arena.tournament.store import Store

pytestmark = pytest.mark.skipif(not have_tmux(), reason="tmux is not installed (scripts/setup-test-tools installs it)")

REPO = Path(__file__).resolve().parents[2]
CRASHING = Path(__file__).resolve().parent / "bots" / "crash_second"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=60,
                          cwd=REPO)


@pytest.fixture
def pane(request: pytest.FixtureRequest) -> Iterator[Pane]:
    session = Pane(f"arena-play-test-{os.getpid()}-{request.node.name[:30]}")
    yield session
    session.close()


def play(pane: Pane, tmp_path: Path, *args: str) -> Path:
    """Start ``arena play ARGS`` in the pane, on a fresh database; the database's path."""
    db = tmp_path / "arena.db"
    command = " ".join([sys.executable, "-m", "arena.cli", "play", "--name", "alice", "--db", str(db), *args])
    started = Pane.start(pane.name, command, REPO)
    assert started.name == pane.name
    return db


def next_move(pane: Pane, after: int) -> str:
    """The screen once the move after ``after`` is asked, or the command has exited."""
    return pane.wait(lambda text: over(text) or (move(text) or 0) > after)


def test_a_whole_match_in_the_terminal_is_played_stored_and_replayed(pane: Pane, tmp_path: Path) -> None:
    db = play(pane, tmp_path, "-v", "scat", "-b", "random", "-o", "lives=1", "-o", "free_ride=no", "--seed", "5")
    screen = next_move(pane, 0)
    assert "== scat · round 1 · your move 1 ==" in screen and "North  random" in screen
    assert "Since your last move:" in screen and "You were dealt" in screen

    pane.type("fly", "Enter")  # not an action: explained, and the same move is asked again
    screen = pane.wait(lambda text: "Not taken:" in text and text.rstrip().endswith(">"))
    assert "'fly' is not an action now" in screen and move(screen) == 1

    moves = 0
    while not over(screen):
        moves = move(screen) or moves
        offered = choices(screen)
        wanted = [n for n, action in offered.items() if action in ("knock", "stand")]
        pane.type(str(wanted[0] if wanted else min(offered)), "Enter")
        screen = next_move(pane, moves)
    assert "Final placements:" in screen and "EXIT=0" in screen
    assert "Recorded as match play-0" in screen
    assert moves >= 1

    with Store(db) as store:
        match = store.match("play-0")
        versions = [store.version(s.version).bot for s in match.seats]
    assert match.tournament == "play" and versions == ["@alice", "random"] and match.seed == 5
    assert not match.reason.startswith("abandoned") and sorted(match.placements) == [1, 2]
    shown = arena("show", "play-0", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert "seat 0 (@alice)" in shown.stdout and "match end:" in shown.stdout
    listed = arena("play", "--history", "--name", "alice", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    assert "random" in listed.stdout and "play-0" in listed.stdout


def test_a_number_typed_in_skat_s_auction_is_the_bid_not_the_choice_of_that_number(
        pane: Pane, tmp_path: Path) -> None:
    """Middlehand bids first: ``18`` bid 55 (the 18th choice) and ``20`` bid 60, with no
    confirmation; a number is now the bid, a choice is typed ``#N``."""
    db = play(pane, tmp_path, "-v", "skat", "-b", "random", "-b", "random", "--seat", "2", "--seed", "3")
    screen = next_move(pane, 0)
    assert "Type a bid (18), #N for choice N" in screen, screen
    offered = choices(screen)
    assert offered[18] == "bid 55" and offered[20] == "bid 60"
    pane.type("19", "Enter")  # no bid: refused, the turn kept
    refused = "Not taken: 19 is not a bid you can make now"
    screen = pane.wait(lambda text: refused in text and text.rstrip().endswith(">"))
    assert move(screen) == 1
    pane.type("18", "Enter")
    next_move(pane, 1)
    pane.type("C-c")
    pane.wait(over)
    with Store(db) as store:
        log = decompress_log(store.match("play-0").log)
    mine = [e["action"] for e in log if e["event"] == "action" and e["seat"] == 2]
    assert mine[0] == "bid 18"


def test_ctrl_c_abandons_the_match_records_it_and_kills_the_bots(pane: Pane, tmp_path: Path) -> None:
    db = play(pane, tmp_path, "-v", "scat", "-b", "random", "-b", "random", "-b", "random")
    next_move(pane, 0)
    pane.type("C-c")
    screen = pane.wait(over)
    assert "The match was abandoned: alice left the match (Ctrl+C)." in screen and "EXIT=0" in screen
    with Store(db) as store:
        match = store.match("play-0")
    assert match.reason == "abandoned: alice left the match (Ctrl+C)"
    log = decompress_log(match.log)
    assert [e["event"] for e in log][:2] == ["round_start", "deal"] and log[-1]["event"] == "match_end"
    left = [line for line in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
            if str(tmp_path) in line and "tmux" not in line and "sleep" not in line]
    assert left == []  # the bots ran from copies beside the database: none is running any more


def test_a_bot_that_crashes_mid_match_ends_it_with_a_plain_message(pane: Pane, tmp_path: Path) -> None:
    db = play(pane, tmp_path, "-v", "scat", "--seat", "1", "-b", str(CRASHING), "-o", "lives=2")
    screen = next_move(pane, 0)
    while not over(screen):
        pane.type("1", "Enter")
        screen = next_move(pane, move(screen) or 0)
    assert "North left the match: its bot failed." in screen
    assert "North (crash-second) stopped playing: its bot faulted (crash: exited with status 3" in screen
    assert "Final placements:" in screen and "1.  You" in screen
    with Store(db) as store:
        match = store.match("play-0")
    assert [(f["seat"], f["kind"]) for f in match.faults] == [(0, "crash")]
    assert match.reason == "every other player forfeited"
