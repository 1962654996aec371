"""Chance that a run played until settled falsely settles equal bots, by simulation.

``[settle]`` looks after every step of ``deals`` deals and ``league --settle`` after the
league grows by a quarter; each stops at the first look where every bot is ahead of the
next.  Looked at unadjusted, equal bots "settle" far more often than the confidence says.
Each case simulates tournaments of equal bots (a known truth: no order exists), looks as
the arena does, and judges each look with the arena's own functions
(:func:`arena.tournament.stats.uncertainty`, :func:`~arena.tournament.stats.ahead` on the
neighbours of the fitted order, the look's level from
:func:`~arena.tournament.stats.look_confidence`).  The rate of false settles must stay at
most 1 - confidence + 0.02; the same runs judged at the unadjusted level are shown beside
it, and a power case (one bot placing better 60% of the time) shows what the correction
costs.

Each deal is played once per seat rotation; the cards favour one seat, so a deal's
rotations are correlated as at a real table (most two-player deals split 1-1).

    python benchmarks/settle.py [--runs 500] [--workers 2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.tournament.league import LOOK_GROWTH  # noqa: E402
from arena.tournament.results import Results  # noqa: E402
from arena.tournament.stats import ahead, look_confidence, uncertainty  # noqa: E402
from arena.tournament.store import MatchRecord, SeatRecord  # noqa: E402

CONFIDENCE = 0.95
BOUND = 1 - CONFIDENCE + 0.02


@dataclass(frozen=True)
class Case:
    name: str
    bots: int
    """Bots at the one table (every deal is played in each of their rotations)."""
    step: int
    """Deals a step ([settle]); 0: looks spaced by LOOK_GROWTH (league)."""
    max_matches: int
    edge: float = 0.0
    """How much more often bot 0 places first than its fair share (0: all equal)."""
    open_ended: bool = False
    """Judge as ``league --settle`` without ``--matches``: no bound on the looks."""


CASES = (
    Case("[settle] 2 bots, a look every 10 deals", 2, 10, 1000),
    Case("[settle] 2 bots, a look every 5 deals", 2, 5, 1000),
    Case("[settle] 3 bots, a look every 10 deals", 3, 10, 1800),
    Case("league --settle 2 bots, --matches 2000", 2, 0, 2000),
    Case("league --settle 2 bots, no --matches", 2, 0, 2000, open_ended=True),
    Case("[settle] 2 bots, a look every 10 deals (power: 0.60)", 2, 10, 1000, edge=0.1),
)


def deal_matches(rng: np.random.Generator, case: Case, deal: int) -> list[MatchRecord]:
    """One deal in each rotation: the seat the cards favour wins 70% of the time (else a
    uniformly drawn seat), bot 0 gets ``edge`` more wins."""
    favoured = int(rng.integers(case.bots))
    out = []
    for r in range(case.bots):
        seats = [(b + r) % case.bots for b in range(case.bots)]  # seats[bot] = its seat this rotation
        if case.edge and rng.random() < case.edge * case.bots / (case.bots - 1):
            winner = 0
        elif rng.random() < 0.7:
            winner = seats.index(favoured)
        else:
            winner = int(rng.integers(case.bots))
        rest = [b for b in range(case.bots) if b != winner]
        rng.shuffle(rest)
        order = [winner, *rest]
        record = tuple(SeatRecord(b, 1 + order.index(b), 0.0) for b in range(case.bots))
        out.append(MatchRecord(f"{deal}-{r}", "sim", deal * case.bots + r, "scat", {}, 0, record, "", 1, 1,
                               deal=deal))
    return out


def settles(matches: list[MatchRecord], bots: int, level: float) -> bool:
    """Whether every neighbour of the fitted order is ahead of the next at ``level``."""
    spread = uncertainty(Results.of(matches), list(range(bots)), resamples=400, level=level)
    if not spread.enough:
        return False
    order = sorted(range(bots), key=lambda b: -spread.theta[b])
    return all(ahead(spread.stronger(a, b), level) for a, b in zip(order, order[1:]))


def run(job: tuple[int, int, int]) -> tuple[int, list[tuple[bool, bool, int]]]:
    """``runs`` simulated runs of case ``index``: (settled adjusted, settled unadjusted, matches)."""
    index, runs, seed = job
    case = CASES[index]
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        matches: list[MatchRecord] = []
        adjusted = unadjusted = False
        stop = case.max_matches
        look, last, looks = 0, 0, None
        deal = 0
        while len(matches) + case.bots <= case.max_matches:
            matches += deal_matches(rng, case, deal)
            deal += 1
            if case.step:
                if deal % case.step:
                    continue
                looks = case.max_matches // (case.step * case.bots)
            elif look and len(matches) < last * LOOK_GROWTH:
                continue
            elif not look and not case.open_ended:
                looks = 1 + int(math.log(case.max_matches / len(matches)) / math.log(LOOK_GROWTH))
            look, last = look + 1, len(matches)
            if not unadjusted and settles(matches, case.bots, CONFIDENCE):
                unadjusted = True
            if settles(matches, case.bots, look_confidence(CONFIDENCE, look, looks)):
                adjusted, stop = True, len(matches)
                break
        out.append((adjusted, unadjusted, stop))
    return index, out


def rate(k: int, n: int) -> str:
    """``k / n`` with its 95% Wilson interval."""
    z = 1.959964
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{p:.3f} ({max(centre - half, 0):.3f} to {min(centre + half, 1):.3f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=500, help="simulated runs per case")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    chunks = 8
    jobs = [(i, args.runs // chunks + (k < args.runs % chunks), args.seed * 1000 + 10 * i + k)
            for i in range(len(CASES)) for k in range(chunks)]
    outcomes: dict[int, list[tuple[bool, bool, int]]] = {i: [] for i in range(len(CASES))}
    with ProcessPoolExecutor(args.workers) as pool:
        for index, results in pool.map(run, jobs):
            outcomes[index] += results
    rows, within = [], True
    for index, case in enumerate(CASES):
        done = outcomes[index]
        n = len(done)
        adjusted = sum(a for a, _, _ in done)
        unadjusted = sum(u for _, u, _ in done)
        check = case.edge > 0 or adjusted / n <= BOUND
        within &= check
        stops = [m for a, _, m in done if a]
        stopped = " ".join(f"{q:.0f}" for q in statistics.quantiles(stops, n=4)) if len(stops) > 1 else "-"
        rows.append([case.name, n, rate(adjusted, n), rate(unadjusted, n), stopped,
                     "power" if case.edge else "yes" if check else "NO"])
    print(f"runs played until settled at {CONFIDENCE:.0%}; {args.runs} runs a case")
    print(tabulate(rows, headers=["case", "runs", "settled (95%)", "settled unadjusted (95%)",
                                  "matches at a settle q1 med q3", f"within {BOUND:.2f}"],
                   tablefmt="github", disable_numparse=True))
    print("every case within its bound" if within else "SOME CASE OUT OF BOUNDS")
    return 0 if within else 1


if __name__ == "__main__":
    raise SystemExit(main())
