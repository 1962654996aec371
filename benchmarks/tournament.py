"""Tournament speed: the whole runner with trivial bots, 1 worker vs one per core, against
the same bots in a lone match, and the share of the run spent storing and rating.

In one run:

* **tournament, 1 worker** and **tournament, N workers** (N = cores): a round-robin
  ``scat`` tournament of trivial bots that speak the protocol directly and play the
  first legal action (``benchmarks/trivial_raw``), registered under several names, with
  every sandbox layer this machine offers; decisions and matches per second of the whole
  run (scheduling, worker start-up, bots, referee, store, ratings);
* **lone match**: the same bots, four at one table behind every layer, playing matches
  one after another on one core (as a worker's tables share its core): what the
  tournament machinery is compared with (``benchmarks/ipc.py`` measures the same match
  against a bare pipe ping-pong);
* **bare ceiling**: one blocking pipe ping-pong pair pinned to each core, all at once,
  with lines of the protocol's average request and reply sizes, and beside it the same
  with four children per core asked in turn, a table's layout (for reference: four
  processes sharing a core cost more per round trip);
* **storing + rating**: time spent in ``Store.record`` and in the final ratings, as a
  share of the N-worker run;
* **process generations**: what playing each seat rotation with fresh bot processes
  costs (so that no process sees a deal twice): the same round-robin of ``random`` bots
  (short matches, as real bots play them: a start-up weighs most there), once as
  scheduled and once with every rotation of a table played by the same processes;
* **start-up on the core**: four trivial bots started behind every layer and ended, again
  and again, and matches of them, on one core: the wall time of each and how long the
  core was busy meanwhile (``/proc/stat``).  Where the core is busy for the whole start-up,
  starting the next generation while the current one plays (warm generations) moves that
  work but cannot remove it: one worker's ceiling at k deals a rotation is then
  k m / (k m + s), with m a match's and s a start and end's busy time.

    python benchmarks/tournament.py [--entrants 6] [--deals 6] [--repeats 3]

Targets: a tournament with 1 worker plays at least 90% of the decisions per second of the
lone match; N workers on N otherwise idle cores give at least 0.9 N times 1 worker;
storing plus rating stay under 5% of the run.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgspec  # noqa: E402
import trio  # noqa: E402
from tabulate import tabulate  # noqa: E402

from arena.botspec import find_bot, load_manifest  # noqa: E402
from arena.referee import TimeControl, open_bots, play_match  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.sandbox import Sandbox  # noqa: E402
from arena.tournament.ratings import ratings  # noqa: E402
from arena.tournament.registry import install  # noqa: E402
from arena.tournament.runner import LocalExecutor, run_tournament  # noqa: E402
from arena.tournament.spec import TournamentSpec, VariantPlan  # noqa: E402
from arena.tournament.store import MatchRecord, Store  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ipc import _message_sizes, pingpong_run  # noqa: E402

TARGET_SCALING = 0.9
"""N workers give at least this times N times 1 worker."""
TARGET_LONE = 0.9
TARGET_OVERHEAD = 0.05


class TimedStore(Store):
    """A store that adds up the time spent committing matches."""

    record_s = 0.0

    def record(self, match: MatchRecord) -> bool:
        start = time.perf_counter()
        try:
            return super().record(match)
        finally:
            self.record_s += time.perf_counter() - start


class Quiet:
    """An observer that counts and says nothing."""

    def started(self, total: int, done: int, workers: int, sandbox: list[str]) -> None:
        """Nothing to draw."""

    def played(self, match: MatchRecord) -> None:
        """Nothing to draw."""

    def notice(self, message: str) -> None:
        print(f"note: {message}", file=sys.stderr)


def tournament_run(entrants: int, deals: int, workers: int) -> tuple[float, float, float, int]:
    """(decisions/s, matches/s, storing+rating share, matches) of one fresh tournament."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder, TimedStore(Path(folder) / "bench.db") as store:
        os.chmod(folder, 0o755)  # bot users must reach the registry copies
        manifest = load_manifest(HERE / "trivial_raw")
        names = [f"trivial-{i}" for i in range(entrants)]
        for name in names:
            install(store, dataclasses.replace(manifest, name=name))
        spec = TournamentSpec(name="bench", variants=(VariantPlan(get_variant("scat"), {}, (4,)),),
                              entrants=tuple(names), deals=deals, workers=workers, concurrency=4)
        start = time.perf_counter()
        summary = run_tournament(spec, store, Quiet())
        wall = time.perf_counter() - start
        rate_start = time.perf_counter()
        ratings(store, "bench", fresh=True)
        rating_s = time.perf_counter() - rate_start
        return (summary.decisions / wall, summary.played / wall, (store.record_s + rating_s) / wall, summary.played)


def lone_match_rate(matches: int) -> float:
    """Decisions/s of ``matches`` matches of four trivial raw bots at one table, behind
    every layer, pinned to one core as a tournament worker and its bots are."""
    variant = get_variant("scat")
    manifest = load_manifest(HERE / "trivial_raw")
    before = os.sched_getaffinity(0)

    async def main() -> float:
        box = await Sandbox.probe()
        async with open_bots([manifest] * 4, time_control=TimeControl(), sandbox=box) as bots:
            decisions, start = 0, time.perf_counter()
            for seed in range(matches):
                record = await play_match(variant, bots, seed=seed, match_id=f"lone-{seed}")
                assert not record.faults, record.faults
                decisions += record.decisions
            return decisions / (time.perf_counter() - start)

    os.sched_setaffinity(0, {min(before)})
    try:
        return trio.run(main)
    finally:
        os.sched_setaffinity(0, before)


def _busy_s(core: int) -> float:
    """Seconds ``core`` has spent on anything but idling and waiting, since boot."""
    with open("/proc/stat") as stat:
        for line in stat:
            if line.startswith(f"cpu{core} "):
                ticks = [int(x) for x in line.split()[1:]]
                return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")
    raise LookupError(f"no cpu{core} in /proc/stat")


def start_up_cost(rounds: int) -> tuple[float, float, float, float]:
    """(wall, core busy) seconds of starting and ending four trivial raw bots behind every
    layer, then of one match of them, each the mean of ``rounds``, all on one core."""
    variant = get_variant("scat")
    manifest = load_manifest(HERE / "trivial_raw")
    before = os.sched_getaffinity(0)
    core = min(before)

    async def main() -> tuple[float, float, float, float]:
        box = await Sandbox.probe()
        busy, start = _busy_s(core), time.perf_counter()
        for _ in range(rounds):
            async with open_bots([manifest] * 4, time_control=TimeControl(), sandbox=box, grace_s=0) as bots:
                assert all(not isinstance(bot, Exception) for bot in bots), bots
        start_wall, start_busy = time.perf_counter() - start, _busy_s(core) - busy
        async with open_bots([manifest] * 4, time_control=TimeControl(), sandbox=box) as bots:
            busy, start = _busy_s(core), time.perf_counter()
            for seed in range(rounds):
                await play_match(variant, bots, seed=seed, match_id=f"busy-{seed}")
            match_wall, match_busy = time.perf_counter() - start, _busy_s(core) - busy
        return start_wall / rounds, start_busy / rounds, match_wall / rounds, match_busy / rounds

    os.sched_setaffinity(0, {core})
    try:
        return trio.run(main)
    finally:
        os.sched_setaffinity(0, before)


class OneGeneration(LocalExecutor):
    """The local executor, with every match of a table in one process generation (the
    layout before generations: bots kept for all rotations of a deal)."""

    async def run(self, tables: Any, ready: Any, played: Any, failed: Any) -> None:
        merged = [msgspec.structs.replace(t, matches=[dataclasses.replace(m, generation=0) for m in t.matches])
                  for t in tables]
        await super().run(merged, ready, played, failed)


def generations_run(entrants: int, deals: int, one_generation: bool) -> tuple[float, int]:
    """(matches/s, matches) of a round-robin of ``random`` bots at tables of 4, on every core."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder, Store(Path(folder) / "gen.db") as store:
        os.chmod(folder, 0o755)
        manifest = find_bot("random")
        names = [f"random-{i}" for i in range(entrants)]
        for name in names:
            install(store, dataclasses.replace(manifest, name=name))
        spec = TournamentSpec(name="gen", variants=(VariantPlan(get_variant("scat"), {}, (4,)),),
                              entrants=tuple(names), deals=deals, concurrency=4)
        executor = OneGeneration() if one_generation else LocalExecutor()
        start = time.perf_counter()
        summary = run_tournament(spec, store, Quiet(), executor=executor)
        return summary.played / (time.perf_counter() - start), summary.played


def _pinned_pingpong(core: int, request: int, reply: int, rounds: int, children: int,
                     results: multiprocessing.Queue[float]) -> None:
    os.sched_setaffinity(0, {core})
    results.put(pingpong_run(request, reply, rounds, children))


def ceiling(request: int, reply: int, rounds: int = 40_000, children: int = 1) -> float:
    """Round trips/s of one blocking ping-pong parent pinned to each core, all at once,
    each with ``children`` children asked in turn (1: the bare pairs)."""
    cores = sorted(os.sched_getaffinity(0))
    results: multiprocessing.Queue[float] = multiprocessing.Queue()
    runners = [multiprocessing.Process(target=_pinned_pingpong, args=(c, request, reply, rounds, children, results))
               for c in cores]
    for p in runners:
        p.start()
    total = sum(results.get() for _ in runners)
    for p in runners:
        p.join()
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entrants", type=int, default=6, help="trivial bots (tables of 4: C(n,4) tables)")
    parser.add_argument("--deals", type=int, default=6, help="deals per table, each in 4 rotations")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    request, reply = _message_sizes(4, 1)
    one, many, lone, bare, seated, fresh, kept, costs = [], [], [], [], [], [], [], []
    for _ in range(args.repeats):  # interleaved, so drifting machine load hits all alike
        lone.append(lone_match_rate(20))
        one.append(tournament_run(args.entrants, args.deals, 1))
        many.append(tournament_run(args.entrants, args.deals, cores))
        bare.append(ceiling(request, reply))
        seated.append(ceiling(request, reply, children=4))
        fresh.append(generations_run(5, args.deals, one_generation=False))
        kept.append(generations_run(5, args.deals, one_generation=True))
        costs.append(start_up_cost(20))
    lone_rate = statistics.median(lone)
    one_rate = statistics.median(r[0] for r in one)
    many_rate = statistics.median(r[0] for r in many)
    bare_rate = statistics.median(bare)
    seated_rate = statistics.median(seated)
    overhead = statistics.median(r[2] for r in many)
    rows = [
        [f"bare ceiling: {cores} blocking ping-pong pairs, one per core", f"{bare_rate:,.0f}", "-", "1.00", "-"],
        ["the same with 4 children per core asked in turn (a table's layout)", f"{seated_rate:,.0f}", "-",
         f"{seated_rate / bare_rate:.2f}", "-"],
        ["lone match: the same bots, one table, one core", f"{lone_rate:,.0f}", "-", f"{lone_rate / bare_rate:.2f}",
         "1.00"],
        ["tournament, 1 worker", f"{one_rate:,.0f}", f"{statistics.median(r[1] for r in one):,.1f}",
         f"{one_rate / bare_rate:.2f}", f"{one_rate / lone_rate:.2f}"],
        [f"tournament, {cores} workers", f"{many_rate:,.0f}", f"{statistics.median(r[1] for r in many):,.1f}",
         f"{many_rate / bare_rate:.2f}", f"{many_rate / lone_rate:.2f}"],
    ]
    print(f"scat, tables of 4 from {args.entrants} trivial raw-protocol bots, {args.deals} deals x 4 rotations per "
          f"table ({many[0][3]} matches), every sandbox layer; median of {args.repeats} runs; "
          f"requests {request} B, replies {reply} B")
    print(tabulate(rows, headers=["what", "decisions/s", "matches/s", "x ceiling", "x lone match"], tablefmt="github"))
    print(f"\nstoring + rating: {overhead * 100:.1f}% of the {cores}-worker run")
    fresh_rate, kept_rate = statistics.median(r[0] for r in fresh), statistics.median(r[0] for r in kept)
    ratios = [f[0] / k[0] for f, k in zip(fresh, kept)]
    print(f"process generations (random bots, tables of 4 from 5, {args.deals} deals x 4 rotations, "
          f"{fresh[0][1]} matches, every core): {fresh_rate:,.1f} matches/s with a fresh generation per rotation, "
          f"{kept_rate:,.1f} with one per table: {statistics.median(ratios):.2f} of the rate "
          f"(runs: {' '.join(f'{r:.2f}' for r in ratios)})")
    start_wall, start_busy, match_wall, match_busy = (statistics.median(c[k] for c in costs) for k in range(4))
    ceilings = ", ".join(f"{k * match_busy / (k * match_busy + start_busy):.2f} at {k}" for k in (1, 2, 8))
    print(f"start-up on one core: starting and ending 4 bots {start_wall * 1000:.0f} ms, the core busy "
          f"{start_busy * 1000:.0f} ms of it ({start_busy / start_wall:.0%}); a match of them "
          f"{match_wall * 1000:.0f} ms, busy {match_busy * 1000:.0f} ms; one worker's ceiling with fresh "
          f"processes, however early they start: "
          f"{ceilings} deals a rotation")
    one_runs = " ".join(f"{o[0] / x:.2f}" for o, x in zip(one, lone))
    many_runs = " ".join(f"{m[0] / o[0]:.2f}" for m, o in zip(many, one))
    print(f"runs: 1 worker / lone match {one_runs}; {cores} workers / 1 worker {many_runs}")
    checks = [
        ("1 worker / lone match", one_rate / lone_rate, TARGET_LONE),
        (f"{cores} workers / 1 worker", many_rate / one_rate, TARGET_SCALING * cores),
        ("storing + rating share (at most 5%)", TARGET_OVERHEAD / max(overhead, 1e-9), 1.0),
    ]
    failed = 0
    for name, value, target in checks:
        met = value >= target
        failed += not met
        shown = f"{overhead * 100:.1f}%" if "share" in name else f"{value:.2f}"
        print(f"{name}: {shown} ({'MET' if met else 'NOT MET'})")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
