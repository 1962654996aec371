"""``arena run`` end to end: real bot processes, a real SQLite store, the real command.

Results are read back from the store.  The bots are deterministic (``random`` seeds
itself from the match id and its seat; ``threshold`` has no randomness), so a run that
was killed or stopped and then resumed must store exactly what an uninterrupted run does.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
from collections import defaultdict
from collections.abc import Callable, Iterator
from itertools import combinations
from pathlib import Path

import pytest
from tourney import (
    REFEREE_BOTS,
    TEST_BOTS,
    arena,
    copy_bot,
    ctrl_c,
    descendants,
    finish,
    kill,
    no_bots_left,
    no_processes_left,
    outcomes,
    query,
    scratch,
    start_arena,
    stored_count,
    table_rows,
    tournament_file,
    wait_until,
)

from arena.botspec import BOTS_DIR
from arena.tournament.logs import decompress_log
from arena.tournament.runner import entrants
from arena.tournament.scheduler import schedule
from arena.tournament.spec import load_spec
from arena.tournament.store import Store

ID = re.compile(r"^(?P<table>[^-]+-(?P<variant>[a-z-]+)-(?P<players>\d+)p-[0-9a-f]{8})-d(?P<deal>\d+)r\d+$")
"""A match id, ``T-variant-Np-<hash8>-dDrR`` (these tests name tournaments without dashes)."""


@pytest.fixture(scope="module")
def shared() -> Iterator[Path]:
    yield from scratch()


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


@pytest.fixture(scope="module")
def bots(shared: Path) -> dict[str, Path]:
    """Copies of the bundled bots: ``random``, ``threshold`` and ``lucky`` (random renamed)."""
    folder = shared / "bots"
    return {
        "random": copy_bot(BOTS_DIR / "random", folder / "random"),
        "threshold": copy_bot(BOTS_DIR / "threshold", folder / "threshold"),
        "lucky": copy_bot(BOTS_DIR / "random", folder / "lucky", name="lucky"),
    }


def ratings_by_bot(db: Path, scope: str) -> dict[str, tuple[float, float, int]]:
    """The cached ratings of a scope (``tournament/*``, ``tournament/variant``) by bot name."""
    rows = query(db, "SELECT v.bot, r.mu, r.sigma, r.matches FROM ratings r JOIN versions v ON v.id = r.version"
                 " WHERE r.scope = ?", scope)
    return {bot: (mu, sigma, n) for bot, mu, sigma, n in rows}


def scheduled_ids(path: Path, db: Path) -> set[str]:
    """The match ids the scheduler makes of a tournament file with the versions ``db`` holds."""
    spec = load_spec(path)
    with Store(db) as store:
        playing = entrants(spec, store)
        key = store.deal_key(spec.name)
        assert key is not None
        return {m.id for table in schedule(spec, playing.versions, key, playing.challenger) for m in table.matches}


def first_deals(db: Path) -> dict[str, str]:
    """Each stored match's first deal as its log records it (every seat's cards)."""
    return {match: json.dumps(next(e for e in decompress_log(log) if e["event"] == "deal"), sort_keys=True)
            for match, log in query(db, "SELECT id, log FROM matches")}


def run_ok(path: Path, db: Path, *args: str) -> str:
    """``arena run`` to completion on one referee worker (the round-robin test uses one per
    core); its stdout."""
    result = arena("run", path, "--db", db, "-q", "--workers", "1", *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


# -- a whole tournament -----------------------------------------------------------------------


def test_round_robin_stores_every_scheduled_match_once_with_rotations_and_duplicate_deals(
    home: Path, bots: dict[str, Path]
) -> None:
    path = tournament_file(home, "rr", list(bots.values()), [("scat", [2, 3, 4])], deals=2)
    db = home / "arena.db"
    result = arena("run", path, "--db", db, "-q")  # one referee worker per core
    assert result.returncode == 0, result.stderr
    assert "no tables of scat for 4: too few of the entrants play them" in result.stderr
    assert "18/18 scheduled matches stored (complete)" in result.stdout
    stored = outcomes(db, "rr")
    assert len(stored) == 3 * 2 * 2 + 1 * 2 * 3  # 3 pairs, 2 deals, 2 rotations; 1 trio, 2 deals, 3 rotations
    assert set(stored) == scheduled_ids(path, db)

    deals: dict[tuple[str, str], list[tuple[str, ...]]] = defaultdict(list)
    for match_id, seats in stored.items():
        parts = ID.match(match_id)
        assert parts is not None, match_id
        assert len(seats) == int(parts["players"])
        assert sorted(p for _, p in seats)[0] == 1  # someone won
        deals[(parts["table"], parts["deal"])].append(tuple(bot for bot, _ in seats))
    for (table, deal), seatings in deals.items():
        players = len(seatings[0])
        assert len(seatings) == players, f"{table} deal {deal}: one match per rotation"
        field = set(seatings[0])
        assert all(set(s) == field and len(s) == players for s in seatings)
        for seat in range(players):  # each bot in each seat exactly once per deal
            assert {s[seat] for s in seatings} == field, f"{table} deal {deal} seat {seat}"

    by_deal: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for match_id, dealt in first_deals(db).items():
        parts = ID.match(match_id)
        assert parts is not None
        by_deal[(parts["variant"], parts["players"], parts["deal"])].add(dealt)
    # the same deal in every rotation and at every table of a variant and size ...
    assert all(len(found) == 1 for found in by_deal.values()), by_deal
    # ... and different deals and table sizes get other cards
    assert len({next(iter(found)) for found in by_deal.values()}) == len(by_deal) == 4

    again = run_ok(path, db)
    assert "0 matches played" in again and "18/18 scheduled matches stored (complete)" in again
    assert outcomes(db, "rr") == stored
    no_bots_left(home)


def test_gauntlet_puts_the_challenger_at_every_table(home: Path, bots: dict[str, Path]) -> None:
    dice = copy_bot(BOTS_DIR / "random", home / "dice", name="dice")
    path = tournament_file(home, "gauntlet", [bots["random"], bots["lucky"], dice], [("scat", [3])],
                           extra=f'mode = "gauntlet"\nchallenger = "{bots["threshold"]}"')
    db = home / "arena.db"
    run_ok(path, db)
    stored = outcomes(db, "gauntlet")
    assert set(stored) == scheduled_ids(path, db)
    assert len(stored) == 3 * 3  # the challenger with each pair of the other three, in 3 rotations
    fields = {frozenset(bot for bot, _ in seats) for seats in stored.values()}
    assert fields == {frozenset({"threshold", *pair}) for pair in combinations(["random", "lucky", "dice"], 2)}


# -- stopping and resuming ------------------------------------------------------------------------


def resume_file(folder: Path, bots: dict[str, Path], deals: int = 3) -> Path:
    """18 matches (6 per deal): three pairs of bots at scat on three deals; the dawdler makes
    them slow enough to be stopped halfway.  random and threshold share an author:
    ``authors_apart = false`` keeps their pair in."""
    entrants = [bots["random"], bots["threshold"], TEST_BOTS / "dawdler"]
    return tournament_file(folder, "resume", entrants, [("scat", [2])], deals=deals, extra="authors_apart = false")


def started_slowly(path: Path, db: Path, *args: str | Path) -> subprocess.Popen[str]:
    """``arena run`` one match at a time, so a stop finds most of the tournament unplayed."""
    return start_arena("run", path, "--db", db, "-q", "--workers", "1", "--concurrency", "1", *args)


def key_file(folder: Path) -> Path:
    """A deal key in a file, for ``--key-file``: two databases then play the same deals."""
    path = folder / "deal.key"
    if not path.exists():
        path.write_text(bytes(range(32)).hex() + "\n", encoding="utf-8")
    return path


def worker_of(run: set[tuple[int, int]]) -> int:
    """The referee worker among a run's processes (bots may have ended meanwhile)."""
    def command(pid: int) -> str:
        try:
            return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
        except OSError:
            return ""

    [pid] = [pid for pid, _ in run if "arena.tournament.worker" in command(pid)]
    return pid


@pytest.mark.long(28)
def test_a_run_stopped_every_way_resumes_to_the_results_of_an_uninterrupted_run(
    shared: Path, home: Path, bots: dict[str, Path]
) -> None:
    (shared / "straight").mkdir()
    straight = shared / "straight" / "arena.db"
    key = key_file(shared)
    run_ok(resume_file(shared / "straight", bots), straight, "--key-file", str(key))
    expected = outcomes(straight, "resume")
    assert len(expected) == 18
    path, db = resume_file(home, bots), home / "arena.db"

    def stopped(how: Callable[[subprocess.Popen[str], set[tuple[int, int]]], None]) -> tuple[int, str]:
        """Start a run, stop it ``how`` once two more matches are stored; its status and
        stderr, after checking that it left nothing running and stored only whole matches."""
        before = stored_count(db, "resume")
        process = started_slowly(path, db, "--key-file", str(key))
        wait_until(lambda: stored_count(db, "resume") >= before + 2, "two more stored matches")
        run = descendants(process.pid)
        how(process, run)
        status, _, err = finish(process)
        no_processes_left(run)
        no_bots_left(home)
        kept = outcomes(db, "resume")
        assert before + 2 <= len(kept) < 18
        assert all(expected[m] == seats for m, seats in kept.items())  # each one whole, as it would have been
        return status, err

    # the runner killed outright (kill -9, the OOM killer): its worker and bots go with it
    status, _ = stopped(lambda process, _: kill(process))
    assert status == -signal.SIGKILL

    # Ctrl+C: every bot killed, the finished matches kept, and how to resume
    status, err = stopped(lambda process, _: ctrl_c(process))
    assert status == 130, err
    assert f"{stored_count(db, 'resume')} finished matches are kept" in err
    assert f"Run `arena run {path} --db {db}` again to resume" in err  # the database it used, not the default

    # a referee worker killed: another takes its place and plays its table on from the first
    # unfinished match, to the same results
    before = stored_count(db, "resume")
    process = started_slowly(path, db)
    wait_until(lambda: stored_count(db, "resume") >= before + 2, "two more stored matches")
    run = descendants(process.pid)
    os.kill(worker_of(run), signal.SIGKILL)
    status, out, err = finish(process)
    assert status == 0, err
    assert "18/18 scheduled matches stored (complete)" in out and "Traceback" not in err
    no_processes_left(run)
    no_bots_left(home)

    left = 18 - stored_count(db, "resume")
    out = run_ok(path, db)
    assert f"{left} matches played" in out and "18/18 scheduled matches stored (complete)" in out
    assert outcomes(db, "resume") == expected
    for scope in ("resume/*", "resume/scat"):
        assert ratings_by_bot(db, scope) == ratings_by_bot(straight, scope)


@pytest.mark.long(30)
def test_a_table_whose_workers_keep_dying_is_given_up_and_said_so(home: Path, bots: dict[str, Path]) -> None:
    """A table is played again on a fresh worker when its worker dies; after three deaths
    it is given up, never dropped in silence: the run says which matches were not played
    and exits with an error, and a later run plays them."""
    path = tournament_file(home, "doomed", [bots["random"], TEST_BOTS / "dawdler"], [("scat", [2])], deals=2)
    db = home / "arena.db"
    process = started_slowly(path, db)
    killed: set[int] = set()
    found: list[int] = []

    def playing() -> bool:
        """Whether a worker not yet killed runs bots; it is then in ``found``."""
        run = descendants(process.pid)
        workers = [pid for pid, _ in run if "arena.tournament.worker" in _cmdline(pid) and pid not in killed]
        if workers and any("arena.bothost" in _cmdline(pid) for pid, _ in descendants(workers[0])):
            found.append(workers[0])
            return True
        return False

    for _ in range(3):  # ATTEMPTS
        wait_until(playing, "a worker playing the table")
        os.kill(found[-1], signal.SIGKILL)
        killed.add(found[-1])
    status, out, err = finish(process)
    assert status == 2, err
    missing = 4 - stored_count(db, "doomed")
    assert missing > 0
    assert "3 referee workers died playing it; the last was killed by SIGKILL" in err
    assert f"{missing} matches of 1 table(s) were not played" in err and "Traceback" not in err
    assert "/4 scheduled matches stored (incomplete)" in out
    no_bots_left(home)
    again = run_ok(path, db)
    assert f"{missing} matches played" in again and "4/4 scheduled matches stored (complete)" in again


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def test_a_held_lock_refuses_the_run_and_changes_nothing(home: Path, bots: dict[str, Path]) -> None:
    path, db = resume_file(home, bots), home / "arena.db"
    with Store(db) as store, store.hold("resume"):  # as another run of it would
        result = arena("run", path, "--db", db, "-q")
    assert result.returncode == 2
    assert "tournament 'resume' is already running" in result.stderr
    for table in ("versions", "tournaments", "matches", "ratings"):
        assert table_rows(db, table) == [], table
    assert not (home / "registry").exists()


def test_a_changed_time_control_is_refused_once_matches_were_played(home: Path, bots: dict[str, Path]) -> None:
    """Resuming under another clock would rank matches played under two rules together."""
    entrants = [bots["random"], bots["threshold"]]
    path, db = tournament_file(home, "clock", entrants), home / "arena.db"
    assert arena("run", path, "--db", db, "-q").returncode == 0
    played = stored_count(db, "clock")
    tournament_file(home, "clock", entrants, move_ms=300)
    result = arena("run", path, "--db", db, "-q")
    line = path.read_text().splitlines().index("[time]") + 1
    assert result.returncode == 2, result.stderr
    assert f"{path}:{line}: [time] changed since {played} matches of 'clock' were played" in result.stderr
    assert "(move_ms was 2000, is 300)" in result.stderr
    assert stored_count(db, "clock") == played
    tournament_file(home, "clock", entrants)  # restored: the run is a finished one again
    assert arena("run", path, "--db", db, "-q").returncode == 0


def test_a_tournament_whose_tables_no_entrants_fill_is_refused(home: Path, bots: dict[str, Path]) -> None:
    path = tournament_file(home, "empty", [bots["random"], bots["threshold"]], [("scat", [3, 4])])
    line = path.read_text().splitlines().index("[[variant]]") + 1
    result = arena("run", path, "--db", home / "arena.db", "-q")
    assert result.returncode == 2
    assert f"{path}:{line}: no table can be filled by these 2 bots (tables of scat for 3, scat for 4)" in result.stderr
    assert stored_count(home / "arena.db", "empty") == 0


# -- bad input ----------------------------------------------------------------------------------

BAD_FILES = [
    # (what is wrong, the file's text after the entrants line, line expected, names expected)
    ("bad TOML", "deals = 2\nseed = \n[[variant]]\nname = \"scat\"\n", 3, ["not valid TOML"]),
    ("unknown key", "dealz = 2\n[[variant]]\nname = \"scat\"\n", 2, ["dealz"]),
    ("bad type", "[[variant]]\nname = \"scat\"\n[[variant]]\nname = \"scat\"\ntables = \"three\"\n", 6,
     ["tables", "array"]),
    ("unknown variant", "[[variant]]\nname = \"scat\"\n[[variant]]\nname = \"scta\"\n", 5, ["scta"]),
    ("bad option value", "[[variant]]\nname = \"scat\"\noptions = { deck = 33 }\n", 4, ["deck", "33"]),
    ("table too large", "[[variant]]\nname = \"scat\"\ntables = [3, 12]\n", 4, ["12"]),
    ("unknown bot", "[[variant]]\nname = \"scat\"\n", 1, ["no-such-bot"]),
]


@pytest.mark.parametrize(("what", "body", "line", "names"), BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_a_malformed_tournament_file_is_refused_with_file_line_and_name_and_writes_nothing(
    home: Path, bots: dict[str, Path], what: str, body: str, line: int, names: list[str]
) -> None:
    entrants = [str(bots["random"]), "no-such-bot" if what == "unknown bot" else str(bots["threshold"])]
    path = home / "bad.toml"
    path.write_text("entrants = [" + ", ".join(f'"{e}"' for e in entrants) + "]\n" + body, encoding="utf-8")
    db = home / "arena.db"
    result = arena("run", path, "--db", db)
    assert result.returncode == 2, result.stdout + result.stderr
    message = result.stderr
    assert message.startswith(f"error: {path}:{line}:"), message
    for name in names:
        assert name in message, message
    assert "Traceback" not in message
    if db.exists():
        for table in ("versions", "tournaments", "matches"):
            assert table_rows(db, table) == [], table
    assert not (home / "registry").exists()


# -- a database that stops working ---------------------------------------------------------------


def test_a_second_run_is_refused_and_a_locked_database_stops_the_first_keeping_its_matches(
    home: Path, bots: dict[str, Path]
) -> None:
    # far more matches than are played before the stop, however loaded the machine
    path, db = resume_file(home, bots, deals=100), home / "arena.db"
    process = start_arena("run", path, "--db", db, "-q", "--workers", "1", "--concurrency", "1",
                          env={"ARENA_DB_TIMEOUT": "0.5"})
    wait_until(lambda: stored_count(db, "resume") >= 2, "two stored matches")
    second = arena("run", path, "--db", db, "-q")
    assert second.returncode == 2
    assert "tournament 'resume' is already running" in second.stderr and str(db) in second.stderr

    run = descendants(process.pid)
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as blocker:
        blocker.execute("BEGIN EXCLUSIVE")  # held until the run gives up
        finished = blocker.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        status, _, err = finish(process)
        blocker.execute("ROLLBACK")
    assert status == 2, err
    assert "is locked by another process" in err and f"`arena run {path} --db {db}` resumes" in err
    assert "Traceback" not in err
    no_processes_left(run)
    no_bots_left(home)
    assert 2 <= finished < 600 and stored_count(db, "resume") == finished  # resuming: see the full disk


def test_a_full_disk_stops_the_run_cleanly_keeping_the_finished_matches(home: Path, bots: dict[str, Path]) -> None:
    disk = home / "disk"
    disk.mkdir(mode=0o755)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs", str(disk)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill: {mounted.stderr.strip()}")
    try:
        path, db = resume_file(disk, bots), disk / "arena.db"
        process = start_arena("run", path, "--db", db, "-q", "--workers", "1", "--concurrency", "1")
        wait_until(lambda: stored_count(db, "resume") >= 2, "two stored matches")
        run = descendants(process.pid)
        filler = disk / "filler"
        with open(filler, "wb", buffering=0) as file, contextlib.suppress(OSError):
            while True:  # until the disk is full
                file.write(b"\0" * 4096)
        finished = stored_count(db, "resume")
        status, _, err = finish(process)
        assert status == 2, err
        assert "is full" in err and f"`arena run {path} --db {db}` resumes" in err
        assert "Traceback" not in err
        no_processes_left(run)
        no_bots_left(disk)
        kept = stored_count(db, "resume")
        assert finished <= kept < 18  # a match may have been committed as the disk filled up
        filler.unlink()
        out = run_ok(path, db)
        assert f"{18 - kept} matches played" in out and "18/18 scheduled matches stored (complete)" in out
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], check=False)


# -- hostile entrants ---------------------------------------------------------------------------

HOSTILE = {"crash": "crash", "illegal": "illegal_action", "hang": "timeout", "crash-at-start": "startup"}
"""Test bot -> the kind of fault it commits in every match."""


@pytest.mark.long(35)
def test_hostile_entrants_fault_in_their_matches_and_the_run_completes(home: Path, bots: dict[str, Path]) -> None:
    folders = [REFEREE_BOTS / name.replace("-", "_") for name in HOSTILE]
    path = tournament_file(home, "hostile", [bots["threshold"], *folders], [("scat", [2])], deals=2,
                           move_ms=150, bank_ms=300, first_move_ms=3000,
                           extra=f'mode = "gauntlet"\nchallenger = "{bots["random"]}"\n'
                                 "authors_apart = false")  # random meets threshold, by the same author
    db = home / "arena.db"
    out = run_ok(path, db)
    assert "20/20 scheduled matches stored (complete)" in out  # random meets each of 5 bots on 2 deals in 2 seatings
    with Store(db) as store:
        bot_of = {v.id: v.bot for v in store.versions()}
        matches = list(store.matches("hostile"))
    assert len(matches) == 20
    for match in matches:
        seated = [bot_of[s.version] for s in match.seats]
        faults = {(f["seat"], f["kind"]) for f in match.faults}
        opponent = next(b for b in seated if b != "random")
        if opponent == "threshold":  # the field's own matches are played out
            assert faults == set() and min(match.placements) == 1 and match.rounds > 0, match.id
        else:
            assert faults == {(seated.index(opponent), HOSTILE[opponent])}, (match.id, match.faults)
            assert {f["penalty"] for f in match.faults} == {"forfeit"}
            if opponent == "hang":  # the file's time control, not the default's 11 s
                waited = re.search(r"no answer within (\d+) ms", match.faults[0]["detail"])
                assert waited is not None and int(waited.group(1)) <= 150 + 300, match.faults
            assert match.seats[seated.index(opponent)].faults == 1
            assert match.placements[seated.index("random")] == 1  # the bot that played on wins
    no_bots_left(home)


def test_the_files_fault_policy_reaches_the_referee(home: Path, bots: dict[str, Path]) -> None:
    path = tournament_file(home, "policy", [bots["random"], REFEREE_BOTS / "illegal"],
                           extra='[faults]\npolicy = "substitute"\nstrikes = 2')
    db = home / "arena.db"
    run_ok(path, db)
    with Store(db) as store:
        matches = list(store.matches("policy"))
    assert len(matches) == 2
    for match in matches:  # a random action for the first illegal one, out at the second
        assert [(f["kind"], f["penalty"]) for f in match.faults] == [
            ("illegal_action", "substituted"), ("illegal_action", "disqualified")]


def test_a_database_folder_the_bots_users_cannot_enter_still_plays_behind_every_layer(
    home: Path, bots: dict[str, Path]
) -> None:
    """The registry copies beside a database in a private folder (mode 0700, as a home or a
    ``mktemp -d`` folder) are out of the bots' users' reach; the sandbox binds copies."""
    private = home / "private"
    private.mkdir(mode=0o700)
    path = tournament_file(home, "private", [bots["random"], bots["threshold"]])
    db = private / "arena.db"
    result = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "2/2 scheduled matches stored (complete)" in result.stdout and "0 faults" in result.stdout
    layers = result.stdout.split("sandbox:")[1].split("\n")[0]
    if "bwrap" in layers:
        assert "uid" in layers and "seccomp" in layers and "landlock" in layers


@pytest.mark.long(27)
def test_the_deal_key_is_kept_exported_and_replays_the_same_deals(home: Path, bots: dict[str, Path]) -> None:
    """No bot sees the key; the operator can export it and play the same deals elsewhere."""
    path = tournament_file(home, "keyed", [bots["random"], bots["lucky"]], [("scat", [2])], deals=2)
    first, second = home / "first", home / "second"
    first.mkdir()
    second.mkdir()
    run_ok(path, first / "arena.db")
    shown = arena("key", "keyed", "--db", first / "arena.db")
    assert shown.returncode == 0 and re.fullmatch(r"[0-9a-f]{64}\n", shown.stdout), shown
    exported = home / "keyed.key"
    saved = arena("key", "keyed", "--db", first / "arena.db", "--out", exported)
    assert saved.returncode == 0 and exported.read_text() == shown.stdout
    assert exported.stat().st_mode & 0o777 == 0o600
    run_ok(path, second / "arena.db", "--key-file", str(exported))
    assert outcomes(second / "arena.db", "keyed") == outcomes(first / "arena.db", "keyed")
    assert first_deals(second / "arena.db") == first_deals(first / "arena.db")
    other = home / "other.key"
    other.write_text("ab" * 32)
    refused = arena("run", path, "--db", first / "arena.db", "-q", "--key-file", other)
    assert refused.returncode == 2 and "already deals from its own key" in refused.stderr
    missing = arena("key", "nothing", "--db", first / "arena.db")
    assert missing.returncode == 2 and "has no key" in missing.stderr
    binary = home / "binary.key"
    binary.write_bytes(b"\xff\xfe" * 32)  # not UTF-8: was a UnicodeDecodeError traceback
    refused = arena("run", path, "--db", home / "third.db", "-q", "--key-file", binary)
    assert refused.returncode == 2 and "is not text" in refused.stderr and "Traceback" not in refused.stderr, refused


# -- authors apart --------------------------------------------------------------------------------


@pytest.mark.long(50)
def test_a_tournament_played_until_settled_says_once_that_authors_are_kept_apart(
    home: Path, bots: dict[str, Path]
) -> None:
    """Each round of a ``[settle]`` run schedules the tournament again; the line is said once."""
    rival = copy_bot(BOTS_DIR / "random", home / "rival", name="rival")
    manifest = rival / "bot.toml"
    manifest.write_text(re.sub(r'(?m)^author = ".*"$', 'author = "Rival"', manifest.read_text()))
    path = tournament_file(home, "rounds", [bots["random"], bots["threshold"], rival], deals=2,
                           extra="[settle]\nconfidence = 0.999\nmax_matches = 24")
    db = home / "arena.db"
    result = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert result.returncode == 0, result.stderr
    with Store(db) as store:
        rounds = int((store.tournament_spec("rounds") or {})["deals"]) // 2  # 2 deals more each round
        bot_of = {v.id: v.bot for v in store.versions()}
        seated = {frozenset(bot_of[s.version] for s in match.seats) for match in store.matches("rounds")}
    assert rounds >= 2  # 2 deals are too few to judge: a second round is certain
    assert seated == {frozenset({"random", "rival"}), frozenset({"threshold", "rival"})}
    said = [line for line in result.stderr.splitlines() if "authors apart" in line]
    assert said == ["authors apart: no table seats two bots of one author (authors_apart, docs/TOURNAMENTS.md)"]


def test_progress_into_a_pipe_is_plain_lines_not_a_squeezed_bar(home: Path) -> None:
    """Piped, the bar came out cut to 80 columns (``16/… 0:… eta 0:00…``): now a line at
    every tenth of the run, whole."""
    path = tournament_file(home, "piped", ["random", "threshold"], deals=10)
    done = arena("run", path, "--db", home / "arena.db", "--workers", "1")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("piped: ")]
    assert [line.split(" matches")[0] for line in lines] == [f"piped: {n}/20" for n in range(2, 21, 2)], done.stderr
    assert all("decisions/s" in line and line.endswith(" elapsed") for line in lines)
    assert "…" not in done.stderr
