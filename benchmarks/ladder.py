"""The ladder under visitors, and how fast one coordinator match-makes and stores.

One temporary database with ``--bots`` copies of the bundled ``random`` (scat, each of its
own author), one ladder file (scat at tables of 2 and 4), ``arena serve`` over it:

* **rate and pages**, in ``--rounds`` pairs: the ladder alone (``arena ladder FILE
  --matches M``, no visitor), then the same ladder again (``--matches M`` more) while the
  server answers ``--rate`` page views a second (threads, each with its own connection,
  requesting the overview, the ladder's ranking, a bot's page and the match list in turn,
  paced by a schedule, not by the answers).  A phase's rate is its stored matches over the
  time from the first to the last one stored; each pair gives the ratio with visitors over
  alone.  Every view's latency is recorded.
* **coordinator**: the ladder's own loop (choosing tables from the store, rating each
  match as it lands, storing it in its own transaction) fed by an executor that finishes
  every match the moment it is asked, so that nothing is played: the matches a second one
  coordinator can match-make and store, with 10, 30 and 100 bots on the ladder.

Reported: the pages' median, quartiles and 95th percentile; the paired ratios' median and
quartiles; the coordinator's matches a second.  Targets (issue "a ladder that never
stops"): page p95 under 300 ms, the ratio at least 0.9.  Measure with nothing else running.

    python benchmarks/ladder.py [--bots 6] [--matches 120] [--rounds 3] [--rate 50]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402
from tabulate import tabulate  # noqa: E402

from arena.botspec import BOTS_DIR, load_manifest  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.rules.game import Outcome  # noqa: E402
from arena.sandbox.layers import Layer  # noqa: E402
from arena.tournament.jobs import Played, Ready, TableJob  # noqa: E402
from arena.tournament.ladder import run_ladder  # noqa: E402
from arena.tournament.logs import compress_log  # noqa: E402
from arena.tournament.registry import install  # noqa: E402
from arena.tournament.runner import Executor  # noqa: E402
from arena.tournament.spec import TournamentSpec, VariantPlan  # noqa: E402
from arena.tournament.store import Store  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tournament import Quiet  # noqa: E402

ARENA = [sys.executable, "-m", "arena.cli"]
PAGES = ("/", "/t/ladder/", "/b/bot-0/", "/matches/")
LOG = compress_log([])
LAYERS = [str(layer) for layer in Layer]


def bots(folder: Path, count: int) -> list[Path]:
    """``count`` copies of random, each of its own author, claiming scat."""
    made = []
    for i in range(count):
        bot = folder / f"bot-{i}"
        shutil.copytree(BOTS_DIR / "random", bot, ignore=shutil.ignore_patterns("__pycache__"))
        text = (bot / "bot.toml").read_text(encoding="utf-8")
        text = text.replace('name = "random"', f'name = "bot-{i}"').replace('variants = ["*"]', 'variants = ["scat"]')
        (bot / "bot.toml").write_text(text.replace('author = "Thirty-One Arena"', f'author = "author-{i}"'),
                                      encoding="utf-8")
        made.append(bot)
    return made


def rate(db: Path, since_seq: int) -> tuple[int, float]:
    """Matches stored after ``since_seq`` and their rate (a second, first to last finished)."""
    with Store(db) as store:
        finished = sorted(m.finished for m in store.matches("ladder") if m.seq >= since_seq)
    if len(finished) < 2:
        return len(finished), 0.0
    return len(finished), (len(finished) - 1) / (finished[-1] - finished[0])


def ladder(file: Path, db: Path, matches: int) -> None:
    done = subprocess.run([*ARENA, "ladder", str(file), "--matches", str(matches), "--db", str(db), "-q"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the ladder failed: {done.stderr}")


def visitors(url: str, per_second: float, stop: threading.Event, latencies: list[float], errors: list[str],
             threads: int = 8) -> list[threading.Thread]:
    """Threads that together request ``per_second`` pages, each on a fixed schedule."""
    def visit(index: int) -> None:
        gap = threads / per_second
        due = time.monotonic() + index * gap / threads
        with httpx.Client(base_url=url, timeout=30) as client:
            k = index
            while not stop.is_set():
                time.sleep(max(0.0, due - time.monotonic()))
                begun = time.perf_counter()
                try:
                    answer = client.get(PAGES[k % len(PAGES)])
                    if answer.status_code != 200:
                        errors.append(f"{PAGES[k % len(PAGES)]}: {answer.status_code}")
                except httpx.HTTPError as error:  # a view that fails is counted; the visitor goes on
                    errors.append(f"{PAGES[k % len(PAGES)]}: {error!r}")
                latencies.append(time.perf_counter() - begun)
                k += 1
                due += gap
    made = [threading.Thread(target=visit, args=(i,), daemon=True) for i in range(threads)]
    for thread in made:
        thread.start()
    return made


class Instant(Executor):
    """Finishes every match the moment it is asked (first seat first, or in an order drawn
    from ``rng``), each with ``log`` as its stored log: only the coordinator works."""

    def __init__(self, tables: int, rng: random.Random | None = None, log: bytes = LOG) -> None:
        self.tables = tables
        self.rng = rng
        self.log = log

    def capacity(self) -> int:
        return self.tables

    def close(self) -> None:
        """Nothing held."""

    async def run(self, tables: Sequence[TableJob], ready: Callable[[Ready], None],
                  played: Callable[[Played], Awaitable[None]], failed: Callable[[TableJob, str], None]) -> None:
        ready(Ready(LAYERS, {}))
        for job in tables:
            seats = len(job.bots)
            for match in job.matches:
                places = list(range(1, seats + 1))
                if self.rng is not None:
                    self.rng.shuffle(places)
                outcome = Outcome(tuple(places), tuple(-float(p) for p in places), "instant", 1)
                await played(Played(job.id, match.id, outcome, 10, [], LAYERS, 0.0, [5] * seats, [0.0] * seats,
                                    self.log))


def coordinator(bots: int, matches: int, tables: int) -> float:
    """Matches a second the ladder's loop chooses, rates and stores with ``bots`` bots."""
    with tempfile.TemporaryDirectory(prefix="arena-ladder-bench-") as folder, \
            Store(Path(folder) / "arena.db") as store:
        manifest = load_manifest(BOTS_DIR / "random")
        names = [install(store, dataclasses.replace(manifest, name=f"bot-{i}", author=f"author-{i}")).bot
                 for i in range(bots)]
        spec = TournamentSpec(name="ladder", mode="ladder", entrants=tuple(names),
                              variants=(VariantPlan(get_variant("scat"), {}, (2, 4)),))
        begun = time.perf_counter()
        summary = run_ladder(spec, store, Quiet(), matches=matches, executor=Instant(tables))
        return summary.played / (time.perf_counter() - begun)


def _spread(values: list[float]) -> str:
    if len(values) < 2:
        return f"{values[0]:.2f}"
    q = statistics.quantiles(values, n=4, method="inclusive")
    runs = ", ".join(f"{v:.2f}" for v in values)
    return f"{statistics.median(values):.2f} (quartiles {q[0]:.2f}-{q[2]:.2f}; runs {runs})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--matches", type=int, default=120, help="ladder matches per phase")
    parser.add_argument("--rounds", type=int, default=3, help="pairs of phases (alone, with visitors)")
    parser.add_argument("--rate", type=float, default=50.0, help="page views a second")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="arena-ladder-bench-"))
    work.chmod(0o755)
    latencies: list[float] = []
    errors: list[str] = []
    ratios: list[float] = []
    windows = 0.0
    try:
        db = work / "arena.db"
        entrants = bots(work, args.bots)
        file = work / "ladder.toml"
        file.write_text('name = "ladder"\nmode = "ladder"\nentrants = [' + ", ".join(f'"{b}"' for b in entrants)
                        + ']\n[[variant]]\nname = "scat"\ntables = [2, 4]\n', encoding="utf-8")
        ladder(file, db, 8)  # registers the bots, warms the caches
        server = subprocess.Popen([*ARENA, "serve", "--db", str(db), "--port", "0", "--no-play"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert server.stdout is not None
        found = re.search(r"http://\S+", server.stdout.readline())
        assert found is not None, "arena serve did not start"
        try:
            for _ in range(args.rounds):
                with Store(db) as store:
                    first = store.next_seq("ladder")
                ladder(file, db, args.matches)
                _, alone_rate = rate(db, first)
                with Store(db) as store:
                    second = store.next_seq("ladder")
                stop = threading.Event()
                crowd = visitors(found.group().rstrip("/"), args.rate, stop, latencies, errors)
                begun = time.perf_counter()
                ladder(file, db, args.matches)
                windows += time.perf_counter() - begun
                stop.set()
                for thread in crowd:
                    thread.join(timeout=30)
                _, busy_rate = rate(db, second)
                ratios.append(busy_rate / alone_rate if alone_rate else 0.0)
                print(f"round {len(ratios)}: alone {alone_rate:.2f} matches/s, with visitors {busy_rate:.2f}: "
                      f"ratio {ratios[-1]:.2f}", flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ms = sorted(x * 1000 for x in latencies)
    q = statistics.quantiles(ms, n=20)
    quart = statistics.quantiles(ms, n=4)
    print(f"\nladder of {args.bots} bots (scat, tables of 2 and 4), {args.matches} matches a phase, {args.rounds} "
          f"rounds; {len(ms)} page views over {windows:.1f} s ({len(ms) / windows:.1f} a second, asked {args.rate:g})")
    print(tabulate([["pages", len(ms), f"{quart[1]:.1f}", f"{quart[0]:.1f}-{quart[2]:.1f}", f"{q[18]:.1f}",
                     f"{ms[-1]:.1f}"]], headers=["", "views", "median ms", "quartiles", "p95", "max"],
                   tablefmt="github"))
    ratio = statistics.median(ratios)
    print(f"ladder rate with visitors over alone: {_spread(ratios)}")
    print(f"page p95 < 300 ms: {q[18]:.0f} ms ({'MET' if q[18] < 300 else 'NOT MET'}); "
          f"ladder rate with visitors >= 0.9 of alone: {ratio:.2f} ({'MET' if ratio >= 0.9 else 'NOT MET'}); "
          f"failed views: {len(errors)}")
    rows = []
    for count in (10, 30, 100):
        runs = [coordinator(count, 600, 8) for _ in range(3)]
        rows.append([count, _spread(runs)])
    print("\ncoordinator alone (matches finished the moment they are asked, 8 tables a wave, 600 matches a run):")
    print(tabulate(rows, headers=["bots", "matches/s chosen, rated and stored"], tablefmt="github"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
