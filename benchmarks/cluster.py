"""Tournaments on a Dask cluster: what the cluster executor costs, and how many worker
cores one coordinator can serve.

In one run:

* **executors**: the same round-robin ``scat`` tournament of trivial bots that speak the
  protocol directly (``benchmarks/trivial_raw``, registered under several names), with
  every sandbox layer this machine offers, played by the local executor with 1 and with
  2 referee workers, and by the Dask executor on a scheduler and 2 single-thread workers
  that this script starts on this machine (``dask scheduler`` / ``dask worker``
  subprocesses, each worker with its own bot cache), and once more by the local executor
  with 2 workers playing as many tables at once as a Dask worker has threads (equal cores
  and equal table concurrency).  Each repeat plays the four one after the other, so each
  ratio compares runs taken a moment apart: the printed ratios are medians of those pairs,
  with their quartiles.  Every run is a whole tournament (scheduling, worker start-up or
  cluster connection, bots, referee, store, ratings); at equal table concurrency the ratio
  is also given for the rate of play alone, from each run's first match reported to its
  last, which says how much of the difference is the run's start and end;
* **coordinator**: the matches one Dask run played, recorded as the workers sent them,
  fed again to the coordinator of a fresh database as fast as it takes them (no play):
  matches stored and rated per second.  Divided by what one worker core plays per second,
  it says how many worker cores one coordinator can keep up with.

    python benchmarks/cluster.py [--entrants 6] [--deals 2] [--repeats 3] [--threads 1] [--load 0]

``--load N`` runs N spinning processes per core throughout (``yes``), to measure the
executors on a machine busy with other work; without it, measure on a quiet machine.
With few repeats the quartiles are rough.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabulate import tabulate  # noqa: E402

from arena.botspec import load_manifest  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.tournament.dask_api import connect  # noqa: E402
from arena.tournament.jobs import Played, Ready, TableJob  # noqa: E402
from arena.tournament.registry import install  # noqa: E402
from arena.tournament.runner import Executor, LocalExecutor, run_tournament  # noqa: E402
from arena.tournament.spec import TournamentSpec, VariantPlan  # noqa: E402
from arena.tournament.store import Store  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from tournament import Quiet  # noqa: E402

DASK = Path(sys.executable).parent / "dask"
KEY = bytes(range(32))
"""Every run deals the same cards."""


@dataclasses.dataclass
class Run:
    """One tournament run: decisions and matches per second, matches, what was played, and
    matches per second from the first match reported to the last (the rate of play, with
    the run's start and end left out: workers starting, a cluster connecting, bots shipped
    before the first match, closing down after the last)."""

    decisions_s: float
    matches_s: float
    matches: int
    recorded: list[Played]
    sandbox: list[str]
    playing_s: float


class Recording(Executor):
    """Another executor, keeping every finished match it reports (for the coordinator's run)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.local_paths = inner.local_paths
        self.played: list[Played] = []
        self.times: list[float] = []
        self.sandbox: list[str] = []

    def capacity(self) -> int:
        return self.inner.capacity()

    def close(self) -> None:
        self.inner.close()

    async def run(self, tables: Sequence[TableJob], ready: Callable[[Ready], None],
                  played: Callable[[Played], Awaitable[None]], failed: Callable[[TableJob, str], None]) -> None:
        def seen(message: Ready) -> None:
            self.sandbox = message.sandbox
            ready(message)

        async def keep(message: Played) -> None:
            self.played.append(message)
            self.times.append(time.perf_counter())
            await played(message)

        await self.inner.run(tables, seen, keep, failed)


class Replay(Executor):
    """Reports recorded matches as fast as the coordinator takes them: nothing is played."""

    def __init__(self, recorded: list[Played], sandbox: list[str]) -> None:
        self.recorded = recorded
        self.sandbox = sandbox

    def capacity(self) -> int:
        return 1

    def close(self) -> None:
        """Nothing held."""

    async def run(self, tables: Sequence[TableJob], ready: Callable[[Ready], None],
                  played: Callable[[Played], Awaitable[None]], failed: Callable[[TableJob, str], None]) -> None:
        ready(Ready(self.sandbox, {}))
        for message in self.recorded:
            await played(message)


def _spec(entrants: int, deals: int) -> TournamentSpec:
    return TournamentSpec(name="bench", variants=(VariantPlan(get_variant("scat"), {}, (4,)),),
                          entrants=tuple(f"trivial-{i}" for i in range(entrants)), deals=deals, concurrency=4)


def tournament(entrants: int, deals: int, executor: Executor) -> Run:
    """A fresh tournament of trivial raw-protocol bots on ``executor``."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder, Store(Path(folder) / "bench.db") as store:
        os.chmod(folder, 0o755)  # bot users must reach the registry copies
        manifest = load_manifest(HERE / "trivial_raw")
        for i in range(entrants):
            install(store, dataclasses.replace(manifest, name=f"trivial-{i}"))
        recording = Recording(executor)
        start = time.perf_counter()
        summary = run_tournament(_spec(entrants, deals), store, Quiet(), executor=recording, key=KEY)
        wall = time.perf_counter() - start
        times = recording.times
        return Run(summary.decisions / wall, summary.played / wall, summary.played, recording.played,
                   recording.sandbox, (len(times) - 1) / (times[-1] - times[0]))


def coordinator(entrants: int, deals: int, recorded: list[Played], sandbox: list[str]) -> float:
    """Matches per second the coordinator stores and rates, fed ``recorded`` at once."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder, Store(Path(folder) / "bench.db") as store:
        manifest = load_manifest(HERE / "trivial_raw")
        for i in range(entrants):
            install(store, dataclasses.replace(manifest, name=f"trivial-{i}"))
        start = time.perf_counter()
        summary = run_tournament(_spec(entrants, deals), store, Quiet(), executor=Replay(recorded, sandbox), key=KEY)
        assert summary.played == len(recorded), "the replayed matches are the scheduled ones"
        return summary.played / (time.perf_counter() - start)


@contextmanager
def dask_cluster(workers: int, threads: int) -> Iterator[str]:
    """A ``dask scheduler`` and ``workers`` workers on this machine; its address.  Every
    process is killed on the way out."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-dask-") as folder:
        os.chmod(folder, 0o755)
        address_file = Path(folder) / "scheduler.json"
        log = open(Path(folder) / "dask.log", "wb")  # noqa: SIM115  (closed below, after its processes)
        processes = [subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0",
             "--scheduler-file", address_file], stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "DASK_TEMPORARY_DIRECTORY": folder})]
        try:
            _wait(lambda: address_file.is_file() and b"address" in address_file.read_bytes(), "the scheduler")
            address: str = json.loads(address_file.read_text())["address"]
            for i in range(workers):
                processes.append(subprocess.Popen(
                    [DASK, "worker", address, "--nthreads", str(threads), "--nworkers", "1", "--no-dashboard",
                     "--local-directory", str(Path(folder) / f"worker-{i}")],
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                    env={**os.environ, "ARENA_BOT_CACHE": str(Path(folder) / f"cache-{i}"),
                         "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}))  # as docs/CLUSTER.md starts them
            client = connect(address, 30)
            try:
                _wait(lambda: len(client.nthreads()) == workers, "the workers")
            finally:
                client.close()
            yield address
        finally:
            for process in processes:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            log.close()


@contextmanager
def spinning(count: int) -> Iterator[None]:
    """``count`` processes that spin on the CPU until the block ends."""
    spinners = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(count)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def _wait(condition: Callable[[], bool], what: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting for {what}")
        time.sleep(0.1)


def _ratio(ratios: list[float]) -> str:
    """A median ratio with the quartiles of the pairs it is taken from."""
    if len(ratios) < 2:
        return f"{ratios[0]:.2f} (one pair)"
    quartiles = " ".join(f"{q:.2f}" for q in statistics.quantiles(ratios, n=4, method="inclusive"))
    return f"{statistics.median(ratios):.2f} (quartiles {quartiles} of {len(ratios)} pairs)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entrants", type=int, default=6, help="trivial bots (tables of 4: C(n,4) tables)")
    parser.add_argument("--deals", type=int, default=2, help="deals per table, each in 4 rotations")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="threads (tables at once) of each Dask worker")
    parser.add_argument("--load", type=int, default=0, help="spinning processes per core, running throughout")
    args = parser.parse_args()
    from arena.tournament.cluster import DaskExecutor  # only now: the import is part of what a cluster costs

    one, two, even, dask, stored = [], [], [], [], []
    with dask_cluster(2, args.threads) as address, spinning(args.load * (os.cpu_count() or 1)):
        for _ in range(args.repeats):  # interleaved, so drifting machine load hits all alike
            one.append(tournament(args.entrants, args.deals, LocalExecutor(1, 4)))
            two.append(tournament(args.entrants, args.deals, LocalExecutor(2, 4)))
            even.append(tournament(args.entrants, args.deals, LocalExecutor(2, args.threads)))
            cluster = DaskExecutor(address)
            try:
                dask.append(tournament(args.entrants, args.deals, cluster))
            finally:
                cluster.close()
            stored.append(coordinator(args.entrants, args.deals, dask[-1].recorded, dask[-1].sandbox))
    cores = 2 * args.threads
    rows: list[tuple[str, list[Run]]] = [
        ("local executor, 1 referee worker (4 tables at once)", one),
        ("local executor, 2 referee workers (4 tables at once each)", two),
        (f"local executor, 2 referee workers ({args.threads} table(s) at once each)", even),
        (f"Dask executor, 2 workers x {args.threads} thread(s) (one table per thread)", dask),
    ]
    print(f"scat, tables of 4 from {args.entrants} trivial raw-protocol bots, {args.deals} deals x 4 rotations per "
          f"table ({one[0].matches} matches), every sandbox layer ({', '.join(dask[0].sandbox)}); "
          f"median of {args.repeats} runs" + (f", {args.load} spinning process(es) per core throughout" if args.load
                                              else ""))
    print(tabulate([[name, f"{statistics.median(r.decisions_s for r in runs):,.0f}",
                     f"{statistics.median(r.matches_s for r in runs):,.1f}"] for name, runs in rows],
                   headers=["executor", "decisions/s", "matches/s"], tablefmt="github"))
    print(f"\nlocal, 2 workers / 1 worker: {_ratio([b.matches_s / a.matches_s for a, b in zip(one, two)])}")
    print(f"Dask, 2 workers / local, 2 workers: {_ratio([d.matches_s / b.matches_s for b, d in zip(two, dask)])}")
    print(f"Dask, 2 workers / local, 2 workers at equal table concurrency: "
          f"{_ratio([d.matches_s / e.matches_s for e, d in zip(even, dask)])}")
    print(f"  the same from each run's first match reported to its last (the rate of play, without the run's start "
          f"and end): {_ratio([d.playing_s / e.playing_s for e, d in zip(even, dask)])}")
    print(f"Dask, 2 workers / local, 1 worker: {_ratio([d.matches_s / a.matches_s for a, d in zip(one, dask)])}")
    per_core = statistics.median(r.matches_s for r in dask) / cores
    coordinator_rate = statistics.median(stored)
    quartiles = " ".join(f"{q:,.0f}" for q in statistics.quantiles(stored, n=4, method="inclusive")) \
        if len(stored) > 1 else "-"
    print(f"\ncoordinator: {coordinator_rate:,.0f} matches/s stored and rated, fed {len(dask[0].recorded)} recorded "
          f"matches at once (quartiles {quartiles})")
    print(f"one Dask worker core plays {per_core:,.1f} matches/s of these bots: one coordinator keeps up with about "
          f"{coordinator_rate / per_core:,.0f} worker cores of them (real bots think longer: more cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
