"""Does a host's memory follow its ladder?  The pages' resident memory at growing ladders.

A ladder's pages read every match of a ranking (its ratings, tallies, the deal-group
bootstrap, the head-to-head records), and a host renders them again as matches land for
weeks.  Whatever a rendering holds per match it holds at its peak, and the C allocator
keeps most of a peak: the host's memory then grows with the ladder.  This measures it
without the hours a soak takes.

One ladder of ``--bots`` bots (each of its own author; scat at tables of 2 and 4) is
stored by the ladder's own loop, fed by an executor that finishes every match at once
with seeded random placements and a log of a real match's size, and copied when it holds
each of ``--sizes`` matches.
Then, for each copy, a fresh process sets the allocator up as ``arena serve`` does and
renders the overview, the ladder's ranking (overall and for scat), a bot's page and the
match list, each in a thread of its own as the host renders them, ``--rounds`` times.

Reported per size: the process's resident memory (VmRSS) before rendering and after each
round, and the CPU seconds of a round.  The verdict compares the memory after the last
round at the largest size with that at the smallest: the issue "a ladder that never
stops" allows 10% of growth after a ladder's first ten minutes (some 3,000 matches).

    python benchmarks/page_memory.py [--bots 8] [--sizes 3000 10000 32000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabulate import tabulate  # noqa: E402

from arena.botspec import BOTS_DIR, load_manifest  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.tournament.ladder import run_ladder  # noqa: E402
from arena.tournament.registry import install  # noqa: E402
from arena.tournament.spec import TournamentSpec, VariantPlan  # noqa: E402
from arena.tournament.store import Store  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ladder import Instant  # noqa: E402
from tournament import Quiet  # noqa: E402

ALLOWED = 0.10
"""The growth the issue allows."""
LOG_BYTES = 2048
"""A stored match's compressed log, about what a ladder's matches of random bots store: the
database is as large as a real ladder's, and so is what SQLite reads and keeps of it."""


def ladders(folder: Path, bots: int, sizes: Sequence[int]) -> list[Path]:
    """Copies of one ladder's database as it holds each of ``sizes`` matches."""
    db = folder / "arena.db"
    copies = []
    with Store(db) as store:
        manifest = load_manifest(BOTS_DIR / "random")
        names = [install(store, dataclasses.replace(manifest, name=f"bot-{i}", author=f"author-{i}")).bot
                 for i in range(bots)]
        spec = TournamentSpec(name="ladder", mode="ladder", entrants=tuple(names),
                              variants=(VariantPlan(get_variant("scat"), {}, (2, 4)),))
        rng = random.Random(31)
        executor = Instant(8, rng, log=rng.randbytes(LOG_BYTES))
        for size in sorted(sizes):
            run_ladder(spec, store, Quiet(), matches=size - store.count("ladder"), executor=executor)
            copy = folder / f"ladder-{size}.db"
            with sqlite3.connect(db) as source, sqlite3.connect(copy) as target:
                source.backup(target)  # one moment of the database, its log included
            copies.append(copy)
            print(f"stored {store.count('ladder')} matches", file=sys.stderr, flush=True)
    return copies


RENDER = """
import sys, threading, time
from pathlib import Path
from arena.web.allocator import settle
settle()
from arena.web import pages
from arena.web.readonly import ReadOnlyStore, RatingsMemo
from arena.web.render import render
from arena.web.readonly import Wanted

db, rounds = Path(sys.argv[1]), int(sys.argv[2])
memo = RatingsMemo()
builds = [lambda s: pages.index(s), lambda s: pages.tournament(s, "ladder"),
          lambda s: pages.tournament(s, "ladder", "scat"), lambda s: pages.bot(s, "bot-0"),
          lambda s: pages.listed(s, Wanted(), 1)]

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0

def one(build):
    with ReadOnlyStore(db, memo) as store:
        render(build(store), relative=False)

print(rss(), flush=True)
for _ in range(rounds):
    cpu = time.process_time()
    threads = [threading.Thread(target=one, args=(b,)) for b in builds]
    for t in threads: t.start()
    for t in threads: t.join()
    print(rss(), round(time.process_time() - cpu, 2), flush=True)
"""


def measure(db: Path, rounds: int) -> tuple[int, list[int], list[float]]:
    """A fresh process's memory before rendering, after each round, and each round's CPU."""
    done = subprocess.run([sys.executable, "-c", RENDER, str(db), str(rounds)], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parent.parent)
    first, *rest = done.stdout.split("\n")[:rounds + 1]
    return int(first), [int(r.split()[0]) for r in rest], [float(r.split()[1]) for r in rest]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 10000, 32000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-page-memory-") as folder:
        begun = time.perf_counter()
        copies = ladders(Path(folder), args.bots, args.sizes)
        print(f"ladders stored in {time.perf_counter() - begun:.0f} s", file=sys.stderr)
        rows, last = [], []
        for size, copy in zip(sorted(args.sizes), copies):
            before, after, cpu = measure(copy, args.rounds)
            rows.append([size, before, " ".join(map(str, after)), " ".join(f"{c:.1f}" for c in cpu)])
            last.append(after[-1])
    print(f"ladder of {args.bots} bots; pages: overview, ranking (overall and scat), a bot's page, the match list, "
          f"each in a thread, {args.rounds} rounds in a fresh process per size")
    print(tabulate(rows, headers=["matches", "MiB before", "MiB after each round", "CPU s a round"]))
    growth = last[-1] / last[0] - 1
    verdict = "MET" if growth < ALLOWED else "NOT MET"
    print(f"memory after the last round, {sorted(args.sizes)[0]:,} to {sorted(args.sizes)[-1]:,} matches: "
          f"{last[0]} to {last[-1]} MiB, {growth:+.1%} (under {ALLOWED:.0%}: {verdict})")


if __name__ == "__main__":
    main()
