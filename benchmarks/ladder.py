"""The ladder under visitors: does serving the pages slow the ladder, and do the pages stay
quick while the ladder plays on every core?

One temporary database with ``--bots`` copies of the bundled ``random`` (scat, each of its
own author), one ladder file (scat at tables of 2 and 4):

* **alone**: ``arena ladder FILE --matches M`` with no visitor; its match rate is the
  stored matches over the time from the first to the last one stored;
* **with visitors**: the same ladder again (``--matches M`` more) while ``arena serve``
  over the same database answers ``--rate`` page views a second (threads, each with its own
  connection, requesting the overview, the ladder's ranking, a bot's page and the match
  list in turn, paced by a schedule, not by the answers).  Every view's latency is
  recorded, and the ladder's rate over the same window.

Reported: the pages' median, quartiles and 95th percentile, and the ladder's rate with
visitors over its rate alone.  Targets (issue "a ladder that never stops"): page p95 under
300 ms, the ratio at least 0.9.  Measure with nothing else running.

    python benchmarks/ladder.py [--bots 6] [--matches 120] [--rate 50]
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402
from tabulate import tabulate  # noqa: E402

from arena.botspec import BOTS_DIR  # noqa: E402
from arena.tournament.store import Store  # noqa: E402

ARENA = [sys.executable, "-m", "arena.cli"]
PAGES = ("/", "/t/ladder/", "/b/bot-0/", "/matches/")


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--matches", type=int, default=120, help="ladder matches per phase")
    parser.add_argument("--rate", type=float, default=50.0, help="page views a second")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="arena-ladder-bench-"))
    work.chmod(0o755)
    try:
        db = work / "arena.db"
        entrants = bots(work, args.bots)
        file = work / "ladder.toml"
        file.write_text('name = "ladder"\nmode = "ladder"\nentrants = [' + ", ".join(f'"{b}"' for b in entrants)
                        + ']\n[[variant]]\nname = "scat"\ntables = [2, 4]\n', encoding="utf-8")
        ladder(file, db, 8)  # registers the bots, warms the caches
        with Store(db) as store:
            first = store.next_seq("ladder")
        ladder(file, db, args.matches)
        alone, alone_rate = rate(db, first)
        with Store(db) as store:
            second = store.next_seq("ladder")
        server = subprocess.Popen([*ARENA, "serve", "--db", str(db), "--port", "0", "--no-play"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert server.stdout is not None
        found = re.search(r"http://\S+", server.stdout.readline())
        assert found is not None, "arena serve did not start"
        latencies: list[float] = []
        errors: list[str] = []
        stop = threading.Event()
        crowd = visitors(found.group().rstrip("/"), args.rate, stop, latencies, errors)
        begun = time.perf_counter()
        ladder(file, db, args.matches)
        window = time.perf_counter() - begun
        stop.set()
        for thread in crowd:
            thread.join(timeout=30)
        server.terminate()
        server.wait(timeout=30)
        busy, busy_rate = rate(db, second)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ms = sorted(x * 1000 for x in latencies)
    q = statistics.quantiles(ms, n=20)
    quart = statistics.quantiles(ms, n=4)
    print(f"ladder of {args.bots} bots (scat, tables of 2 and 4), {args.matches} matches a phase; "
          f"{len(ms)} page views over {window:.1f} s ({len(ms) / window:.1f} a second, asked {args.rate:g})")
    print(tabulate([["pages", len(ms), f"{quart[1]:.1f}", f"{quart[0]:.1f}-{quart[2]:.1f}", f"{q[18]:.1f}",
                     f"{ms[-1]:.1f}"]], headers=["", "views", "median ms", "quartiles", "p95", "max"],
                   tablefmt="github"))
    ratio = busy_rate / alone_rate if alone_rate else 0.0
    print(f"ladder alone: {alone} matches, {alone_rate:.2f} a second; with visitors: {busy} matches, "
          f"{busy_rate:.2f} a second; ratio {ratio:.2f}")
    print(f"page p95 < 300 ms: {q[18]:.0f} ms ({'MET' if q[18] < 300 else 'NOT MET'}); "
          f"ladder rate with visitors >= 0.9 of alone: {ratio:.2f} ({'MET' if ratio >= 0.9 else 'NOT MET'}); "
          f"failed views: {len(errors)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
