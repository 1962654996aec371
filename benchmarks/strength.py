"""Playing strength: seeded 4-player matches between bots through the real referee.

Every seed is played once per rotation of the seats (duplicate deals: each bot meets the
same deals from every seat), with one set of bot processes kept alive for the whole run,
as a tournament would.  Prints per bot the matches, average placement, wins and thinking
time, and a head-to-head table (matches in which the row bot placed ahead of / level with
/ behind the column bot).

    python benchmarks/strength.py --variant scat --seeds 25 --move-ms 150 \\
        --bot ismcts --bot threshold --bot survival --bot tracker

Not a test: the figures depend on the machine's load (the search bot thinks for a share
of ``move_ms``).  ``--sandbox`` runs the bots behind every isolation layer the machine
offers (slower to start); the default is rlimits and an own session.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabulate import tabulate  # noqa: E402

from arena.botspec import find_bot  # noqa: E402
from arena.referee import Bot, MatchResult, TimeControl, open_bots, play_match  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.sandbox import Sandbox  # noqa: E402

DEFAULT_BOTS = ("ismcts", "threshold", "survival", "tracker")


@dataclass
class Record:
    """One bot's results over the run."""

    placements: list[int] = field(default_factory=list)
    decisions: int = 0
    think_s: float = 0.0
    max_s: float = 0.0
    faults: int = 0


@dataclass
class Standings:
    """Every bot's record and the pairwise results."""

    names: list[str]
    records: dict[str, Record] = field(default_factory=dict)
    versus: dict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))

    def add(self, result: MatchResult, seating: list[str]) -> None:
        placements = result.outcome.placements
        for seat, name in enumerate(seating):
            record = self.records.setdefault(name, Record())
            record.placements.append(placements[seat])
            timing = result.timings[seat]
            record.decisions += timing.decisions
            record.think_s += timing.total_s
            record.max_s = max(record.max_s, timing.max_s)
        for fault in result.faults:
            self.records[seating[fault.seat]].faults += 1
        for a, name_a in enumerate(seating):
            for b, name_b in enumerate(seating):
                if a != b:
                    tally = self.versus[(name_a, name_b)]
                    tally[0 if placements[a] < placements[b] else 1 if placements[a] == placements[b] else 2] += 1

    def table(self) -> str:
        rows = []
        for name in sorted(self.names, key=lambda n: _mean(self.records[n].placements)):
            r = self.records[name]
            rows.append([
                name, len(r.placements), f"{_mean(r.placements):.3f}", sum(1 for p in r.placements if p == 1),
                f"{1000 * r.think_s / max(1, r.decisions):.1f}", f"{1000 * r.max_s:.0f}", r.faults,
            ])
        return tabulate(rows, ["bot", "matches", "avg place", "wins", "mean ms", "max ms", "faults"])

    def head_to_head(self) -> str:
        rows = []
        for a in self.names:
            rows.append([a] + ["-" if a == b else "{}/{}/{}".format(*self.versus[(a, b)]) for b in self.names])
        return tabulate(rows, ["ahead/level/behind", *self.names])


def labels(names: list[str]) -> list[str]:
    """One label per seat: a bot named twice gets ``name 2`` for its second process."""
    out = []
    for i, name in enumerate(names):
        count = names[:i].count(name)
        out.append(f"{name} {count + 1}" if count else name)
    return out


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


async def run(args: argparse.Namespace) -> Standings:
    variant = get_variant(args.variant)
    bots_named: list[str] = args.bot or list(DEFAULT_BOTS)
    names = labels(bots_named)
    control = TimeControl(move_ms=args.move_ms, bank_ms=args.bank_ms, first_move_ms=args.first_move_ms)
    sandbox = await Sandbox.probe() if args.sandbox else None
    standings = Standings(names)
    started = time.perf_counter()
    async with open_bots([find_bot(n) for n in bots_named], time_control=control, sandbox=sandbox) as bots:
        failed = [f"{n}: {b}" for n, b in zip(names, bots) if not isinstance(b, Bot)]
        if failed:
            raise SystemExit("bots failed to start: " + "; ".join(failed))
        k = len(names)
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for shift in range(k):
                order = [(i + shift) % k for i in range(k)]
                result = await play_match(variant, [bots[i] for i in order], seed=seed, time_control=control,
                                          match_id=f"{args.variant}-{seed}-{shift}")
                standings.add(result, [names[i] for i in order])
            if args.progress:
                print(f"seed {seed}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return standings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="scat")
    parser.add_argument("--bot", action="append", help=f"a bot per seat (default: {', '.join(DEFAULT_BOTS)})")
    parser.add_argument("--seeds", type=int, default=10, help="deals; each is played once per seat rotation")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--move-ms", type=int, default=150)
    parser.add_argument("--bank-ms", type=int, default=2000)
    parser.add_argument("--first-move-ms", type=int, default=1000)
    parser.add_argument("--sandbox", action="store_true", help="every isolation layer the machine offers")
    parser.add_argument("--progress", action="store_true", help="a line on stderr after each seed")
    args = parser.parse_args()
    started = time.perf_counter()
    standings = trio.run(run, args)
    matches = len(next(iter(standings.records.values())).placements)
    print(f"{args.variant}: {matches} matches ({args.seeds} seeds x {len(standings.names)} seatings), "
          f"move_ms={args.move_ms} bank_ms={args.bank_ms}, {time.perf_counter() - started:.0f} s")
    print(standings.table())
    print()
    print(standings.head_to_head())


if __name__ == "__main__":
    main()
