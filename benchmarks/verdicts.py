"""The search bot's verdicts: ``arena test ismcts OTHER`` for every other bundled bot of a
variant, each test played twice on fresh keys (every test has its own name, so its own
secret deal key), through the real CLI, referee and sandbox.

    python benchmarks/verdicts.py --db results/verdicts.db --move-ms 200
    python benchmarks/verdicts.py --variant skat --repeat 1

Prints one row per test (deals, score, interval, verdict, minutes), a markdown table for
docs/STRENGTH.md, and what the search bot played in all the database's verdict tests:
matches, decisions, its mean time a decision and the faults of any seat (a timeout is
one).  Skat needs a third seat: a registered copy of the heuristic bot
(``heuristic-field``), so that both tested bots meet a sensible bidder.  The random bots
in other languages (``c-random``, ``node-random``) play the same uniform policy as
``random`` and are left out.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena.cli"]
OPPONENTS = {
    "scat": ("random", "threshold", "survival", "tracker", "heuristic"),
    "schwimmen": ("random", "threshold", "survival", "tracker", "heuristic"),
    "fifty-one": ("random", "heuristic"),
    "skat": ("random", "heuristic"),
}
FIELD = "heuristic-field"
LINE = re.compile(r"deals (\d+) \((\d+) level\): score ([\d.]+) \(\d+%: ([\d.]+) to ([\d.]+)\).*: (\w[\w ]*)$")


def run(args: list[str]) -> str:
    done = subprocess.run(ARENA + args, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"arena {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", help="variants (default: all four)")
    parser.add_argument("--against", action="append", help="only these opponents (default: every other bot)")
    parser.add_argument("--repeat", type=int, default=2, help="tests per pair, each on its own key")
    parser.add_argument("--move-ms", type=int, default=200)
    parser.add_argument("--db", default="results/verdicts.db")
    parser.add_argument("--tag", default="v", help="part of the tests' names: a new tag means new keys")
    args = parser.parse_args()
    variants = args.variant or list(OPPONENTS)
    if "skat" in variants:
        run(["submit", "bots/heuristic", "--name", FIELD, "--smoke", "1", "--db", args.db])
    rows = []
    for variant in variants:
        for other in (o for o in OPPONENTS[variant] if not args.against or o in args.against):
            for k in range(1, args.repeat + 1):
                name = f"verdict-{args.tag}{k}-ismcts-{other}-{variant}"
                seats = ["--players", "3", "--field", FIELD] if variant == "skat" else []
                began = time.perf_counter()
                out = run(["test", "ismcts", other, "-v", variant, *seats, "--move-ms", str(args.move_ms),
                           "--name", name, "--db", args.db, "-q"])
                minutes = (time.perf_counter() - began) / 60
                line = next(x for x in out.splitlines() if x.startswith(f"{name}: deals "))
                found = LINE.search(line)
                assert found is not None, line
                deals, level, score, low, high, verdict = found.groups()
                row = [variant, other, k, int(deals), float(score), f"{low} to {high}", verdict, f"{minutes:.1f}"]
                rows.append(row)
                print(*row, sep="\t", flush=True)
    print("\n| variant | against | test | deals | score | 90% interval | verdict | minutes |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(str(x) for x in row) + " |")
    print(played(args.db))


def played(db: str) -> str:
    """What the search bot played in the database's verdict tests: matches, its decisions
    and mean thinking time a decision, and every fault of any seat by kind."""
    with sqlite3.connect(REPO / db) as connection:
        matches, decisions, think = connection.execute(
            "SELECT COUNT(DISTINCT m.id), SUM(s.decisions), SUM(s.think_s) FROM matches m"
            " JOIN seats s ON s.match = m.id JOIN versions v ON v.id = s.version"
            " WHERE m.tournament LIKE 'verdict-%' AND v.bot = 'ismcts'").fetchone()
        kinds: dict[str, int] = {}
        for (faults,) in connection.execute("SELECT faults FROM matches WHERE tournament LIKE 'verdict-%'"):
            for fault in json.loads(faults):
                kinds[fault.get("kind", "?")] = kinds.get(fault.get("kind", "?"), 0) + 1
    faults = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())) or "none"
    mean_ms = 1000 * (think or 0) / max(decisions or 0, 1)
    return (f"\nthe search bot in {matches or 0} verdict matches: {decisions or 0} decisions "
            f"({mean_ms:.0f} ms a decision on the referee's clock); faults of any seat: {faults}")


if __name__ == "__main__":
    main()
