"""Error rates of ``arena test``'s sequential test, by simulation with a known truth.

Each case draws per-deal scores (NEW's mean comparison score against BASE over a deal's
seat rotations) from a known distribution and runs the arena's own
:func:`arena.tournament.stats.sequential_test` on them, as ``arena test`` does, up to its
default 400 deals, at its defaults (margin 0.05, alpha = beta = 0.05).  The cases are the
ones that broke the earlier test:

* **i.i.d.**: two rotations a deal, each placing NEW better, level or worse;
* **sparse**: a share q of the deals decided (won or lost), the rest exactly level, as when
  a new version plays like its base on most deals;
* **correlated rotations**: four rotations a deal that often go the same way (the deal's
  luck), as at a table of four;
* **identical**: every deal level (two copies of a deterministic bot).

At a true score of 0.5 a ``better`` verdict is false; at 0.55 (the margin) a ``not better``
verdict is.  Each must stay at most 0.05 + 0.02.  Rates are printed with their 95% Wilson
intervals; a case whose true score cannot reach the margin (q = 0.05: at most 0.525) says so.

    python benchmarks/sequential.py [--runs 2000] [--workers 2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.tournament.stats import sequential_test  # noqa: E402

MARGIN, ALPHA, BETA, DEALS = 0.05, 0.05, 0.05, 400
BOUND = 0.05 + 0.02
Draw = Callable[[np.random.Generator, int], "np.ndarray[tuple[int], np.dtype[np.float64]]"]


def iid(score: float) -> Draw:
    """Two rotations a deal, each won, level (10%) or lost, at a mean of ``score``."""
    def draw(rng: np.random.Generator, deals: int) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
        win = 0.45 + (score - 0.5)
        return np.asarray(rng.choice([0.0, 0.5, 1.0], size=(deals, 2), p=[0.9 - win, 0.1, win]).mean(axis=1))
    return draw


def sparse(share: float, score: float) -> Draw:
    """A ``share`` of the deals won or lost outright, the others level, at a mean of ``score``."""
    def draw(rng: np.random.Generator, deals: int) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
        decided = rng.random(deals) < share
        won = rng.random(deals) < 0.5 + (score - 0.5) / share
        return np.where(decided, np.where(won, 1.0, 0.0), 0.5)
    return draw


def correlated(score: float) -> Draw:
    """Four rotations a deal: with chance 0.6 all go one way (the deal's luck), else each
    its own way, at a mean of ``score``."""
    def draw(rng: np.random.Generator, deals: int) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
        together = rng.random(deals) < 0.6
        shared = (rng.random(deals) < score).astype(float)
        own = (rng.random((deals, 4)) < score).astype(float).mean(axis=1)
        return np.where(together, shared, own)
    return draw


def identical(rng: np.random.Generator, deals: int) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
    return np.full(deals, 0.5)


CASES: list[tuple[str, float, Draw]] = [
    ("identical (every deal level)", 0.5, identical),
    ("i.i.d.", 0.5, iid(0.5)), ("i.i.d.", 0.55, iid(0.55)), ("i.i.d.", 0.6, iid(0.6)),
    *[(f"sparse, q = {q:g}", 0.5, sparse(q, 0.5)) for q in (0.05, 0.1, 0.2, 0.3)],
    ("sparse, q = 0.05", 0.525, sparse(0.05, 0.525)),
    *[(f"sparse, q = {q:g}", 0.55, sparse(q, 0.55)) for q in (0.1, 0.2, 0.3)],
    ("correlated rotations", 0.5, correlated(0.5)), ("correlated rotations", 0.55, correlated(0.55)),
]


def run_case(job: tuple[int, int, int]) -> tuple[int, list[tuple[str, int]]]:
    """``runs`` tests of case ``index``, each on fresh draws: (verdict, deals) of each."""
    index, runs, seed = job
    _, _, draw = CASES[index]
    rng = np.random.default_rng([seed, index])
    results = []
    for _ in range(runs):
        result = sequential_test(draw(rng, DEALS).tolist(), MARGIN, ALPHA, BETA)
        results.append((result.verdict, result.deals))
    return index, results


def wilson(hits: int, n: int) -> tuple[float, float]:
    """95% Wilson interval of a rate."""
    z = 1.96
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{hits / n:.3f} ({low:.3f}-{high:.3f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=2000, help="tests per case")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    chunks = 8
    jobs = [(i, args.runs // chunks + (k < args.runs % chunks), args.seed * 1000 + k)
            for i in range(len(CASES)) for k in range(chunks)]
    outcomes: dict[int, list[tuple[str, int]]] = {i: [] for i in range(len(CASES))}
    with ProcessPoolExecutor(args.workers) as pool:
        for index, results in pool.map(run_case, jobs):
            outcomes[index] += results
    rows, within = [], True
    for index, (name, score, _) in enumerate(CASES):
        done = outcomes[index]
        n = len(done)
        counts = {v: sum(1 for verdict, _ in done if verdict == v) for v in ("better", "not better", "undecided")}
        deals = sorted(d for _, d in done)
        quartiles = statistics.quantiles(deals, n=4) if n > 1 else [deals[0]] * 3
        if score == 0.5:
            check = counts["better"] / n <= BOUND
        elif score == 0.5 + MARGIN:
            check = counts["not better"] / n <= BOUND
        else:
            check = True
        within &= check
        note = "" if score in (0.5, 0.5 + MARGIN) else " (power)" if score > 0.5 + MARGIN else " (cannot reach 0.55)"
        rows.append([name, f"{score:g}{note}", n, rate(counts["better"], n), rate(counts["not better"], n),
                     rate(counts["undecided"], n), f"{quartiles[0]:.0f} {quartiles[1]:.0f} {quartiles[2]:.0f}",
                     "yes" if check else "NO"])
    print(f"arena test's sequential test: margin {MARGIN}, alpha = beta = {ALPHA}, at most {DEALS} deals, "
          f"{args.runs} tests a case")
    print(tabulate(rows, headers=["case", "true score", "tests", "'better' (95%)", "'not better' (95%)",
                                  "undecided (95%)", "deals q1 med q3", f"within {BOUND:.2f}"],
                   tablefmt="github", disable_numparse=True))
    print("every case within its bound" if within else "SOME CASE OUT OF BOUNDS")
    return 0 if within else 1


if __name__ == "__main__":
    raise SystemExit(main())
