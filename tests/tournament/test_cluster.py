"""``arena run --cluster`` on a real Dask cluster: a ``dask scheduler`` and two ``dask
worker`` processes started here, each worker with a bot cache of its own (they share no
folder with the run: bots reach them by content hash through the scheduler).

The bots are deterministic (``random`` and the dawdler seed themselves from the match id
and seat, ``threshold`` has no randomness), so a cluster run that loses a worker midway, or
is stopped and resumed, must store exactly what a local run of the same deals stores.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from distributed import Worker
from tourney import (
    TEST_BOTS,
    Outcome,
    arena,
    copy_bot,
    ctrl_c,
    finish,
    outcomes,
    processes_mentioning,
    query,
    scratch,
    start_arena,
    stored_count,
    tournament_file,
    wait_until,
)

from arena.botspec import BOTS_DIR
from arena.sandbox import Sandbox
from arena.tournament.botcache import LOCKS, BotCache, BotCacheError, pack, unpack
from arena.tournament.cluster_task import PLUGIN, SandboxPlugin, refusal
from arena.tournament.dask_api import connect
from arena.tournament.registry import content_hash
from arena.tournament.spec import SpecError, parse_spec

DASK = Path(sys.executable).parent / "dask"
START_S = 60
"""How long the scheduler and a worker may take to come up."""
MATCHES = 12
"""The tournament's: three pairs of bots, two deals, two seat rotations."""


@dataclass
class Cluster:
    """A scheduler and its workers, each a process group of its own."""

    folder: Path
    address: str = ""
    scheduler: subprocess.Popen[bytes] | None = None
    workers: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)

    def cache(self, worker: int) -> Path:
        return self.folder / f"worker{worker}" / "bots"

    def start_worker(self, worker: int) -> None:
        """Start ``dask worker`` number ``worker`` and wait until it is registered."""
        log = self.folder / f"worker{worker}.log"
        with log.open("wb") as out:
            self.workers[worker] = subprocess.Popen(
                [DASK, "worker", self.address, "--nthreads", "1", "--nworkers", "1", "--no-dashboard",
                 "--name", f"worker{worker}", "--local-directory", self.folder / f"worker{worker}"],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, "ARENA_BOT_CACHE": str(self.cache(worker)),
                     "ARENA_CORE_LOCKS": str(self.folder / "cores")},  # claims among these workers alone
            )
        wait_until(lambda: b"Registered to:" in log.read_bytes(), f"dask worker {worker}", START_S)

    def kill_worker(self, worker: int) -> None:
        """SIGKILL the worker's whole process group (its nanny and the worker process)."""
        _kill_group(self.workers.pop(worker))

    def stop(self) -> None:
        for process in [*self.workers.values(), self.scheduler]:
            if process is not None:
                _kill_group(process)
        self.workers.clear()


def _zombies(cluster: Cluster) -> list[str]:
    """Exited, unreaped processes under the cluster's workers (``pid command``)."""
    groups = {process.pid for process in cluster.workers.values()}
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parent = int(fields[1])
            if fields[0] == "Z" and os.getpgid(parent) in groups:
                found.append(f"{entry.name} {(entry / 'comm').read_text().strip()}")
        except (OSError, ValueError, IndexError):
            continue
    return found


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


@pytest.fixture(scope="module")
def shared() -> Iterator[Path]:
    yield from scratch()


@pytest.fixture(scope="module")
def cluster(shared: Path) -> Iterator[Cluster]:
    """A scheduler on a free port of 127.0.0.1 and two single-thread workers; every Dask
    process is killed at the end, whatever happened."""
    running = Cluster(shared)
    address_file = shared / "scheduler.json"
    try:
        with (shared / "scheduler.log").open("wb") as out:
            running.scheduler = subprocess.Popen(
                [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0",
                 "--scheduler-file", address_file],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, "DASK_TEMPORARY_DIRECTORY": str(shared)},  # its scratch folder: not /tmp's
            )
        wait_until(lambda: address_file.is_file() and b"address" in address_file.read_bytes(), "the scheduler",
                   START_S)
        running.address = json.loads(address_file.read_text())["address"]
        for worker in (0, 1):
            running.start_worker(worker)
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def tournament(shared: Path) -> Path:
    """Three pairs of bots at scat on two deals (the dawdler makes them slow enough to lose
    a worker, or stop the run, halfway); random and threshold share an author, and
    ``authors_apart = false`` keeps their pair in."""
    bots = shared / "bots"
    entrants = [copy_bot(BOTS_DIR / "random", bots / "random"), copy_bot(BOTS_DIR / "threshold", bots / "threshold"),
                copy_bot(TEST_BOTS / "dawdler", bots / "dawdler")]
    return tournament_file(shared, "clustered", entrants, [("scat", [2])], deals=2, extra="authors_apart = false")


@pytest.fixture(scope="module")
def key(shared: Path) -> Path:
    """A deal key in a file: every database below deals the same cards."""
    path = shared / "deal.key"
    path.write_text(bytes(range(32)).hex() + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def expected(shared: Path, tournament: Path, key: Path) -> dict[str, Outcome]:
    """What a local run stores."""
    (shared / "local").mkdir()
    db = shared / "local" / "arena.db"
    result = arena("run", tournament, "--db", db, "-q", "--key-file", key)
    assert result.returncode == 0, result.stderr
    stored = outcomes(db, "clustered")
    assert len(stored) == MATCHES
    return stored


def _database(shared: Path, name: str) -> Path:
    (shared / name).mkdir()
    return shared / name / "arena.db"


def test_a_cluster_run_that_loses_a_worker_stores_what_a_local_run_does(
    shared: Path, cluster: Cluster, tournament: Path, key: Path, expected: dict[str, Outcome]
) -> None:
    db = _database(shared, "lost")
    process = start_arena("run", tournament, "--db", db, "--cluster", cluster.address, "--key-file", key)
    wait_until(lambda: stored_count(db, "clustered") >= 2, "the first stored matches")
    cluster.kill_worker(0)  # mid-table: Dask runs its table again on the other worker, from where it was
    status, out, err = finish(process)
    assert status == 0, err
    assert f"{MATCHES} matches played" in out and f"{MATCHES}/{MATCHES} scheduled matches stored (complete)" in out
    assert outcomes(db, "clustered") == expected
    assert f"Dask cluster {cluster.address}: 2 worker(s), 2 thread(s); dashboard: http://127.0.0.1:" in err
    # each worker unpacked bots into its own cache, under their registered hashes
    hashes = {row[0] for row in query(db, "SELECT hash FROM versions")}
    cached = [set(os.listdir(cluster.cache(worker))) - {LOCKS} for worker in (0, 1)]
    assert cached[1] and cached[0] | cached[1] == hashes and cached[0] <= hashes
    assert not processes_mentioning(str(cluster.cache(0))), "the killed worker's bots outlived it"


def test_a_stopped_cluster_run_resumes_storing_nothing_twice(
    shared: Path, cluster: Cluster, tournament: Path, key: Path, expected: dict[str, Outcome]
) -> None:
    if 0 not in cluster.workers:
        cluster.start_worker(0)
    db = _database(shared, "stopped")
    process = start_arena("run", tournament, "--db", db, "-q", "--cluster", cluster.address, "--key-file", key)
    wait_until(lambda: stored_count(db, "clustered") >= 2, "the first stored matches")
    ctrl_c(process)
    status, _, err = finish(process)
    assert status == 130, err
    kept = stored_count(db, "clustered")
    assert f"{kept} finished matches are kept" in err and kept < MATCHES
    # followed to the letter, the hint resumes on the same database and cluster (it named neither)
    assert f"Run `arena run {tournament} --db {db} --cluster {cluster.address}` again to resume" in err
    # the workers stopped the cancelled tables: their bots are gone, reaped (no zombie under a worker)
    wait_until(lambda: not any(processes_mentioning(str(cluster.cache(w))) for w in (0, 1)), "the bots to stop", 15)
    wait_until(lambda: not _zombies(cluster), "the workers to reap their bots", 15)

    again = arena("run", tournament, "--db", db, "-q", "--cluster", cluster.address)
    assert again.returncode == 0, again.stderr
    assert f"{MATCHES - kept} matches played" in again.stdout
    assert f"{MATCHES}/{MATCHES} scheduled matches stored (complete)" in again.stdout
    assert outcomes(db, "clustered") == expected
    done = arena("run", tournament, "--db", db, "-q", "--cluster", cluster.address)
    assert done.returncode == 0 and "0 matches played" in done.stdout, done.stderr
    assert outcomes(db, "clustered") == expected


def test_a_ladder_plays_on_the_cluster_and_keeps_authors_apart(shared: Path, cluster: Cluster) -> None:
    """A ladder file naming the cluster (``cluster = ...``) plays its tables on the Dask
    workers: every rotation of each deal stored, no two bots of one author at a table."""
    if 0 not in cluster.workers:
        cluster.start_worker(0)
    bots = []
    for i in range(4):  # two authors, two bots each: every table of 2 pits one author against the other
        folder = copy_bot(BOTS_DIR / "random", shared / "ladder-bots" / f"lad-{i}", name=f"lad-{i}", variants=["scat"])
        manifest = folder / "bot.toml"
        manifest.write_text(manifest.read_text(encoding="utf-8").replace(
            'author = "Thirty-One Arena"', f'author = "author-{i % 2}"'), encoding="utf-8")
        bots.append(folder)
    file = tournament_file(shared, "clustered-ladder", bots,
                           extra=f'mode = "ladder"\ncluster = "{cluster.address}"')
    db = _database(shared, "ladder")
    done = arena("ladder", file, "--db", db, "--matches", "8", "-q")
    assert done.returncode == 0, done.stderr
    assert f"Dask cluster {cluster.address}: 2 worker(s)" in done.stderr
    played = query(db, "SELECT m.id, json_extract(v.manifest, '$.author') FROM matches m JOIN seats s "
                       "ON s.match = m.id JOIN versions v ON v.id = s.version WHERE m.tournament = 'clustered-ladder'")
    tables: dict[tuple[str, str], list[str]] = {}
    for match, author in played:
        deal, rotation = re.search(r"-d(\d+)r(\d+)$", match).groups()  # type: ignore[union-attr]
        tables.setdefault((deal, rotation), []).append(author)
    assert len(tables) == 8 and all(sorted(authors) == ["author-0", "author-1"] for authors in tables.values())
    assert sorted(rotation for _, rotation in tables) == sorted(["0", "1"] * 4)


def test_a_seat_of_its_own_time_keeps_it_on_the_cluster(shared: Path, cluster: Cluster) -> None:
    """``arena test --base-move-ms`` on the cluster: BASE is told its own move_ms there too
    (each copy of the clock-watching bot crashes when told another than it expects)."""
    if 0 not in cluster.workers:
        cluster.start_worker(0)
    fast = copy_bot(TEST_BOTS / "clockwatch", shared / "timed-bots" / "fast", name="fast")
    slow = copy_bot(TEST_BOTS / "clockwatch", shared / "timed-bots" / "slow", name="slow")
    (slow / "expect_ms.txt").write_text("15")
    db = _database(shared, "timed")
    done = arena("test", fast, slow, "--move-ms", "200", "--base-move-ms", "15", "--max-deals", "8", "--name", "timed",
                 "--cluster", cluster.address, "--db", db, "-q")
    assert done.returncode == 0, done.stderr
    assert f"Dask cluster {cluster.address}" in done.stderr
    faults = query(db, "SELECT faults FROM matches WHERE tournament = 'timed'")
    assert len(faults) == 16 and all(json.loads(f) == [] for (f,) in faults), faults


# -- the parts, without a cluster ---------------------------------------------------------------


def _cpu_lists(pid: int) -> set[str]:
    """The CPU lists the threads of process ``pid`` may run on (one, where they agree)."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found |= {line.split(":", 1)[1].strip() for line in (task / "status").read_text().splitlines()
                      if line.startswith("Cpus_allowed_list:")}
    return found


def test_single_thread_workers_are_pinned_each_to_a_core_of_its_own(cluster: Cluster) -> None:
    """As local referee workers are: unpinned, two such workers played at 0.82 of the local
    executor on the same cores, pinned at 0.96 and 1.02 in two runs (benchmarks/cluster.py)."""
    if len(os.sched_getaffinity(0)) < len(cluster.workers):
        pytest.skip("fewer cores than the cluster's workers")
    client = connect(cluster.address, START_S)
    try:
        client.register_plugin(SandboxPlugin(), name=PLUGIN)  # as every run does first
        pids = client.run(os.getpid)
    finally:
        client.close()
    lists = [_cpu_lists(pid) for pid in pids.values()]
    assert len(lists) == len(cluster.workers), pids
    assert all(len(found) == 1 and next(iter(found)).isdigit() for found in lists), (
        f"each worker's threads are not all on one core: {lists}")
    assert len({next(iter(found)) for found in lists}) == len(lists), f"two workers share a core: {lists}"


def test_the_coordinator_s_client_lets_no_dask_log_through(cluster: Cluster) -> None:
    """Was: only ``distributed.client`` was silenced, and under load a lost scheduler could
    make the client's batched sender log an INFO line with a Dask traceback before the
    coordinator's own one-line message (a CI run of the scheduler-restart test below)."""
    client = connect(cluster.address, START_S)
    client.close()
    for name in ("distributed.batched", "distributed.core", "distributed.comm.tcp", "distributed.client",
                 "distributed.utils", "tornado.application", "tornado.general"):
        assert not logging.getLogger(name).isEnabledFor(logging.ERROR), name


def test_dask_profiler_is_stopped_on_every_worker(cluster: Cluster) -> None:
    """It reads every thread's stack each 10 ms on the core the referee plays on: with it,
    two workers played at 0.86 of the local executor, 0.88 without (benchmarks/cluster.py)."""

    def profiling(dask_worker: Worker) -> list[str]:  # nested: sent by value, as the workers cannot import tests
        return [name for name, callback in dask_worker.periodic_callbacks.items()
                if name.startswith("profile") and callback.is_running()]

    client = connect(cluster.address, START_S)
    try:
        client.register_plugin(SandboxPlugin(), name=PLUGIN)  # as every run does first
        found = client.run(profiling)
    finally:
        client.close()
    assert len(found) == len(cluster.workers) and not any(found.values()), found


def test_a_bot_travels_by_its_hash_and_a_damaged_copy_is_never_used(tmp_path: Path) -> None:
    source = copy_bot(BOTS_DIR / "threshold", tmp_path / "threshold")
    digest = content_hash(source)
    cache = BotCache(tmp_path / "cache")
    fetched: list[int] = []

    def fetch() -> bytes:
        fetched.append(1)
        return pack(source)

    copy = cache.path(digest, fetch)
    assert copy == tmp_path / "cache" / digest and content_hash(copy) == digest
    assert not os.stat(copy).st_mode & 0o222, "the cached copy is read-only"
    assert cache.path(digest, fetch) == copy and len(fetched) == 1  # fetched once
    with pytest.raises(BotCacheError, match="hash to"):
        unpack(pack(source), "0" * 64, tmp_path / "elsewhere")
    assert not (tmp_path / "elsewhere").exists()
    # a copy altered on disk is replaced by the next worker process that needs it
    os.chmod(copy, 0o755)
    (copy / "bot.toml").chmod(0o644)
    (copy / "bot.toml").write_text("tampered", encoding="utf-8")
    assert BotCache(tmp_path / "cache").path(digest, fetch) == copy and len(fetched) == 2
    assert content_hash(copy) == digest


def test_worker_processes_sharing_a_cache_replace_a_damaged_copy_once(tmp_path: Path) -> None:
    """Checking a copy and replacing a damaged one is one step among the processes sharing
    the folder (two caches here, each with its own process-level lock): while one fetches,
    the other waits and then finds the fresh copy, rather than fetching again or removing
    the copy the first has just put in place."""
    source = copy_bot(BOTS_DIR / "threshold", tmp_path / "threshold")
    digest = content_hash(source)
    folder = tmp_path / "cache"
    unpack(pack(source), digest, folder / digest)
    copy = folder / digest
    os.chmod(copy, 0o755)
    (copy / "bot.toml").chmod(0o644)
    (copy / "bot.toml").write_text("damaged", encoding="utf-8")
    fetching, release = threading.Event(), threading.Event()
    fetched: list[str] = []

    def slow_fetch() -> bytes:
        fetched.append("first")
        fetching.set()
        assert release.wait(30)
        return pack(source)

    def second_fetch() -> bytes:
        fetched.append("second")
        return pack(source)

    first = threading.Thread(target=lambda: BotCache(folder).path(digest, slow_fetch))
    first.start()
    assert fetching.wait(30)
    found: list[Path] = []
    second = threading.Thread(target=lambda: found.append(BotCache(folder).path(digest, second_fetch)))
    second.start()
    second.join(0.5)
    assert second.is_alive(), "the second process went on while the first was replacing the copy"
    release.set()
    first.join(30)
    second.join(30)
    assert fetched == ["first"] and found == [copy] and content_hash(copy) == digest


def test_a_worker_without_a_required_layer_refuses_the_table_saying_why(tmp_path: Path) -> None:
    bare = Sandbox()  # rlimits and session only
    assert refusal(bare, ["session"], BotCache(tmp_path)) == ""
    assert refusal(bare, ["session", "uid"], BotCache(tmp_path)).startswith(
        "it lacks the required sandbox layer(s) uid: ")


def test_a_cluster_run_keeps_bots_off_the_network_whatever_the_tournament_requires() -> None:
    """A bot that could open a connection could reach the scheduler, which trusts whoever
    connects: every table of a cluster run asks for bubblewrap's network namespace."""
    from arena.tournament.cluster import DaskExecutor

    assert DaskExecutor("tcp://127.0.0.1:1").require == ["bwrap"]
    assert DaskExecutor("tcp://127.0.0.1:1", ["uid"]).require == ["bwrap", "uid"]


def test_a_cluster_address_is_checked_where_it_is_written(tmp_path: Path) -> None:
    text = '[[variant]]\nname = "scat"\n'
    assert parse_spec(f'cluster = "tcp://10.0.0.1:8786"\n{text}').cluster == "tcp://10.0.0.1:8786"
    with pytest.raises(SpecError, match=r"^<tournament>:2: cluster '10.0.0.1:8786' is not a Dask scheduler's"):
        parse_spec(f'name = "x"\ncluster = "10.0.0.1:8786"\n{text}')
    refused = arena("run", "demo", "--db", tmp_path / "arena.db", "--cluster", "localhost")
    assert refused.returncode == 2 and "is not a Dask scheduler's address" in refused.stderr


def test_commands_that_play_locally_never_import_dask() -> None:
    code = ("import sys; import arena.cli; from arena.tournament import runner, league, settle, sequential; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


SUPERVISED = 'while :; do "$DASK" worker "$SCHEDULER" --nthreads 1 --name "$NAME"; sleep 1; done'
"""A worker under the supervisor docs/CLUSTER.md gives for a shell (systemd's Restart=always
does the same): a Dask worker exits when it loses its scheduler, and is started again."""


def _scheduler(folder: Path, port: int) -> subprocess.Popen[bytes]:
    with (folder / "scheduler.log").open("ab") as out:
        process = subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "DASK_TEMPORARY_DIRECTORY": str(folder)})
    return process


def _registered(folder: Path, worker: int) -> int:
    return (folder / f"worker{worker}.log").read_bytes().count(b"Registered to:")


def test_workers_under_the_documented_supervisor_outlive_a_scheduler_restart(
    shared: Path, tournament: Path, key: Path, expected: dict[str, Outcome]
) -> None:
    """Was: a lost scheduler ended every worker, and the run's message followed a Dask
    traceback and named no command that would resume it on the same database and cluster."""
    folder = shared / "restarted"
    folder.mkdir()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    started: list[subprocess.Popen[bytes]] = [_scheduler(folder, port)]
    try:
        for worker in (0, 1):
            with (folder / f"worker{worker}.log").open("ab") as out:
                started.append(subprocess.Popen(
                    ["sh", "-c", SUPERVISED], stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                    env={**os.environ, "DASK": str(DASK), "SCHEDULER": address, "NAME": f"restarted{worker}",
                         "ARENA_BOT_CACHE": str(folder / f"worker{worker}" / "bots"),
                         "DASK_TEMPORARY_DIRECTORY": str(folder)}))
        wait_until(lambda: all(_registered(folder, w) >= 1 for w in (0, 1)), "the workers", START_S)
        db = _database(shared, "restarted-db")
        process = start_arena("run", tournament, "--db", db, "-q", "--cluster", address, "--key-file", key)
        wait_until(lambda: stored_count(db, "clustered") >= 2, "the first stored matches")
        _kill_group(started[0])  # the scheduler
        status, _, err = finish(process)
        assert status == 2, err
        assert "Traceback" not in err and len(err.strip().splitlines()) <= 2, err
        assert f"lost the Dask scheduler at {address}" in err
        assert f"`arena run {tournament} --db {db} --cluster {address}` resumes" in err

        started[0] = _scheduler(folder, port)  # at the same address, as a service manager restarts it
        wait_until(lambda: all(_registered(folder, w) >= 2 for w in (0, 1)), "the workers to join again", START_S)
        again = arena("run", tournament, "--db", db, "-q", "--cluster", address)
        assert again.returncode == 0, again.stderr
        assert f"{MATCHES}/{MATCHES} scheduled matches stored (complete)" in again.stdout
        assert outcomes(db, "clustered") == expected
    finally:
        for process in started:
            _kill_group(process)
