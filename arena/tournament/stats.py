"""How sure a ranking is: intervals, rank ranges, pairwise odds and the sequential test.

Pure functions over stored matches (no I/O).  The cards decide much of every match, so a
TrueSkill sigma that shrinks as if each match were a clean measurement is no confidence
statement; and matches that share a deal (its seat rotations, and the other tables dealt
the same cards) are not independent.  So the uncertainty comes from a **deal-group
bootstrap**:

* every pair of seats of a match is one comparison (1 for placing better, 0.5 for a
  shared placement; with the luck asked for, less the share of the two seats' luck that
  :mod:`arena.tournament.adjust` describes); comparisons are summed per *deal group*, the
  matches dealt the same cards (same variant, table size and deal);
* a Bradley-Terry model (strength ``theta``, ``P(i places above j) = 1/(1 + e^(theta_j -
  theta_i))``) is fitted to the sums by Zermelo's iteration, with a weak prior (one win
  and one loss against an average player) that keeps a bot that never placed better
  finite;
* the deal groups are resampled with replacement ``B`` times and the model refitted: the
  spread of the refits is the uncertainty, with the dependence inside a group kept, and
  stretched for the number of groups (:func:`widening`).

The table's 95% interval is TrueSkill's ``mu`` plus the bootstrap's 2.5% and 97.5%
quantiles of ``theta - theta_hat``, expressed in rating points: TrueSkill predicts
``P(i beats j) = Phi((mu_i - mu_j) / (sqrt(2) beta))`` and the logistic curve is close to
``Phi(x / 1.702)``, so one unit of ``theta`` is ``sqrt(2) beta / 1.702`` rating points.

The sequential test (``arena test``) takes, per complete deal, the new version's mean
comparison score against the base version, and bets on it (:func:`sequential_test`): a test
by betting keeps its error rate for every distribution of bounded scores and at any stop,
where a likelihood ratio under a normal approximation needs a variance the data may not
show (deterministic bots level on most deals).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Final

import numpy as np
import numpy.typing as npt

from arena.tournament.results import Results

__all__ = [
    "LOGISTIC_TO_NORMAL",
    "ahead",
    "MIN_GROUPS",
    "SequentialTest",
    "Comparisons",
    "Uncertainty",
    "comparisons",
    "confidence_sequence",
    "fit_strengths",
    "look_confidence",
    "rating_points",
    "t_quantile",
    "sequential_test",
    "uncertainty",
    "widening",
]

LOGISTIC_TO_NORMAL: Final = 1.702
"""``1/(1 + e^-x)`` is within 0.01 of ``Phi(x / 1.702)`` everywhere."""
MIN_GROUPS: Final = 10
"""Fewer independent deal groups than this say too little about their own spread: no
interval, rank range or separation is claimed from them."""
_PRIOR: Final = 1.0
"""Virtual comparisons against an average player: one win and one loss each."""
_ITERATIONS: Final = 400
_TOLERANCE: Final = 1e-9

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Comparisons:
    """Per deal group, the summed scores ``W[g, i, j]`` of ``versions[i]`` against
    ``versions[j]`` and the number of comparisons ``N[g, i, j]``, kept sparse: a ladder has
    tens of thousands of groups and each touches a few of its versions, so the dense
    arrays would take groups x versions^2 numbers (hundreds of megabytes at 30 bots)."""

    groups: int
    size: int
    """The number of versions."""
    group: npt.NDArray[np.intp]
    """Each entry's group (entries sorted by cell, then group)."""
    cell: npt.NDArray[np.intp]
    """Each entry's ``i * size + j``."""
    wins: Array
    counts: Array
    cells: npt.NDArray[np.intp]
    """The cells with entries, and where each one's entries start (``starts``)."""
    starts: npt.NDArray[np.intp]

    def weighted(self, weights: Array) -> tuple[Array, Array]:
        """``W`` and ``N`` summed over the groups with each row of ``weights`` (shape
        ``(k, groups)``): two arrays of shape ``(k, size, size)``."""
        k, n = weights.shape[0], self.size
        sums = np.zeros((2, k, n * n))
        if self.cell.size:
            per_entry = weights[:, self.group]
            sums[0][:, self.cells] = np.add.reduceat(per_entry * self.wins, self.starts, axis=1)
            sums[1][:, self.cells] = np.add.reduceat(per_entry * self.counts, self.starts, axis=1)
        return sums[0].reshape(k, n, n), sums[1].reshape(k, n, n)

    def total(self) -> tuple[Array, Array]:
        """``W`` and ``N`` summed over every group (shape ``(size, size)``)."""
        wins, counts = self.weighted(np.ones((1, self.groups)))
        return wins[0], counts[0]


def comparisons(matches: Results, versions: Sequence[int]) -> Comparisons:
    """Every pair of seats of ``versions`` at a table, summed per deal group."""
    n = len(versions)
    group, groups = matches.groups()
    total = max(groups, 1)
    both = matches.pairs()
    i, j = _positions(matches.version[both.first], versions), _positions(matches.version[both.second], versions)
    kept = (i >= 0) & (j >= 0) & (i != j)
    i, j, g = i[kept], j[kept], group[both.match[kept]]
    first, second = matches.placement[both.first[kept]], matches.placement[both.second[kept]]
    score = np.where(first < second, 1.0, np.where(first == second, 0.5, 0.0))
    if matches.luck is not None:  # luck-adjusted: (n - 1) / n of the two seats' luck taken out
        size = matches.sizes[both.match[kept]]
        gap = matches.luck[both.first[kept]] - matches.luck[both.second[kept]]
        score = score - np.where(np.isfinite(gap), (size - 1) / size * gap, 0.0)
    keys = np.concatenate([i * n + j, j * n + i]) * total + np.concatenate([g, g])
    won = np.concatenate([score, 1.0 - score])
    unique, inverse = np.unique(keys, return_inverse=True)
    wins = np.bincount(inverse.reshape(-1), weights=won, minlength=unique.size).astype(np.float64)
    counts = np.bincount(inverse.reshape(-1), minlength=unique.size).astype(np.float64)
    by_cell = (unique // total).astype(np.intp)
    cells, first_entry = np.unique(by_cell, return_index=True)
    return Comparisons(total, n, (unique % total).astype(np.intp), by_cell, wins, counts, cells.astype(np.intp),
                       first_entry.astype(np.intp))


def _positions(found: npt.NDArray[np.int64], versions: Sequence[int]) -> npt.NDArray[np.int64]:
    """Where each of ``found`` stands in ``versions`` (-1 where it does not)."""
    if not versions:
        return np.full(found.shape, -1, dtype=np.int64)
    wanted = np.asarray(versions, dtype=np.int64)
    order = np.argsort(wanted, kind="stable")
    at = np.minimum(np.searchsorted(wanted[order], found), len(wanted) - 1)
    return np.where(wanted[order][at] == found, order[at], -1)


def fit_strengths(wins: Array, counts: Array) -> Array:
    """Bradley-Terry strengths (mean 0) for summed ``wins``/``counts`` of shape
    ``(..., n, n)``: one fit per leading index, all at once.  Luck-adjusted wins can leave
    ``0..counts``: a pair's wins are cut to its games (more wins than games have no chance
    of happening under the model, and the fit would run off to infinity, prior and all),
    which is the most a raw record can show: the cut only ever meets a pair that one side
    won (nearly) outright, whose strength gap the prior sets anyway."""
    n = wins.shape[-1]
    if n == 0:
        return np.zeros(wins.shape[:-1])
    won = np.clip(wins, 0.0, counts).sum(axis=-1) + _PRIOR
    p = np.ones(wins.shape[:-1])
    for _ in range(_ITERATIONS):
        pairs = counts / (p[..., :, None] + p[..., None, :])
        denominator = pairs.sum(axis=-1) + 2 * _PRIOR / (p + 1.0)
        updated = won / denominator
        updated /= np.exp(np.log(updated).mean(axis=-1, keepdims=True))
        done = np.max(np.abs(updated - p)) < _TOLERANCE
        p = updated
        if done:
            break
    theta: Array = np.log(p)
    centred: Array = theta - theta.mean(axis=-1, keepdims=True)
    return centred


RESAMPLES_AT_ONCE: Final = 100
"""Resamples fitted together."""
WEIGHTS_AT_ONCE: Final = 1 << 20
"""Their weights are drawn a few resamples at a time, each batch's resamples times the larger
of groups and comparison entries at most this (a few such arrays are held at once, some
tens of MiB): a ladder's tens of thousands of deal groups would otherwise take hundreds."""


@dataclass(frozen=True)
class Uncertainty:
    """What the deal-group bootstrap says about a set of versions (indexed like ``versions``)."""

    versions: tuple[int, ...]
    theta: Array
    """Bradley-Terry strengths fitted to all the data (mean 0)."""
    samples: Array
    """Refitted strengths, one row per bootstrap resample."""
    groups: int
    """Independent deal groups the data holds."""

    @property
    def enough(self) -> bool:
        """Whether there are enough deal groups to claim anything (:data:`MIN_GROUPS`)."""
        return self.groups >= MIN_GROUPS

    def shift(self, i: int, level: float = 0.95) -> tuple[float, float]:
        """The interval of version ``i``'s strength around its estimate, in theta units."""
        tail = (1 - level) / 2
        low, high = np.quantile(self.samples[:, i] - self.theta[i], [tail, 1 - tail])
        return float(low), float(high)

    def difference(self, i: int, j: int, level: float = 0.95) -> tuple[float, float, float]:
        """Estimate and percentile interval of ``theta_i - theta_j``."""
        tail = (1 - level) / 2
        spread = self.samples[:, i] - self.samples[:, j]
        low, high = np.quantile(spread, [tail, 1 - tail])
        return float(self.theta[i] - self.theta[j]), float(low), float(high)

    def stronger(self, i: int, j: int) -> float:
        """How likely ``i`` is the stronger: ``Phi(d / s)`` for the estimated difference ``d``
        of strengths and the resamples' spread ``s`` of it.  A share of resamples would do at
        95%, but a stop that looks many times asks for tails far beyond what 1,000 resamples
        resolve (:func:`look_confidence`); the normal curve through the same spread answers
        at any level, and near 95% within the resamples' own noise."""
        spread = float(np.std(self.samples[:, i] - self.samples[:, j]))
        d = float(self.theta[i] - self.theta[j])
        if spread <= 1e-12:  # every resample alike: the data leave no doubt (or no difference)
            return 0.5 if abs(d) <= 1e-12 else float(d > 0)
        return NormalDist().cdf(d / spread)

    def separated(self, i: int, j: int, level: float = 0.95) -> bool:
        """Whether the data put ``i`` and ``j`` in a definite order at ``level`` (two-sided)."""
        p = self.stronger(i, j)
        return min(p, 1 - p) < (1 - level) / 2

    def rank_range(self, i: int, level: float = 0.95) -> tuple[int, int]:
        """The ranks ``i`` holds in the middle ``level`` of the resamples (1 = best)."""
        ranks = 1 + (self.samples > self.samples[:, i:i + 1]).sum(axis=1)
        tail = (1 - level) / 2
        low, high = np.quantile(ranks, [tail, 1 - tail], method="inverted_cdf")
        return int(low), int(high)


def uncertainty(matches: Results, versions: Sequence[int], *, resamples: int = 1000,
                seed: int = 0, level: float = 0.95) -> Uncertainty:
    """Fit and bootstrap over deal groups (``seed`` makes the resampling reproducible), the
    spread stretched for statements at ``level`` (:func:`widening`)."""
    compared = comparisons(matches, versions)
    groups = compared.groups
    if not len(matches):
        return Uncertainty(tuple(versions), np.zeros(len(versions)), np.zeros((1, len(versions))), 0)
    theta = fit_strengths(*compared.total())
    rng = np.random.default_rng(seed)
    n, step = len(versions), max(1, WEIGHTS_AT_ONCE // max(compared.cell.size, groups))
    share = np.full(groups, 1.0 / groups)
    fitted = []
    for begin in range(0, resamples, RESAMPLES_AT_ONCE):
        size = min(RESAMPLES_AT_ONCE, resamples - begin)
        wins, counts = np.empty((size, n, n)), np.empty((size, n, n))
        for part in range(0, size, step):  # the weights, drawn in turn, are the same ones
            weights = rng.multinomial(groups, share, size=min(step, size - part)).astype(float)
            wins[part:part + len(weights)], counts[part:part + len(weights)] = compared.weighted(weights)
        fitted.append(fit_strengths(wins, counts))
    samples = np.concatenate(fitted)
    samples = theta + (samples - theta) * widening(groups, level)
    return Uncertainty(tuple(versions), theta, samples, groups)


def widening(groups: int, level: float = 0.95) -> float:
    """How much the bootstrap's spread is stretched for ``groups`` deal groups, for
    statements at ``level`` (two-sided).

    With G groups the bootstrap's spread is short by sqrt((G - 1) / G), and a percentile
    interval from few groups is as narrow as a normal one where a Student's t with G - 1
    degrees of freedom is due.  Both are undone.  Measured (benchmarks/ranking.py,
    docs/RANKING.md): with the first alone, 95% intervals of pairwise differences held
    the truth in 0.900 to 0.917 of replicates at 10 to 16 groups; with both, 0.927 to 0.946.
    """
    if groups < 2:
        return 1.0
    q = 1 - (1 - level) / 2  # the t and normal quantiles part further at higher levels: stretch for the one asked
    return math.sqrt(groups / (groups - 1)) * t_quantile(q, groups - 1) / NormalDist().inv_cdf(q)


def ahead(share: float, confidence: float = 0.95) -> bool:
    """Whether a line whose share of resamples ahead of the next line is ``share`` is ahead
    of it at ``confidence`` (two-sided): the one definition of "separated" that the table,
    ``[settle]`` and ``league --settle`` share.  A share near 0 (the next line ahead in
    nearly every resample, the table's order reversed) is not a separation."""
    return share > 1 - (1 - confidence) / 2


def look_confidence(confidence: float, look: int, looks: int | None) -> float:
    """The confidence one look of a repeated check must reach so that all looks together
    keep ``confidence``: a run that re-checks "separated" after every step and stops at the
    first yes would otherwise settle two equal bots far more often than it says (a third
    of the time at 95%, 50 looks).  Alpha is spent by the union bound, which holds however
    the looks depend on each other: evenly over ``looks`` when their number is bounded
    (``[settle]``: by ``max_matches``), and ``alpha / (k (k + 1))`` at look ``k`` (1-based)
    when it is not, which sums to alpha over any number of looks."""
    alpha = 1 - confidence
    spent = alpha / max(looks, 1) if looks is not None else alpha / (look * (look + 1))
    return 1 - spent


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile by its Cornish-Fisher expansion in 1/df (within 0.1% from 5 degrees
    of freedom on, and conservative below): no statistics library needed for one number."""
    z = NormalDist().inv_cdf(p)
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def rating_points(beta: float) -> float:
    """Rating points per unit of Bradley-Terry strength, for TrueSkill's ``beta``."""
    return math.sqrt(2) * beta / LOGISTIC_TO_NORMAL


# -- the sequential test -------------------------------------------------------------------


@dataclass(frozen=True)
class SequentialTest:
    """The state of ``arena test`` after some deals: two tests by betting, one for each
    verdict, and a confidence sequence for the score (:func:`sequential_test`)."""

    deals: int
    score: float
    """Mean comparison score of the new version against the base (0.5: level)."""
    interval: tuple[float, float]
    """Confidence sequence of that score at :attr:`level`: it holds at whatever deal the
    test stopped."""
    level: float
    """1 - alpha - beta: each end is wrong with chance (alpha + beta) / 2, so at the
    defaults its lower end is the one-sided 95% bound that ``better`` is about."""
    tied: int
    """Deals that ended exactly level (score 0.5): they carry no evidence either way."""
    better: float
    """Evidence for ``better``: the wealth of a bet against "no better" (1 at the start)."""
    not_better: float
    """Evidence for ``not better``: the wealth of a bet against "better by the margin"."""
    better_at: float
    """Wealth at which ``better`` is called: 1 / alpha."""
    not_better_at: float
    """Wealth at which ``not better`` is called: 1 / beta."""
    verdict: str
    """``better``, ``not better`` or ``undecided``."""


CAP: Final = 0.5
"""The largest share of its wealth a bet may risk on one deal (Waudby-Smith and Ramdas'
truncation ``c``): past it one bad deal could nearly ruin a bet that was right."""


def sequential_test(scores: Sequence[float], margin: float, alpha: float = 0.05, beta: float = 0.05, *,
                    low: float = 0.0, high: float = 1.0) -> SequentialTest:
    """Is NEW better than BASE, from the per-deal ``scores`` (each in ``low..high``: 0..1
    for placements, wider for luck-adjusted scores, which the bets see rescaled to 0..1)?

    Two tests by betting (Shafer and Vovk; Waudby-Smith and Ramdas 2023), valid for every
    distribution of per-deal scores, however many deals are tied and however often the
    test looks: one bets that the mean score is above 0.5 and calls ``better`` once its
    wealth reaches 1 / ``alpha`` (no bet grows that far on a mean of 0.5 or less, but with
    chance ``alpha``: Ville's inequality); the other bets that it is below 0.5 + ``margin``
    and calls ``not better`` at 1 / ``beta``.  Each deal's stake is chosen from the deals
    before it only (aGRAPA: the growth-optimal stake for the mean and variance seen so far,
    at most :data:`CAP`).  A tied deal moves the first bet not at all, and the second a
    little (a tie is below 0.5 + margin): two bots that always play level are called
    ``not better`` after a few dozen deals, never ``better``."""
    width = high - low
    if not width > 0 or not low <= 0.5 <= high:
        raise ValueError(f"scores in {low}..{high} cannot be tested against 0.5")
    level_score = (0.5 - low) / width
    prior = 0.25 / width ** 2  # the pseudo-deal's spread: that of a 0..1 score, in the rescaled units
    for_better = _Bet(level_score, 1.0, prior)
    for_not_better = _Bet(level_score + margin / width, -1.0, prior)
    verdict, n = "undecided", 0
    for x in scores:
        n += 1
        for_better.add((x - low) / width)
        for_not_better.add((x - low) / width)
        if for_better.wealth >= 1 / alpha:
            verdict = "better"
        elif for_not_better.wealth >= 1 / beta:
            verdict = "not better"
        if verdict != "undecided":
            break
    seen = list(scores[:n])
    level = max(1 - alpha - beta, 0.5)
    lower, upper = confidence_sequence([(x - low) / width for x in seen], level, prior)
    return SequentialTest(
        n, sum(seen) / n if n else 0.5, (low + lower * width, low + upper * width), level,
        sum(1 for x in seen if abs(x - 0.5) < 1e-9), for_better.wealth, for_not_better.wealth, 1 / alpha, 1 / beta,
        verdict)


class _Bet:
    """Wealth of a bet on deal scores ``x`` against the mean ``m``: ``side`` +1 bets the mean
    is above ``m`` (each deal multiplies the wealth by 1 + stake * (x - m)), -1 below.  The
    stakes start from one pseudo-deal at 0.5 with variance ``prior`` (any prior keeps the
    error rates: the stakes only ever use the deals before them)."""

    def __init__(self, m: float, side: float, prior: float = 0.25) -> None:
        self.m, self.side, self.prior = m, side, prior
        self.wealth = 1.0
        self.n, self.total, self.squares = 1, 0.5, 0.25  # one pseudo-deal at 0.5
        self.most = CAP / (m if side > 0 else 1 - m)  # the stake that could lose all on the worst deal, capped

    def add(self, x: float) -> None:
        mean = self.total / self.n
        variance = max(self.squares / self.n - mean * mean, 0.0) + self.prior / self.n
        edge = self.side * (mean - self.m)
        stake = min(max(edge / (variance + edge * edge), 0.0), self.most)
        self.wealth *= 1 + stake * self.side * (x - self.m)
        self.n, self.total, self.squares = self.n + 1, self.total + x, self.squares + x * x


GRID: Final = 1000
"""Candidate means of the confidence sequence (its resolution: 0.001)."""


def confidence_sequence(scores: Sequence[float], level: float = 0.95, prior: float = 0.25) -> tuple[float, float]:
    """The means not ruled out at ``level`` by the scores (in 0..1) so far, at any stopping
    time: the hedged betting confidence sequence of Waudby-Smith and Ramdas (2023, Theorem 3)
    with their predictable plug-in stakes, from a pseudo-deal of variance ``prior``,
    intersected over time (0 to 1 before any deal)."""
    n = len(scores)
    if n == 0:
        return 0.0, 1.0
    x = np.asarray(scores, dtype=float)
    steps = np.arange(1, n + 1)
    means = (0.5 + np.cumsum(x)) / (steps + 1)
    variances = (prior + np.cumsum((x - means) ** 2)) / (steps + 1)
    before = np.concatenate(([prior], variances[:-1]))  # each deal's stake knows only the deals before it
    alpha = 1 - level
    plug_in = np.sqrt(2 * math.log(2 / alpha) / (before * steps * np.log1p(steps)))
    m = (np.arange(GRID) + 0.5) / GRID
    up = np.minimum(plug_in[:, None], CAP / m[None, :])
    down = np.minimum(plug_in[:, None], CAP / (1 - m[None, :]))
    gap = x[:, None] - m[None, :]
    log_up = np.cumsum(np.log1p(up * gap), axis=0)
    log_down = np.cumsum(np.log1p(-down * gap), axis=0)
    capital = np.maximum(np.exp(log_up), np.exp(log_down)) / 2
    kept = np.all(capital < 1 / alpha, axis=0)  # never ruled out so far: the running intersection
    if not kept.any():
        mean = float(x.mean())
        return mean, mean
    return float(m[kept].min() - 0.5 / GRID), float(m[kept].max() + 0.5 / GRID)
