"""Ranking benchmark: how fast and how honestly the arena recovers a known order of bots.

A ladder of six entrants whose order is known by construction: the bundled heuristic bot
that, at each decision, plays a uniformly random legal action with probability
p = 0, 0.1, 0.2, 0.35, 0.5 and 1 (p = 1 is a random bot).  Everything is played in process
through the rules engine (no referee, no sandbox, no subprocesses); the matches become
:class:`~arena.tournament.store.MatchRecord` objects and are ranked by the arena's own
code (:func:`arena.tournament.stats.uncertainty`, :func:`arena.tournament.stats.sequential_test`,
:func:`arena.tournament.sequential.deal_scores`).

    python benchmarks/ranking.py                 # the default run (see docs/RANKING.md)
    python benchmarks/ranking.py --quick         # a smoke run (about 3 CPU-minutes)
    python benchmarks/ranking.py --luck --skip-tests   # the replicates raw and luck-adjusted
    python benchmarks/ranking.py --tests-only --null-rungs 1 --null-tests 1000 --power-pairs "" --seed 1

1. **The truth.**  A long duplicate-deal run (``--truth-deals`` deals, every table, every
   rotation) gives the Bradley-Terry strengths taken as true, and shows whether they come
   out in the constructed order (with TrueSkill's fitted environment and ratings).
2. **Replicate tournaments** of 1 to 32 deals per table in two designs over the same
   tables and seatings (every 4-subset of the six entrants: 15 tables, each deal in
   every seat rotation: 60 matches a deal): *duplicate*, every table and rotation of a
   deal dealt the same cards (one deal group: same variant, table size and deal, as
   :meth:`arena.tournament.results.Results.groups` has it); *independent*, every match dealt
   from a seed of its own (each match its own group).  A bank of ``--bank`` deal slots
   is played per design; the replicates of a size are disjoint runs of consecutive slots
   (``--bank`` // size of them, at most ``--replicates``), so within a size they are
   independent.  The same banks also give smaller tournaments of a cheaper round-robin
   (``--round-sizes``): each deal at one round of 3 tables, the 15 tables falling into 5
   rounds in which every entrant sits at two tables, the rounds in turn (12 matches a
   deal).  Reported per size and design: the share of replicates whose fitted order has
   Kendall tau >= 0.9 against the true order (with six entrants that is the exact order),
   the matches at which 90% of replicates get there, the mean squared error of the
   pairwise differences, and the coverage of the 95% intervals of every pairwise
   difference (``Uncertainty.difference``; also widened by Student's t for the number of
   groups, for comparison), of every strength (``Uncertainty.shift``, what ``arena
   table`` shows) and of the rank ranges, with the separations claimed and how many were
   the wrong way round.  With ``--luck`` every match of the two banks has its luck
   measured (:func:`arena.luck.match_luck`, as ``arena table --luck`` does) and every
   replicate is ranked twice, on raw and on luck-adjusted comparisons: the matches each
   needs to reach the exact order, side by side.
3. **The sequential test** (``arena test``), heads-up: each deal is played in both seat
   rotations and scored by :func:`~arena.tournament.sequential.deal_scores`; margin 0.05,
   alpha = beta = 0.05, at most 400 deals, deals added 8 at a time.  False "better"
   verdicts between two copies of one rung (``--null-rungs``), power on real gains
   (``--power-pairs``), the deals each test needed, and each pair's score over
   ``--reference-deals`` fixed deals.

The heuristic bot spends almost all its time valuing draws.  Here its ``choose_turn``
and ``potential`` are replaced by array versions over a table of every three-card hand's
value (:class:`FastHeuristic`): the same arithmetic on the same exact (integral) values,
so the same decisions, which the run checks on a few matches against the bundled code
before it starts (``--check N`` checks more).  Everything else is the bundled bot.

Played matches are cached in ``results/ranking-cache/`` under a fingerprint of what they
depend on (the actions of a few seeded matches: the engine's deals and the bot's
choices): the long run is reused unless ``--fresh``, the replicate banks only with
``--reuse``.  Two worker processes at most (``--workers``).  Every phase's wall and CPU
time is printed; the figures go to ``results/ranking.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import inspect
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
HEURISTIC = ROOT / "bots" / "heuristic"
sys.path.insert(0, str(HEURISTIC))  # the bot imports its sibling modules (relatives, widow)

from tabulate import tabulate  # noqa: E402

from arena.luck import VERSION as LUCK_VERSION  # noqa: E402
from arena.luck import match_luck  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.sdk import MatchInfo  # noqa: E402
from arena.tournament.ratings import fit_environment, rate  # noqa: E402
from arena.tournament.results import Gathered, Results  # noqa: E402
from arena.tournament.sequential import deal_scores  # noqa: E402
from arena.tournament.stats import (  # noqa: E402
    MIN_GROUPS,
    comparisons,
    fit_strengths,
    rating_points,
    sequential_test,
    uncertainty,
)
from arena.tournament.store import MatchRecord, SeatRecord  # noqa: E402

_spec = importlib.util.spec_from_file_location("heuristic_bot", HEURISTIC / "bot.py")
assert _spec is not None and _spec.loader is not None
heuristic: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(heuristic)

LADDER = (0.0, 0.1, 0.2, 0.35, 0.5, 1.0)
"""Chance of a uniformly random legal action per decision, strongest rung first."""
SIZES = (1, 2, 4, 8, 10, 12, 16, 24, 32)
"""Deals per table of the replicate tournaments."""
REACH_TAU = 0.9
REACH_SHARE = 0.9
MARGIN, ALPHA, BETA, MAX_DEALS, BATCH = 0.05, 0.05, 0.05, 400, 8
"""``arena test``'s defaults."""
CACHE_VERSION = 2
RESULTS = ROOT / "results"


# -- the bot, in process ------------------------------------------------------------------

_VALUE_TABLES: dict[str, np.ndarray] = {}


def _value_table(bot: Any) -> np.ndarray:
    """``table[a, b, c]``: the bot's score of the hand {a, b, c} (NaN for a repeated card)."""
    key = repr(sorted(bot.options.items()))
    table = _VALUE_TABLES.get(key)
    if table is None:
        table = np.full((52, 52, 52), np.nan)
        for a, b, c in combinations(bot.deck, 3):
            value = bot.rate(a, b, c)
            for x, y, z in ((a, b, c), (a, c, b), (b, a, c), (b, c, a), (c, a, b), (c, b, a)):
                table[x, y, z] = value
        known = table[np.isfinite(table)]
        # sums of such values are exact in any order, so the arrays add up as the loops do
        assert np.all(known * 4 == np.round(known * 4)), "hand values are not multiples of 1/4"
        _VALUE_TABLES[key] = table
    return table


class FastHeuristic(heuristic.Bot):  # type: ignore[misc]
    """The bundled heuristic bot with its draw valuation done on arrays (same decisions)."""

    def __init__(self, match: MatchInfo) -> None:
        super().__init__(match)
        self.table = _value_table(self)

    def potential(self, hand: list[int], unseen: list[int], cache: dict[int, float]) -> float:
        a, b, c = hand
        key = heuristic.BIT[a] | heuristic.BIT[b] | heuristic.BIT[c]
        p = cache.get(key)
        if p is None:
            v = self.table
            u = np.array(unseen, dtype=np.intp)
            u = u[(u != a) & (u != b) & (u != c)]
            base = v[a, b, c]
            best = np.maximum(np.maximum(v[a, b, u], v[a, c, u]), v[b, c, u])
            gain = float(np.where(best > base, best - base, 0.0).sum())
            p = cache[key] = gain / len(u) if len(u) else 0.0
        return p

    def choose_turn(self, observation: dict[str, Any], legal: list[str], hand: list[int], unseen: list[int]) -> str:
        """``heuristic.Bot.choose_turn`` step for step, the draw's expectation on arrays."""
        if observation.get("widow"):
            return super().choose_turn(observation, legal, hand, unseen)  # type: ignore[no-any-return]
        last = observation.get("phase") == "last_turn"
        current = self.rate_hand(hand)
        if "knock" in legal:
            if current >= 31 + heuristic.SPECIAL_BONUS:
                return "knock"
            if not last and self.should_knock(observation, hand, current, unseen):
                return "knock"
        lam = 0.0 if last else heuristic.LAMBDA
        v = self.table
        cache: dict[int, float] = {}

        def score(h: list[int]) -> float:
            value = float(v[h[0], h[1], h[2]])
            return value + lam * self.potential(h, unseen, cache) if lam else value

        candidates: list[tuple[float, str]] = []
        own = score(hand)
        top = observation.get("discard_top")
        if "take" in legal and top in heuristic.INDEX:
            t = heuristic.INDEX[top]
            candidates.append((max(score([x, y, t]) for x, y in combinations(hand, 2)) + 1e-6, "take"))
        m = len(unseen)
        if "draw" in legal and m:
            u = np.array(unseen, dtype=np.intp)
            per = np.full(m, own)  # per drawn card x: the best score of three of hand + x
            grids = [v[h][u[:, None], u[None, :]] for h in hand]  # grids[k][x, y]: the hand (hand[k], x, y)
            off = ~np.eye(m, dtype=bool)
            for i, j in ((0, 1), (0, 2), (1, 2)):
                base = v[hand[i], hand[j], u]  # the hand (hand[i], hand[j], x), per x
                if lam and m > 1:
                    best = np.maximum(np.maximum(base[None, :], grids[i]), grids[j])  # ... then drawing y
                    gain = np.where(off & (best > base[:, None]), best - base[:, None], 0.0).sum(axis=1)
                    per = np.maximum(per, base + lam * (gain / (m - 1)))
                else:
                    per = np.maximum(per, base + lam * 0.0 if lam else base)
            total = 0.0
            for s in per.tolist():  # summed in the loop's order: the same float as the bot's
                total += s
            candidates.append((total / m, "draw"))
        if "stand" in legal:
            candidates.append((own, "stand"))
        if candidates:
            return max(candidates)[1]
        return "draw" if "draw" in legal else legal[0]


def play(variant: str, chances: Sequence[float], seed: int, match_id: str, options: dict[str, Any] | None = None,
         kind: type = FastHeuristic, actions: list[str] | None = None,
         events: list[dict[str, Any]] | None = None) -> tuple[tuple[int, ...], int]:
    """One match: seat ``s`` is the heuristic bot playing a random legal action with chance
    ``chances[s]``; returns the placements and the number of decisions (and its events in
    ``events``, as the store keeps them).  Each seat is told its events before each decision,
    as the bot host does."""
    rules = get_variant(variant)
    players = len(chances)
    state = rules.new_match(players, seed=seed, options=options or {})
    bots = [kind(MatchInfo(match_id, variant, dict(options or {}), s, players, {})) for s in range(players)]
    dice = [random.Random(f"{match_id}/{s}/explore") for s in range(players)]
    told = [0] * players
    decisions = 0
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        log = state.log
        bot = bots[seat]
        for event in log[told[seat]:]:
            bot.on_event(event.view(seat))
        told[seat] = len(log)
        legal = state.legal_actions()
        if chances[seat] and dice[seat].random() < chances[seat]:
            action = dice[seat].choice(legal)
        else:
            texts = [a.text for a in legal]
            chosen = bot.choose(state.observe(seat), texts)
            action = legal[texts.index(chosen)] if chosen in texts else legal[0]
        if actions is not None:
            actions.append(action.text)
        state.apply(action)
        decisions += 1
    assert state.outcome is not None
    if events is not None:
        events.extend(event.full() for event in state.log)
    return tuple(state.outcome.placements), decisions


def check_bot(variant: str, players: int, matches: int) -> int:
    """Play ``matches`` matches with the bundled heuristic and with :class:`FastHeuristic`;
    fail unless every action is the same.  Returns the decisions compared."""
    compared = 0
    for m in range(matches):
        chances = [LADDER[(m + s) % 3] for s in range(players)]
        fast: list[str] = []
        bundled: list[str] = []
        play(variant, chances, 7_000 + m, f"check-{m}", kind=FastHeuristic, actions=fast)
        play(variant, chances, 7_000 + m, f"check-{m}", kind=heuristic.Bot, actions=bundled)
        if fast != bundled:
            raise SystemExit(f"the array version of the heuristic bot differs from bots/heuristic in match {m}")
        compared += len(fast)
    return compared


# -- tournaments --------------------------------------------------------------------------


def seed_of(*parts: object) -> int:
    """A 63-bit seed named by ``parts``."""
    return int.from_bytes(hashlib.sha256("/".join(map(str, parts)).encode()).digest()[:8], "big") >> 1


class Setup:
    """What is played: the variant, table size, ladder, tables and the base seed."""

    def __init__(self, variant: str, players: int, ladder: Sequence[float], seed: int, luck: bool = False) -> None:
        self.variant, self.players, self.ladder, self.seed = variant, players, tuple(ladder), seed
        self.luck = luck
        """Whether the replicate banks measure each match's luck (the truth never needs it)."""
        self.tables = list(combinations(range(len(ladder)), players))
        self.per_slot = len(self.tables) * players
        """Matches of one deal slot: every table in every rotation."""
        self.rounds = rounds(self.tables) if (len(ladder), players) == (6, 4) else []
        """Six entrants at tables of four: the 15 tables fall into 5 rounds of 3, each
        leaving out the pairs of one perfect matching, so that in every round each entrant
        sits at two tables (a 1-factorisation of the complete graph on six)."""

    def key(self, *parts: object) -> str:
        return "-".join(map(str, (self.variant, self.players, *self.ladder, self.seed, *parts)))


def rounds(tables: Sequence[tuple[int, ...]]) -> list[list[int]]:
    """The table indices of each round: round ``r`` leaves out the pairs (r, 5),
    (r + 1, r + 4) and (r + 2, r + 3) (mod 5), one table for each."""
    index = {frozenset(t): k for k, t in enumerate(tables)}
    result = []
    for r in range(5):
        pairs = [(r, 5), ((r + 1) % 5, (r + 4) % 5), ((r + 2) % 5, (r + 3) % 5)]
        result.append(sorted(index[frozenset(range(6)) - frozenset(pair)] for pair in pairs))
    assert sorted(k for tables_of in result for k in tables_of) == list(range(15))
    return result


Row = tuple[int, int, tuple[int, ...], int, tuple[float, ...] | None]
"""(table, rotation, placements, decisions, each seat's luck or None when not measured)."""


def play_slot(setup: Setup, kind: str, slot: int) -> list[Row]:
    """One deal slot: every table in every rotation.  ``kind`` ``independent`` deals every
    match from its own seed; any other kind deals one seed to all (duplicate deals)."""
    rows = []
    shared = seed_of(setup.seed, setup.variant, setup.players, kind, slot)
    for t, table in enumerate(setup.tables):
        for r in range(setup.players):  # rotation r: seat s holds table[(s + r) % n], as the scheduler seats them
            seating = [table[(s + r) % setup.players] for s in range(setup.players)]
            seed = seed_of(setup.seed, setup.variant, setup.players, kind, slot, t, r) if kind == "independent" \
                else shared
            events: list[dict[str, Any]] | None = [] if setup.luck and kind != "truth" else None
            placements, decisions = play(setup.variant, [setup.ladder[e] for e in seating], seed,
                                         f"{kind}-{slot}-t{t}r{r}", events=events)
            luck = None if events is None else match_luck(setup.variant, setup.players, {}, seed, events)
            rows.append((t, r, placements, decisions, None if luck is None else luck.seats))
    return rows


def records(setup: Setup, kind: str, slots: Iterable[tuple[int, list[Row]]],
            only: Callable[[int], Sequence[int]] | None = None) -> list[MatchRecord]:
    """The slots' matches as the store would hold them (versions 1..6 = the ladder's rungs);
    duplicate slots are deals (one group each), independent matches have no deal.  With
    ``only``, the ``k``-th slot given keeps only the tables ``only(k)``."""
    out: list[MatchRecord] = []
    n = setup.players
    for slot, (t, r, placements, decisions, _) in kept(slots, only):
        table = setup.tables[t]
        seats = tuple(SeatRecord(table[(s + r) % n] + 1, placements[s], 0.0) for s in range(n))
        out.append(MatchRecord(f"{kind}-{slot}-t{t}r{r}", "ranking", len(out), setup.variant, {}, 0, seats,
                               "", 0, decisions, deal=None if kind == "independent" else slot))
    return out


def adjusted(setup: Setup, kind: str, slots: Iterable[tuple[int, list[Row]]],
             only: Callable[[int], Sequence[int]] | None = None) -> Results:
    """The same matches as :func:`records`, as results whose comparisons take out each
    seat's luck (``arena table --luck``)."""
    gathered = Gathered(luck=True)
    n = setup.players
    for slot, (t, r, placements, _, luck) in kept(slots, only):
        assert luck is not None, "a bank played without --luck"
        gathered.match(setup.variant, None if kind == "independent" else slot)
        table = setup.tables[t]
        for s in range(n):
            gathered.seat(table[(s + r) % n] + 1, placements[s], 0, luck[s])
    return gathered.results()


def kept(slots: Iterable[tuple[int, list[Row]]],
         only: Callable[[int], Sequence[int]] | None) -> Iterator[tuple[int, Row]]:
    """Each slot's rows, the ``k``-th slot given keeping only the tables ``only(k)``."""
    for k, (slot, rows) in enumerate(slots):
        keep = None if only is None else set(only(k))
        for row in rows:
            if keep is None or row[0] in keep:
                yield slot, row


def versions(setup: Setup) -> list[int]:
    return list(range(1, len(setup.ladder) + 1))


# -- worker processes ---------------------------------------------------------------------

_SETUP: Setup | None = None
_BANKS: dict[str, list[list[Row]]] = {}
_TRUTH: np.ndarray | None = None


def _slot_job(job: tuple[str, int]) -> tuple[str, int, list[Row]]:
    assert _SETUP is not None
    kind, slot = job
    return kind, slot, play_slot(_SETUP, kind, slot)


CPU_SECONDS: dict[str, float] = {}
"""CPU time the jobs of each phase took, summed over the processes."""
CACHED: set[str] = set()
"""Phases whose matches came from the cache (their times are those of the run that played them)."""


def _timed(call: tuple[Callable[[Any], Any], Any]) -> tuple[float, Any]:
    function, job = call
    began = time.process_time()
    result = function(job)
    return time.process_time() - began, result


def run_jobs(function: Callable[[Any], Any], jobs: list[Any], workers: int, label: str) -> list[Any]:
    """``function`` over ``jobs`` in ``workers`` forked processes, with progress lines; the
    CPU time they take is added to ``CPU_SECONDS[label]``."""
    done: list[Any] = []
    began = time.perf_counter()
    step = max(1, len(jobs) // 10)
    calls = [(function, job) for job in jobs]
    if workers <= 1:
        results: Iterable[tuple[float, Any]] = map(_timed, calls)
        pool = None
    else:
        pool = multiprocessing.get_context("fork").Pool(workers)
        results = pool.imap_unordered(_timed, calls)
    try:
        for cpu, result in results:
            CPU_SECONDS[label] = CPU_SECONDS.get(label, 0.0) + cpu
            done.append(result)
            if len(done) % step == 0 or len(done) == len(jobs):
                elapsed = time.perf_counter() - began
                print(f"  {label}: {len(done)}/{len(jobs)} in {elapsed:.0f} s", flush=True)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return done


def play_bank(setup: Setup, kind: str, slots: int, workers: int, reuse: bool) -> tuple[list[list[Row]], float]:
    """``slots`` deal slots of ``kind``, from the cache when ``reuse`` and it holds them."""
    measured = f"luck{LUCK_VERSION}" if setup.luck and kind != "truth" else "raw"
    cache = RESULTS / "ranking-cache" / f"{setup.key(kind, slots, CACHE_VERSION, measured, fingerprint(setup))}.json"
    if reuse and cache.is_file():
        stored = json.loads(cache.read_text())
        print(f"{kind}: {slots} deal slots from {cache.relative_to(ROOT)} (played in {stored['seconds']:.0f} s, "
              f"{stored['cpu'] / 60:.1f} CPU-minutes)")
        CACHED.add(kind)
        CPU_SECONDS[kind] = stored["cpu"]
        return [[(t, r, tuple(p), d, None if luck is None else tuple(luck)) for t, r, p, d, luck in rows]
                 for rows in stored["slots"]], stored["seconds"]
    print(f"{kind}: playing {slots} deal slots of {setup.per_slot} matches ...", flush=True)
    began = time.perf_counter()
    played = run_jobs(_slot_job, [(kind, s) for s in range(slots)], workers, kind)
    seconds = time.perf_counter() - began
    bank = [rows for _, _, rows in sorted(played, key=lambda item: item[1])]
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"seconds": seconds, "cpu": CPU_SECONDS[kind], "slots": bank}))
    return bank, seconds


_FINGERPRINTS: dict[tuple[str, int], str] = {}


def fingerprint(setup: Setup) -> str:
    """What the cached matches depend on, by behaviour rather than by source: every action
    of a few seeded matches (the rules engine's deals, the bot's choices, the random
    actions), and the code that seats the tables.  A change to the bot or the engine that
    plays differently makes another cache."""
    key = (setup.variant, setup.players)
    if key not in _FINGERPRINTS:
        digest = hashlib.sha256(inspect.getsource(play_slot).encode())
        for m in range(3):
            actions: list[str] = []
            chances = [setup.ladder[(m + s) % len(setup.ladder)] for s in range(setup.players)]
            placements, _ = play(setup.variant, chances, 9_000 + m, f"fingerprint-{m}", actions=actions)
            digest.update(repr((actions, placements)).encode())
        _FINGERPRINTS[key] = digest.hexdigest()[:10]
    return _FINGERPRINTS[key]


# -- the truth and the replicates ---------------------------------------------------------


def kendall(theta: Sequence[float]) -> float:
    """Kendall's tau of the fitted order against the ladder's (rung 0 strongest)."""
    n = len(theta)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    return sum((theta[i] > theta[j]) - (theta[i] < theta[j]) for i, j in pairs) / len(pairs)


def _replicate_job(job: tuple[str, str, int, int, int, bool]) -> dict[str, Any]:
    """Rank one replicate tournament: slots ``index * size`` to ``(index + 1) * size - 1``
    of a bank, every table of them (scheme ``full``) or one round of tables from each,
    the rounds in turn (scheme ``rounds``); with ``luck``, on luck-adjusted comparisons."""
    assert _SETUP is not None and _TRUTH is not None
    kind, scheme, size, index, resamples, luck = job
    bank = _BANKS[kind]
    setup = _SETUP
    chosen = [(s, bank[s]) for s in range(index * size, (index + 1) * size)]
    only = None if scheme == "full" else (lambda k: setup.rounds[k % len(setup.rounds)])
    matches = adjusted(setup, kind, chosen, only) if luck else Results.of(records(setup, kind, chosen, only))
    spread = uncertainty(matches, versions(setup), resamples=resamples, seed=index)
    truth = _TRUTH
    n = len(truth)
    covered, covered_t, widths, errors, sure, wrong = [], [], [], [], 0, 0
    widen = student_t(spread.groups - 1) / 1.959963984540054 if spread.groups > 1 else 1.0
    for i in range(n):
        for j in range(i + 1, n):
            estimate, low, high = spread.difference(i, j)
            true = truth[i] - truth[j]
            errors.append((estimate - true) ** 2)
            covered.append(low <= true <= high)
            covered_t.append(estimate + widen * (low - estimate) <= true <= estimate + widen * (high - estimate))
            widths.append(high - low)
            if spread.separated(i, j):
                sure += 1
                wrong += spread.stronger(i, j) < 0.5  # ordered, and the wrong way round
    shifts = [spread.shift(i) for i in range(n)]
    strength_covered = [float(spread.theta[i]) + low <= truth[i] <= float(spread.theta[i]) + high
                        for i, (low, high) in enumerate(shifts)]
    ranks = [spread.rank_range(i) for i in range(n)]
    order = sorted(range(n), key=lambda i: -spread.theta[i])
    neighbours = all(spread.separated(a, b) for a, b in zip(order, order[1:]))
    return {
        "kind": kind, "scheme": scheme, "luck": luck, "size": size, "index": index, "matches": len(matches),
        "groups": spread.groups, "enough": spread.enough, "squared_error": statistics.fmean(errors),
        "tau": kendall([float(x) for x in spread.theta]),
        "pairs_covered": sum(covered), "pairs_covered_t": sum(covered_t), "pairs": len(covered),
        "width": statistics.median(widths),
        "strengths_covered": sum(strength_covered), "ranks_covered": sum(lo <= i + 1 <= hi for i, (lo, hi)
                                                                          in enumerate(ranks)),
        "separated": sure, "wrong": wrong, "settled": neighbours,
    }


def student_t(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (Cornish-Fisher
    expansion around the normal's; within 0.002 from df = 5 on)."""
    z = 1.959963984540054
    if df <= 0:
        return math.inf
    terms = ((z ** 3 + z) / 4, (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
             (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
             (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160)
    return z + float(sum(term / df ** (k + 1) for k, term in enumerate(terms)))


def truth_of(setup: Setup, bank: list[list[Row]], resamples: int) -> dict[str, Any]:
    """The long run's Bradley-Terry strengths (the truth), their intervals, and TrueSkill."""
    played = records(setup, "truth", enumerate(bank))
    matches = Results.of(played)
    wins, counts = comparisons(matches, versions(setup)).total()
    theta = fit_strengths(wins, counts)
    spread = uncertainty(matches, versions(setup), resamples=resamples)
    began = time.perf_counter()
    env = fit_environment(matches)
    rated = rate(matches, env=env)
    trueskill_s = time.perf_counter() - began
    points = rating_points(env.beta)
    n = len(setup.ladder)
    order = sorted(range(n), key=lambda i: -theta[i])
    share = {f"{setup.ladder[i]}>{setup.ladder[j]}": float(wins[i, j] / counts[i, j])
             for i in range(n) for j in range(i + 1, n)}
    return {
        "deal_groups": spread.groups, "matches": len(matches),
        "decisions": sum(m.decisions for m in played),
        "theta": [float(x) for x in theta],
        "theta_interval": [[float(theta[i] + lo), float(theta[i] + hi)] for i, (lo, hi)
                           in enumerate(spread.shift(i) for i in range(n))],
        "rank_range": [list(spread.rank_range(i)) for i in range(n)],
        "ahead_of_next": [spread.stronger(a, b) for a, b in zip(order, order[1:])],
        "in_order": order == list(range(n)), "tau": kendall([float(x) for x in theta]),
        "pair_scores": share,
        "trueskill": {"beta": env.beta, "draw": env.draw, "points_per_theta": points,
                      "mu": [rated[v].mu for v in versions(setup)], "sigma": [rated[v].sigma for v in versions(setup)],
                      "seconds": trueskill_s},
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One size and design over its replicates."""
    taus = [r["tau"] for r in rows]
    pairs = sum(r["pairs"] for r in rows)
    covered = sum(r["pairs_covered"] for r in rows)
    coverage = covered / pairs
    per_replicate = [r["pairs_covered"] / r["pairs"] for r in rows]
    clustered = statistics.stdev(per_replicate) / math.sqrt(len(rows)) if len(rows) > 1 else float("nan")
    n = len(_SETUP.ladder) if _SETUP is not None else 6
    separated = sum(r["separated"] for r in rows)
    return {
        "size": rows[0]["size"], "replicates": len(rows), "matches": rows[0]["matches"],
        "groups": rows[0]["groups"], "enough": all(r["enough"] for r in rows),
        "mse": statistics.fmean(r["squared_error"] for r in rows),
        "reach": sum(t >= REACH_TAU for t in taus) / len(rows),
        "tau_quartiles": _quartiles(taus),
        "pair_coverage": coverage, "pair_coverage_se": math.sqrt(coverage * (1 - coverage) / pairs),
        "pair_coverage_se_clustered": clustered, "intervals": pairs,
        "pair_coverage_t": sum(r["pairs_covered_t"] for r in rows) / pairs,
        "width_quartiles": _quartiles([r["width"] for r in rows]),
        "strength_coverage": sum(r["strengths_covered"] for r in rows) / (len(rows) * n),
        "rank_coverage": sum(r["ranks_covered"] for r in rows) / (len(rows) * n),
        "separated": separated / (len(rows) * n * (n - 1) // 2), "wrong": sum(r["wrong"] for r in rows),
        "settled": sum(r["settled"] for r in rows) / len(rows),
    }


def _quartiles(values: Sequence[float]) -> list[float]:
    if len(values) < 2:
        return [values[0]] * 3
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return [q1, q2, q3]


def reach_point(rows: list[dict[str, Any]]) -> tuple[float | None, int | None]:
    """Matches at which the share of exact orders first reaches 90%: interpolated on a
    log scale between the sizes around it; and the first size that reaches it."""
    previous = None
    for row in rows:
        if row["reach"] >= REACH_SHARE:
            if previous is None:
                return float(row["matches"]), row["size"]
            (m0, s0), (m1, s1) = (previous["matches"], previous["reach"]), (row["matches"], row["reach"])
            f = (REACH_SHARE - s0) / (s1 - s0)
            return math.exp(math.log(m0) + f * (math.log(m1) - math.log(m0))), row["size"]
        previous = row
    return None, None


# -- the sequential test ------------------------------------------------------------------


def _sprt_job(job: tuple[str, float, float, int, str, int]) -> dict[str, Any]:
    """One heads-up ``arena test NEW BASE``: deals in batches of 8 until the test decides."""
    label, new, base, index, variant, seed = job
    matches: list[MatchRecord] = []
    deals = 0
    while True:
        for deal in range(deals, deals + BATCH):
            dealt = seed_of(seed, variant, "test", label, index, deal)
            for rotation in range(2):
                seating = (1, 2) if rotation == 0 else (2, 1)  # version 1 = NEW, 2 = BASE
                chances = [new if v == 1 else base for v in seating]
                placements, decisions = play(variant, chances, dealt, f"test-{label}-{index}-d{deal}r{rotation}")
                seats = tuple(SeatRecord(v, p, 0.0) for v, p in zip(seating, placements))
                matches.append(MatchRecord(f"t{index}-d{deal}r{rotation}", "test", len(matches), variant, {}, 0,
                                           seats, "", 0, decisions, deal=deal))
        deals += BATCH
        result = sequential_test(deal_scores(matches, 1, 2, 2), MARGIN, ALPHA, BETA)
        if result.verdict != "undecided" or deals >= MAX_DEALS:
            return {"label": label, "verdict": result.verdict, "deals": result.deals, "played": deals,
                    "score": result.score, "decisions": sum(m.decisions for m in matches)}


def _reference_job(job: tuple[str, float, float, int, str, int]) -> tuple[str, list[float]]:
    """A fixed run of heads-up deals (both rotations): NEW's score per deal."""
    label, new, base, count, variant, seed = job
    matches: list[MatchRecord] = []
    for deal in range(count):
        dealt = seed_of(seed, variant, "reference", label, deal)
        for rotation in range(2):
            seating = (1, 2) if rotation == 0 else (2, 1)
            placements, decisions = play(variant, [new if v == 1 else base for v in seating], dealt,
                                         f"ref-{label}-d{deal}r{rotation}")
            matches.append(MatchRecord(f"d{deal}r{rotation}", "ref", len(matches), variant, {}, 0,
                                       tuple(SeatRecord(v, p, 0.0) for v, p in zip(seating, placements)), "", 0,
                                       decisions, deal=deal))
    return label, deal_scores(matches, 1, 2, 2)


def run_sprt(args: argparse.Namespace, workers: int) -> dict[str, Any]:
    """Null tests (two copies of one rung), power tests, and fixed reference runs."""
    cases = [(f"null-{p:g}", p, p, args.null_tests) for p in args.null_rungs]
    cases += [(f"gain-{a:g}-vs-{b:g}", a, b, args.power_tests) for a, b in args.power_pairs]
    jobs = [(label, new, base, k, args.variant, args.seed) for label, new, base, tests in cases for k in range(tests)]
    print(f"sequential tests: {len(jobs)} heads-up tests ...", flush=True)
    began = time.perf_counter()
    results = run_jobs(_sprt_job, jobs, workers, "tests")
    seconds = time.perf_counter() - began
    ref_jobs = [(label, new, base, args.reference_deals, args.variant, args.seed) for label, new, base, _ in cases]
    print(f"reference runs: {len(ref_jobs)} x {args.reference_deals} deals ...", flush=True)
    began = time.perf_counter()
    references = dict(run_jobs(_reference_job, ref_jobs, workers, "reference"))
    ref_seconds = time.perf_counter() - began
    by_label: dict[str, Any] = {}
    for label, new, base, tests in cases:
        scores = references[label]
        done = [r for r in results if r["label"] == label]
        verdicts = {v: sum(r["verdict"] == v for r in done) for v in ("better", "not better", "undecided")}
        deals = [r["deals"] for r in done]
        played = [r["played"] for r in done]
        mean = statistics.fmean(scores)
        better = verdicts["better"] / tests
        by_label[label] = {
            "new": new, "base": base, "tests": tests, "verdicts": verdicts, "better_rate": better,
            "better_at_deals": sorted(r["deals"] for r in done if r["verdict"] == "better"),
            "better_rate_se": math.sqrt(better * (1 - better) / tests),
            "deals_mean": statistics.fmean(deals), "deals_quartiles": _quartiles(deals),
            "deals_played_mean": statistics.fmean(played), "matches_played_mean": 2 * statistics.fmean(played),
            "reference_deals": len(scores), "reference_score": mean,
            "reference_score_se": statistics.stdev(scores) / math.sqrt(len(scores)),
            "reference_deal_sd": statistics.stdev(scores),
        }
    return {"seconds": seconds, "reference_seconds": ref_seconds, "cases": by_label}


# -- main ---------------------------------------------------------------------------------


def measure_speed(setup: Setup, matches: int) -> dict[str, Any]:
    """Decisions/s of in-process play at the ladder's tables (one core)."""
    began = time.process_time()
    decisions = 0
    for m in range(matches):
        table = setup.tables[m % len(setup.tables)]
        decisions += play(setup.variant, [setup.ladder[e] for e in table], seed_of("speed", m), f"speed-{m}")[1]
    seconds = time.process_time() - began
    return {"matches": matches, "decisions": decisions, "seconds": seconds, "decisions_per_s": decisions / seconds,
            "matches_per_s": matches / seconds}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="scat")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--truth-deals", type=int, default=600, help="deal groups of the long run (cached)")
    parser.add_argument("--bank", type=int, default=320, help="deal slots played per design for the replicates")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="deals per table of the replicates")
    parser.add_argument("--round-sizes", default="1,2,3,4,5,10,20",
                        help="deals of the replicates that play one round of tables a deal")
    parser.add_argument("--replicates", type=int, default=100, help="at most this many replicates per size")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (the arena's default)")
    parser.add_argument("--null-rungs", default="0.35,1", help="rungs tested against a copy of themselves")
    parser.add_argument("--null-tests", type=int, default=200)
    parser.add_argument("--power-pairs", default="0.2:0.35,0:0.1,0.2:0.25", help="NEW:BASE rungs with a real gain")
    parser.add_argument("--power-tests", type=int, default=100)
    parser.add_argument("--reference-deals", type=int, default=400, help="fixed heads-up deals per tested pair")
    parser.add_argument("--workers", type=int, default=2, help="processes (at most 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", type=int, default=4, help="matches checked against the bundled bot")
    parser.add_argument("--fresh", action="store_true", help="play the long run again instead of its cache")
    parser.add_argument("--reuse", action="store_true", help="also reuse cached banks (analysis only)")
    parser.add_argument("--skip-tests", action="store_true", help="no sequential tests")
    parser.add_argument("--luck", action="store_true",
                        help="measure every replicate match's luck and rank each replicate raw and luck-adjusted too")
    parser.add_argument("--tests-only", action="store_true", help="only the sequential tests")
    parser.add_argument("--quick", action="store_true", help="a small run to try the script")
    parser.add_argument("--output", type=Path, default=RESULTS / "ranking.json")
    args = parser.parse_args()
    if args.quick:
        args.truth_deals, args.bank, args.replicates = 40, 32, 8
        args.sizes, args.null_tests, args.power_tests, args.reference_deals = "1,2,4,8,16", 16, 8, 32
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.round_sizes = [int(s) for s in args.round_sizes.split(",") if s]
    args.null_rungs = [float(p) for p in args.null_rungs.split(",") if p]
    args.power_pairs = [tuple(float(x) for x in pair.split(":")) for pair in args.power_pairs.split(",") if pair]
    args.workers = max(1, min(args.workers, 2))
    return args


def run_rankings(args: argparse.Namespace, setup: Setup, report: dict[str, Any], phases: dict[str, float]) -> None:
    """The long run, the two banks, and the replicate tournaments ranked."""
    global _TRUTH
    truth_bank, truth_seconds = play_bank(setup, "truth", args.truth_deals, args.workers, not args.fresh)
    truth = truth_of(setup, truth_bank, args.resamples)
    truth["seconds"] = truth_seconds
    report["truth"] = truth
    _TRUTH = np.array(truth["theta"])
    print_truth(setup, truth)

    phases["truth"] = truth_seconds
    for kind in ("duplicate", "independent"):
        _BANKS[kind], phases[kind] = play_bank(setup, kind, args.bank, args.workers, args.reuse)
    pooled = records(setup, "independent", enumerate(_BANKS["independent"]))
    pooled_theta = fit_strengths(*comparisons(Results.of(pooled), versions(setup)).total())
    report["independent_pooled_theta"] = [float(x) for x in pooled_theta]

    schemes = {"full": args.sizes, "rounds": args.round_sizes if setup.rounds else []}
    lucks = (False, True) if setup.luck else (False,)
    jobs = [(kind, scheme, size, k, args.resamples, luck) for scheme, sizes in schemes.items()
            for kind in ("duplicate", "independent") for size in sizes
            for k in range(min(args.replicates, args.bank // size)) for luck in lucks]
    print(f"ranking {len(jobs)} replicate tournaments ...", flush=True)
    began = time.perf_counter()
    ranked = run_jobs(_replicate_job, jobs, args.workers, "replicates")
    phases["analysis"] = time.perf_counter() - began
    designs: dict[str, Any] = {}
    for scheme, sizes in schemes.items():
        for kind in ("duplicate", "independent"):
            for luck in lucks:
                rows = []
                for size in sizes:
                    chosen = [r for r in ranked if r["kind"] == kind and r["scheme"] == scheme and r["size"] == size
                              and r["luck"] == luck]
                    if chosen:
                        rows.append(summarise(sorted(chosen, key=lambda r: r["index"])))
                if rows:
                    matches, size = reach_point(rows)
                    name = f"{scheme}/{kind}" + ("/luck" if luck else "")
                    designs[name] = {"sizes": rows, "reach_matches": matches, "reach_size": size}
    report["designs"] = designs
    print_designs(designs)


def main() -> int:
    global _SETUP
    args = parse_args()
    started = time.perf_counter()
    setup = _SETUP = Setup(args.variant, args.players, LADDER, args.seed, luck=args.luck)
    report: dict[str, Any] = {"config": {k: v for k, v in vars(args).items() if k != "output"}, "ladder": LADDER,
                              "tables": len(setup.tables), "matches_per_slot": setup.per_slot}
    report["config"]["output"] = str(args.output)

    if args.check:
        began = time.perf_counter()
        compared = check_bot(args.variant, args.players, args.check)
        print(f"array heuristic = bundled heuristic on {compared} decisions ({time.perf_counter() - began:.1f} s)")
        report["checked_decisions"] = compared
    speed = measure_speed(setup, 30)
    report["speed"] = speed
    print(f"speed: {speed['decisions_per_s']:,.0f} decisions/s, {speed['matches_per_s']:.1f} matches/s "
          f"per core over the ladder's tables ({speed['decisions'] / speed['matches']:.0f} decisions a match)")

    phases: dict[str, float] = {}
    if not args.tests_only:
        run_rankings(args, setup, report, phases)
    if not args.skip_tests:
        report["sequential"] = run_sprt(args, args.workers)
        phases["sequential"] = report["sequential"]["seconds"] + report["sequential"]["reference_seconds"]
        print_sprt(report["sequential"])
    phases["total"] = time.perf_counter() - started
    report["seconds"] = phases
    report["cpu_seconds"] = CPU_SECONDS
    report["cached"] = sorted(CACHED)
    print("\nwall time: " + ", ".join(f"{k} {v / 60:.1f} min" + (" (cached)" if k in CACHED else "")
                                     for k, v in phases.items()))
    print("CPU time: " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in CPU_SECONDS.items())
          + f"; {sum(CPU_SECONDS.values()) / 60:.1f} min in all")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2, default=float))
    print(f"figures written to {args.output}")
    return 0


def print_truth(setup: Setup, truth: dict[str, Any]) -> None:
    ts = truth["trueskill"]
    print(f"\nthe long run: {truth['deal_groups']} deal groups, {truth['matches']:,} matches "
          f"({truth['seconds'] / 60:.1f} min to play)")
    rows = []
    for i, p in enumerate(setup.ladder):
        lo, hi = truth["theta_interval"][i]
        rows.append([f"p={p:g}", f"{truth['theta'][i]:+.3f}", f"{lo:+.3f} to {hi:+.3f}",
                     "-".join(map(str, truth["rank_range"][i])), f"{ts['mu'][i]:.2f}", f"{ts['sigma'][i]:.2f}"])
    print(tabulate(rows, headers=["rung", "BT theta", "95% interval", "ranks", "TrueSkill mu", "sigma"],
                   tablefmt="github", disable_numparse=True))
    print(f"in the constructed order: {'yes' if truth['in_order'] else 'NO'} (tau {truth['tau']:.2f}); "
          f"ahead of next: {', '.join(f'{x:.3f}' for x in truth['ahead_of_next'])}")
    print(f"TrueSkill fitted beta {ts['beta']:.2f}, draw probability {ts['draw']:.3f}, "
          f"{ts['points_per_theta']:.2f} rating points per unit of theta")


DESIGN_TITLES = {
    "full": "every table at every deal (15 tables x 4 rotations = 60 matches a deal; size = deals per table)",
    "rounds": "one round of 3 tables at each deal, the 5 rounds in turn (12 matches a deal; size = deals)",
}


def print_designs(designs: dict[str, Any]) -> None:
    for name, design in designs.items():
        scheme, kind, *scored = name.split("/")
        print(f"\n{kind} deals, {DESIGN_TITLES[scheme]}" + (", luck-adjusted comparisons" if scored else ""))
        rows = []
        for s in design["sizes"]:
            q = s["tau_quartiles"]
            w = s["width_quartiles"]
            cover = f"{s['pair_coverage']:.3f} ± {s['pair_coverage_se']:.3f} ({s['pair_coverage_se_clustered']:.3f})"
            rows.append([s["size"], s["matches"], s["groups"], s["replicates"], f"{s['reach']:.2f}",
                         f"{q[0]:.2f} {q[1]:.2f} {q[2]:.2f}", f"{s['mse']:.4f}", cover + ("" if s["enough"] else " *"),
                         f"{s['pair_coverage_t']:.3f}", f"{w[1]:.3f}", f"{s['strength_coverage']:.3f}",
                         f"{s['rank_coverage']:.3f}",
                         f"{s['separated']:.2f}", s["wrong"], f"{s['settled']:.2f}"])
        print(tabulate(rows, headers=["size", "matches", "groups", "reps", "tau>=0.9", "tau q1 med q3", "mse",
                                      "pair coverage ± se (clustered)", "t cov", "width", "str cov", "rank cov", "sep",
                                      "wrong", "settled"], tablefmt="github", disable_numparse=True))
        matches = design["reach_matches"]
        if matches is None:
            print("90% of replicates in the exact order: not within these sizes")
        else:
            print(f"90% of replicates in the exact order at about {matches:,.0f} matches (first reached at size "
                  f"{design['reach_size']})")
    for scheme in DESIGN_TITLES:
        compare(designs, f"{scheme}/duplicate", f"{scheme}/independent", scheme, "independent / duplicate",
                "at least 2")
        for kind in ("duplicate", "independent"):
            compare(designs, f"{scheme}/{kind}", f"{scheme}/{kind}/luck", f"{scheme}, {kind} deals",
                    "adjusted / raw", "at most 0.5")
    print("* fewer than", MIN_GROUPS, "deal groups: the arena shows no interval; computed here anyway")


def compare(designs: dict[str, Any], base: str, other: str, label: str, ratio: str, goal: str) -> None:
    """One line: design ``other`` against ``base``, squared error at equal matches and the
    matches to 90% exact order (each as other / base)."""
    first, second = designs.get(base), designs.get(other)
    if not first or not second:
        return
    ratios = [b["mse"] / a["mse"] for a, b in zip(first["sizes"], second["sizes"]) if a["mse"] > 0]
    line = f"{label}: {ratio} squared error at equal matches: " + ", ".join(f"{r:.2f}" for r in ratios)
    if first["reach_matches"] and second["reach_matches"]:
        line += (f"; matches to 90% exact order, {ratio}: "
                 f"{second['reach_matches'] / first['reach_matches']:.2f} (goal: {goal})")
    print(line)


def print_sprt(result: dict[str, Any]) -> None:
    print("\nsequential tests (heads-up, margin 0.05, alpha = beta = 0.05, at most 400 deals)")
    rows = []
    for label, c in result["cases"].items():
        v = c["verdicts"]
        q = c["deals_quartiles"]
        rows.append([label, c["tests"], f"{c['reference_score']:.3f} ± {c['reference_score_se']:.3f}",
                     f"{c['better_rate']:.3f} ± {c['better_rate_se']:.3f}", v["not better"], v["undecided"],
                     f"{c['deals_mean']:.0f}", f"{q[0]:.0f} {q[1]:.0f} {q[2]:.0f}", f"{c['matches_played_mean']:.0f}"])
    print(tabulate(rows, headers=["NEW vs BASE", "tests", "true score", "'better' rate", "not better",
                                  "undecided", "mean deals", "deals q1 med q3", "matches played"],
                   tablefmt="github", disable_numparse=True))
    for label, c in result["cases"].items():
        if c["new"] == c["base"]:
            print(f"{label}: false 'better' verdicts at deals {c['better_at_deals']}")


if __name__ == "__main__":
    raise SystemExit(main())
