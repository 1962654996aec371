"""Luck benchmark: how much of the cards' noise the luck adjustment removes, whether it stays
unbiased, and what it costs (:mod:`arena.luck`, docs/RANKING.md "Luck-adjusted scores").

The bots are the ranking benchmark's ladder (``benchmarks/ranking.py``): the bundled
heuristic bot playing a uniformly random legal action with chance p, a seat's rung turning
with the match number so that every rung sits in every seat.  Matches are played in
process through the rules engine; each seat's result is its share of the others placed
below it (0..1) and its luck comes from :func:`arena.luck.match_luck`, as ``arena test
--luck`` measures it.

    python benchmarks/luck.py                # variance ratios, bias and CPU per case
    python benchmarks/luck.py --bias 10000   # the bias check on 10,000 matches of 4-player Scat
    python benchmarks/luck.py --sprt 3000    # arena test's deals, raw and adjusted, heads-up
    python benchmarks/luck.py --fit          # the weights, from training matches only

* **Variance ratio**: the variance of a seat's adjusted result over that of its raw result,
  each taken around its rung's mean (what is left for a ranking to average away; the
  matches needed for a given precision scale with it), with a 95% bootstrap interval over
  matches; likewise for the pair scores of every two seats (what ``arena test`` scores).
* **Bias**: per rung, the mean luck (raw mean minus adjusted mean) with its 95% interval;
  it must hold 0.
* **Cost**: the CPU time of measuring one match's luck, median and quartiles.
* **Fit** (``--fit``): the weights of each kind of event by least squares on matches of
  seeds of their own (``luck-train``), never the ones measured (``luck-eval``), to be
  copied into ``arena/luck/__init__.py``.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ranking  # noqa: E402

from arena.luck import KINDS, match_luck  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.sdk import MatchInfo  # noqa: E402
from arena.tournament.stats import sequential_test  # noqa: E402

RUNGS = (0.0, 0.1, 0.2, 0.35)
"""The rungs that take turns in the seats (the ranking ladder's strongest four)."""
CASES = (("scat", 2), ("scat", 3), ("scat", 4), ("scat", 6), ("dollar-bill", 4), ("eenendertigen", 4),
         ("no-elimination", 3), ("banking", 3), ("schwimmen", 3), ("schwimmen", 4), ("stop-the-bus", 4),
         ("switch", 3), ("fifty-one", 3), ("fifty-one-chinese", 3), ("empat-satu", 4), ("skat", 3), ("skat", 4))
FIT_CASES = (("scat", 2), ("scat", 3), ("scat", 4), ("scat-trips", 3), ("dollar-bill", 4), ("eenendertigen", 4),
             ("california-quick", 3), ("west-lansing", 3), ("no-elimination", 3), ("banking", 3), ("schwimmen", 3),
             ("schwimmen", 4), ("stop-the-bus", 4), ("switch", 3), ("fifty-one", 3), ("fifty-one-chinese", 3),
             ("empat-satu", 4), ("skat", 3), ("skat", 4))
"""Every built-in variant, at the table sizes its weights are fitted on."""
MARGIN, ALPHA, BETA, MAX_DEALS = 0.05, 0.05, 0.05, 400
"""``arena test``'s defaults."""


def play(job: tuple[str, int, int, tuple[float, ...], str, bool]) -> tuple[list[float], dict[str, list[float]],
                                                                            list[float], float, int]:
    """One match: (results, luck by kind, luck, CPU seconds of the luck, terms skipped).
    ``raw`` measures with every weight 1 and no bound (for fitting)."""
    variant, players, seed, chances, name, raw = job
    rules = get_variant(variant)
    state = rules.new_match(players, seed=seed)
    bundled = ranking.heuristic
    kind = {"thirty-one": ranking.FastHeuristic, **bundled.relatives.FAMILIES, **bundled.widow_family.FAMILIES,
            **bundled.skat_family.FAMILIES}[rules.family.name]
    bots = [kind(MatchInfo(name, variant, dict(state.options), s, players, {})) for s in range(players)]
    dice = [random.Random(f"{name}/{s}/explore") for s in range(players)]
    told = [0] * players
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        for event in state.log[told[seat]:]:
            bots[seat].on_event(event.view(seat))
        told[seat] = len(state.log)
        legal = state.legal_actions()
        if chances[seat] and dice[seat].random() < chances[seat]:
            action = dice[seat].choice(legal)
        else:
            texts = [a.text for a in legal]
            chosen = bots[seat].choose(state.observe(seat), texts)
            action = legal[texts.index(chosen)] if chosen in texts else legal[0]
        state.apply(action)
    assert state.outcome is not None
    placed = state.outcome.placements
    results = [(sum(p > placed[s] for p in placed) + 0.5 * (sum(p == placed[s] for p in placed) - 1)) / (players - 1)
               for s in range(players)]
    events = [event.full() for event in state.log]
    began = time.process_time()
    if raw:
        luck = match_luck(variant, players, {}, seed, events, weights=dict.fromkeys(_kinds(variant), 1.0),
                          bound=math.inf)
    else:
        luck = match_luck(variant, players, {}, seed, events)
    cpu = time.process_time() - began
    assert luck is not None, f"{variant} {players}p seed {seed}: no luck measured"
    return results, {k: list(v) for k, v in luck.parts.items()}, list(luck.seats), cpu, luck.skipped


def _kinds(variant: str) -> tuple[str, ...]:
    return KINDS[get_variant(variant).family.name]


def jobs_for(variant: str, players: int, matches: int, purpose: str, raw: bool,
             rungs: Sequence[float] = RUNGS) -> list[tuple[str, int, int, tuple[float, ...], str, bool]]:
    """Match ``m`` seats rung ``(s + m) % len(rungs)`` in seat ``s``."""
    return [(variant, players, ranking.seed_of(purpose, variant, players, m),
             tuple(rungs[(s + m) % len(rungs)] for s in range(players)), f"{purpose}-{m}", raw)
            for m in range(matches)]


def run(jobs: list[Any], workers: int, label: str) -> list[Any]:
    """The jobs in ``workers`` forked processes, in order, with a progress line."""
    began = time.perf_counter()
    print(f"  {label}: {len(jobs)} matches...", flush=True)
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        done = pool.map(play, jobs, chunksize=max(1, len(jobs) // (workers * 20)))
    print(f"  {label}: done in {time.perf_counter() - began:.0f} s", flush=True)
    return done


def centred(values: np.ndarray, rungs: np.ndarray) -> np.ndarray:
    """``values`` less their rung's mean (columns alike)."""
    out = values.astype(float).copy()
    for rung in np.unique(rungs):
        at = rungs == rung
        out[at] -= out[at].mean(axis=0)
    return out


def ratio_interval(raw: np.ndarray, adjusted: np.ndarray, clusters: np.ndarray, resamples: int = 400,
                   seed: int = 5) -> tuple[float, float, float]:
    """var(adjusted) / var(raw) with a 95% bootstrap interval, resampling whole matches."""
    point = float(adjusted.var() / raw.var())
    rng = np.random.default_rng(seed)
    count = int(clusters.max()) + 1
    members = [np.flatnonzero(clusters == c) for c in range(count)]
    ratios = []
    for _ in range(resamples):
        picked = np.concatenate([members[c] for c in rng.integers(0, count, count)])
        ratios.append(adjusted[picked].var() / raw[picked].var())
    low, high = np.quantile(ratios, [0.025, 0.975])
    return point, float(low), float(high)


def measure(variant: str, players: int, matches: int, workers: int) -> list[Any]:
    jobs = jobs_for(variant, players, matches, "luck-eval", False)
    done = run(jobs, workers, f"{variant} {players}p")
    rungs = np.array([job[3] for job in jobs], dtype=float).reshape(-1)
    match_of = np.repeat(np.arange(len(jobs)), players)
    results = np.array([d[0] for d in done]).reshape(-1)
    luck = np.array([d[2] for d in done]).reshape(-1)
    raw_c, adj_c = centred(results, rungs), centred(results - luck, rungs)
    seat = ratio_interval(raw_c, adj_c, match_of)
    pairs_raw, pairs_adj, pair_match, pair_rung = [], [], [], []
    k = (players - 1) / players
    for m, (res, _, lk, _, _) in enumerate(done):
        placed = res
        for i in range(players):
            for j in range(i + 1, players):
                c = 1.0 if placed[i] > placed[j] else 0.5 if placed[i] == placed[j] else 0.0
                pairs_raw.append(c)
                pairs_adj.append(c - k * (lk[i] - lk[j]))
                pair_match.append(m)
                pair_rung.append(jobs[m][3][i] * 10 + jobs[m][3][j])
    pr, pa = np.array(pairs_raw), np.array(pairs_adj)
    pair = ratio_interval(centred(pr, np.array(pair_rung)), centred(pa, np.array(pair_rung)), np.array(pair_match))
    cpu = [d[3] * 1e3 for d in done]
    q = statistics.quantiles(cpu, n=4)
    skipped = sum(d[4] for d in done)
    worst = 0.0
    for rung in np.unique(rungs):
        at = luck[rungs == rung]
        worst = max(worst, abs(at.mean()) / (at.std(ddof=1) / math.sqrt(at.size)))
    return [f"{variant} {players}p", matches, f"{seat[0]:.3f} ({seat[1]:.3f}-{seat[2]:.3f})",
            f"{pair[0]:.3f} ({pair[1]:.3f}-{pair[2]:.3f})", f"{q[1]:.1f} ({q[0]:.1f}-{q[2]:.1f})",
            f"{skipped / max(len(done), 1):.2f}", f"{worst:.1f}"]


def bias(matches: int, workers: int) -> bool:
    """Per rung of the six-rung ladder at tables of four: mean raw and adjusted result."""
    ladder = ranking.LADDER
    jobs = jobs_for("scat", 4, matches, "luck-bias", False, ladder)
    done = run(jobs, workers, "bias, scat 4p")
    rows, holds = [], True
    for rung in ladder:
        raw, adj = [], []
        for job, d in zip(jobs, done):
            for s, p in enumerate(job[3]):
                if p == rung:
                    raw.append(d[0][s])
                    adj.append(d[0][s] - d[2][s])
        diff = np.array(raw) - np.array(adj)
        half = 1.96 * diff.std(ddof=1) / math.sqrt(diff.size)
        inside = abs(diff.mean()) <= half
        holds &= inside
        rows.append([f"p = {rung:g}", diff.size, f"{np.mean(raw):.4f}", f"{np.mean(adj):.4f}",
                     f"{diff.mean():+.4f} +- {half:.4f}", "yes" if inside else "NO",
                     f"{np.var(adj) / np.var(raw):.3f}"])
    print(tabulate(rows, ["rung", "seats", "mean raw", "mean adjusted", "mean luck (95%)", "holds 0",
                          "variance ratio"]))
    print("Each rung sits at one seat of every match its rotation gives it, so its seats are independent matches.")
    return holds


def sprt(deals: int, workers: int) -> None:
    """Heads-up Scat: tests run one after another through a bank of deals (both seat
    rotations each), scored raw and adjusted, for a real gain and for two equal bots."""
    pairs = ((0.1, 0.35), (0.2, 0.35), (0.2, 0.2))
    rows = []
    for new, base in pairs:
        jobs = [("scat", 2, ranking.seed_of("luck-sprt", new, base, d), chances, f"sprt-{new}-{base}-{d}-{r}", False)
                for d in range(deals) for r, chances in enumerate(((new, base), (base, new)))]
        done = run(jobs, workers, f"sprt p={new} against p={base}")
        raw, adjusted = [], []
        for d in range(deals):
            scores_raw, scores_adj = [], []
            for r in range(2):
                res, _, lk, _, _ = done[2 * d + r]
                i, j = (0, 1) if r == 0 else (1, 0)
                c = 1.0 if res[i] > res[j] else 0.5 if res[i] == res[j] else 0.0
                scores_raw.append(c)
                scores_adj.append(c - 0.5 * (lk[i] - lk[j]))
            raw.append(sum(scores_raw) / 2)
            adjusted.append(sum(scores_adj) / 2)
        for label, scores, wide in (("raw", raw, 0.0), ("adjusted", adjusted, 0.5)):
            verdicts: dict[str, int] = {}
            lengths = []
            start = 0
            while start < len(scores):
                chunk = scores[start:start + MAX_DEALS]
                if len(chunk) < MAX_DEALS and start:
                    break
                result = sequential_test(chunk, MARGIN, ALPHA, BETA, low=-wide, high=1 + wide)
                verdicts[result.verdict] = verdicts.get(result.verdict, 0) + 1
                lengths.append(result.deals)
                start += result.deals
            q = statistics.quantiles(lengths, n=4) if len(lengths) > 1 else [lengths[0]] * 3
            score = statistics.fmean(scores)
            spread = statistics.pstdev(scores)
            rows.append([f"p={new} vs p={base}", label, f"{score:.3f}", f"{spread:.3f}", len(lengths),
                         ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())),
                         f"{statistics.fmean(lengths):.0f}", f"{q[0]:.0f} {q[1]:.0f} {q[2]:.0f}"])
    print(tabulate(rows, ["pair", "scores", "mean", "sd per deal", "tests", "verdicts", "mean deals",
                          "deals (quartiles)"]))


def fit(matches: int, workers: int) -> None:
    """Least-squares weights per variant from training matches, printed as the code holds them."""
    by_variant: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for variant, players in FIT_CASES:
        kinds = _kinds(variant)
        jobs = jobs_for(variant, players, matches, "luck-train", True)
        done = run(jobs, workers, f"training {variant} {players}p")
        rungs = np.array([job[3] for job in jobs], dtype=float).reshape(-1)
        results = np.array([d[0] for d in done]).reshape(-1)
        parts = np.array([[d[1][k][s] for k in kinds] for d in done for s in range(players)])
        data = centred(np.column_stack([results, parts]), rungs)
        by_variant.setdefault(variant, []).append((data[:, 1:], data[:, 0]))
    print("WEIGHTS = {")
    for variant, blocks in by_variant.items():
        x = np.vstack([b[0] for b in blocks])
        y = np.concatenate([b[1] for b in blocks])
        weights, *_ = np.linalg.lstsq(x, y, rcond=None)
        left = (y - x @ weights).var() / y.var()
        named = {k: round(max(float(w), 0.0), 3) for k, w in zip(_kinds(variant), weights)}
        print(f"    {variant!r}: {named},  # variance left on the training matches: {left:.3f}")
    print("}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=600, help="matches per case")
    parser.add_argument("--bias", type=int, default=0, metavar="N", help="only the bias check, on N matches")
    parser.add_argument("--sprt", type=int, default=0, metavar="DEALS", help="only arena test's deals, on a bank "
                        "of DEALS deals per pair")
    parser.add_argument("--fit", action="store_true", help="only fit the weights (training seeds)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cases", default="", help="comma-separated VARIANT:PLAYERS (default: all)")
    args = parser.parse_args()
    began = time.process_time()
    if args.fit:
        fit(args.matches, args.workers)
        return 0
    if args.bias:
        return 0 if bias(args.bias, args.workers) else 1
    if args.sprt:
        sprt(args.sprt, args.workers)
        return 0
    cases: tuple[tuple[str, int], ...] = CASES
    if args.cases:
        cases = tuple((v, int(p)) for v, p in (c.split(":") for c in args.cases.split(",")))
    rows = [measure(variant, players, args.matches, args.workers) for variant, players in cases]
    print(tabulate(rows, ["case", "matches", "variance ratio, seats (95%)", "pairs (95%)",
                          "luck CPU ms/match (q1-q3)", "terms bounded/match", "max |mean luck| / se"]))
    print(f"CPU in this process: {time.process_time() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
