"""The ceiling of luck adjustment: how much of a result's variance the bots' own choices
carry, which no estimate of the cards' luck can remove (docs/RANKING.md "The ceiling").

A match's result minus its expectation is a sum of steps (Doob's martingale): at every move
the change in each seat's expected result made by the bot's choice, then the change made
by whatever the engine dealt in that move (a drawn card, the next round's hands).  The
steps are uncorrelated, so the result's variance is the sum of their mean squares plus the
variance of the first deal's value.  Luck adjustment (:mod:`arena.luck`) subtracts terms of
mean zero at each chance event; every such term is uncorrelated with the choice steps, so
whatever the value estimate, at least the choices' share of the variance is left.  This
script measures that share on the luck benchmark's ladder (the heuristic bot playing a
uniformly random legal move with chance p, rungs taking turns in the seats).

A choice step is ``V(the action taken) - the mean of V over the ladder's policy`` (the
bot's own action with chance ``1 - p``, each legal action with ``p / count``), with V the
seat's expected result.  V is estimated by playing the round out from each action (the
ladder's own bots with fresh random numbers, the cards not yet seen shuffled again; the
same random numbers for every action, so the actions' playouts differ only by what the
action changed) and valuing the round's end by the mean result of plain matches from the
same standing, dealer and rungs (``--plain`` of them; a standing seen fewer than
:data:`MIN_COUNT` times is played out to the match's end instead).  Two independent sets of
playouts, A and B, give two estimates of each step, and ``step_A * step_B`` estimates the
step's mean square without the playouts' own noise.  As a check, the mean of the result's
deviation times the estimated steps estimates the same quantity another way.  Moves are
sampled with chance ``--sample`` and weighted back; a move where the mover has no chance
of a random action (p = 0) or one legal action has a step of exactly 0.

    python benchmarks/luck_ceiling.py --matches 300 --plain 10000   # heads-up Scat (the figures in RANKING.md)
    python benchmarks/luck_ceiling.py --players 4 --matches 100
"""

from __future__ import annotations

import argparse
import copy
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import luck  # noqa: E402
import ranking  # noqa: E402

from arena.cards import Stock  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.rules.game import Action, MatchState  # noqa: E402
from arena.sdk import MatchInfo  # noqa: E402

SHARED = ("table", "values", "evaluate", "match", "options", "deck", "shift")
"""Bot attributes that are read-only tables: shared by the copies, not copied."""


class Table:
    """A match in play: the engine's state, the bots, and how much of the log each bot has seen."""

    def __init__(self, state: MatchState, bots: list[Any], told: list[int], chances: Sequence[float]) -> None:
        self.state, self.bots, self.told, self.chances = state, bots, told, chances

    def copy(self) -> Table:
        """An independent copy (the log's events and the bots' tables are shared: never changed)."""
        memo: dict[int, Any] = {id(e): e for e in self.state.log}
        memo[id(self.state.variant)] = self.state.variant
        memo[id(self.state.options)] = self.state.options
        for bot in self.bots:
            for name in SHARED:
                if hasattr(bot, name):
                    memo[id(getattr(bot, name))] = getattr(bot, name)
        state, bots = copy.deepcopy((self.state, self.bots), memo)
        return Table(state, bots, self.told[:], self.chances)

    def tell(self) -> None:
        """Show the bot to move the events it has not seen."""
        seat = self.state.to_move
        assert seat is not None
        for event in self.state.log[self.told[seat]:]:
            self.bots[seat].on_event(event.view(seat))
        self.told[seat] = len(self.state.log)

    def choose(self, dice: random.Random) -> tuple[Action, Action]:
        """The ladder's move (a random legal action with the seat's chance, else the bot's),
        and the bot's."""
        seat = self.state.to_move
        assert seat is not None
        legal = self.state.legal_actions()
        texts = [a.text for a in legal]
        chosen = self.bots[seat].choose(self.state.observe(seat), texts)
        own = legal[texts.index(chosen)] if chosen in texts else legal[0]
        if self.chances[seat] and dice.random() < self.chances[seat]:
            return dice.choice(legal), own
        return own, own

    def reshuffle(self, rng: random.Random) -> None:
        """The cards not yet seen in a fresh order, and fresh seeds for every later deal."""
        state: Any = self.state
        stock: Stock = state.stock
        rest = stock.unseen()
        rng.shuffle(rest)
        state.stock = Stock(rest)
        state.seed = state._deal_seed = rng.getrandbits(63)
        for seat, bot in enumerate(self.bots):
            if hasattr(bot, "rng"):
                bot.rng = random.Random(rng.getrandbits(63) ^ seat)

    def results(self) -> list[float]:
        """Each seat's share of the others placed below it."""
        assert self.state.outcome is not None
        placed = self.state.outcome.placements
        n = len(placed)
        return [(sum(p > placed[s] for p in placed) + 0.5 * (sum(p == placed[s] for p in placed) - 1)) / (n - 1)
                for s in range(n)]

    def finish(self, dice: random.Random) -> list[float]:
        while not self.state.is_over:
            self.tell()
            self.state.apply(self.choose(dice)[0])
        return self.results()


Key = tuple[tuple[float, ...], tuple[int, ...], tuple[bool, ...], int]
WORTH: dict[Key, np.ndarray] = {}
"""Each seat's mean result from the start of a round, by who plays (the seats' chances),
the standing, who is still in and the dealer: what a round's end is worth (from plain
matches, :func:`worth`)."""


def round_key(table: Table) -> Key:
    state: Any = table.state
    return tuple(table.chances), tuple(state.standing), tuple(state.seats.active), state.dealer


def play_plain(job: tuple[str, int, int, tuple[float, ...], str, bool]) -> list[tuple[Key, list[float]]]:
    """One match of the ladder: the key of each round's start, with the match's results."""
    variant, players, seed, chances, name, _ = job
    table = new_table(variant, players, seed, chances, name)
    dice = random.Random(f"{name}/explore")
    keys = [round_key(table)]
    while not table.state.is_over:
        table.tell()
        rounds = _round(table.state)
        table.state.apply(table.choose(dice)[0])
        if not table.state.is_over and _round(table.state) != rounds:
            keys.append(round_key(table))
    results = table.results()
    return [(key, results) for key in keys]


def worth(rows: Sequence[list[tuple[Key, list[float]]]]) -> dict[Key, np.ndarray]:
    sums: dict[Key, list[Any]] = {}
    for match in rows:
        for key, results in match:
            entry = sums.setdefault(key, [np.zeros(len(results)), 0])
            entry[0] += results
            entry[1] += 1
    return {key: total / count for key, (total, count) in sums.items() if count >= MIN_COUNT}


MIN_COUNT = 30
"""Round starts seen fewer times than this are valued by playing the match out instead."""


def playout(start: Table, seed: int, action: Action) -> np.ndarray:
    """What one playout of the round from ``start`` (the bot to move already told), with
    ``action`` played first, is worth: every random number from ``seed``, so the playouts
    of a seed draw the same cards with the same dice whatever the action."""
    table = start.copy()
    rng = random.Random(seed)
    table.reshuffle(rng)
    dice = random.Random(rng.getrandbits(63))
    rounds = _round(table.state)
    table.state.apply(action)
    while not table.state.is_over and _round(table.state) == rounds:
        table.tell()
        table.state.apply(table.choose(dice)[0])
    if table.state.is_over:
        return np.array(table.results())
    known = WORTH.get(round_key(table))
    return known if known is not None else np.array(table.finish(dice))


def choice_step(start: Table, action: Action, heuristic: Action, chance: float, seeds: Sequence[int]) -> np.ndarray:
    """The estimated change in each seat's expected result made by the ladder's choice of
    ``action``: ``V(action)`` minus the mean of ``V`` over the ladder's policy (``heuristic``
    with chance ``1 - chance``, each legal action with ``chance / count``)."""
    legal = start.state.legal_actions()
    step = np.zeros(start.state.players)
    for option in legal:
        weight = float(option == action) - chance / len(legal) - (1 - chance) * float(option == heuristic)
        if weight:
            step += weight * np.mean([playout(start, s, option) for s in seeds], axis=0)
    return step


def new_table(variant: str, players: int, seed: int, chances: Sequence[float], name: str) -> Table:
    state = get_variant(variant).new_match(players, seed=seed)
    bots = [ranking.FastHeuristic(MatchInfo(name, variant, dict(state.options), s, players, {}))
            for s in range(players)]
    return Table(state, bots, [0] * players, chances)


def measure(job: tuple[str, int, int, tuple[float, ...], str, float, int]) -> dict[str, Any]:
    """One match: its results and, per seat, the summed estimates of its choice steps' squares."""
    variant, players, seed, chances, name, sample, rollouts = job
    table = new_table(variant, players, seed, chances, name)
    dice = random.Random(f"{name}/explore")
    picker = random.Random(f"{name}/sample")
    total = np.zeros(players)
    steps = np.zeros(players)  # the choice steps' sum, for the check against the result
    center = WORTH[round_key(table)]
    began = time.process_time()
    sampled = 0
    while not table.state.is_over:
        table.tell()
        seat = table.state.to_move
        assert seat is not None
        chance = chances[seat]
        take = chance > 0 and len(table.state.legal_actions()) > 1 and picker.random() < sample
        before = table.copy() if take else None
        action, heuristic = table.choose(dice)
        if before is not None:
            sampled += 1
            a, b = ([picker.getrandbits(63) for _ in range(rollouts)] for _ in "AB")
            step_a = choice_step(before, action, heuristic, chance, a)
            step_b = choice_step(before, action, heuristic, chance, b)
            total += step_a * step_b / sample
            steps += (step_a + step_b) / 2 / sample
        table.state.apply(action)
    results = np.array(table.results())
    return {"results": results.tolist(), "choice": total.tolist(), "check": ((results - center) * steps).tolist(),
            "cpu": time.process_time() - began, "sampled": sampled}


def _init(known: dict[Key, np.ndarray]) -> None:
    WORTH.update(known)


def _round(state: MatchState) -> int:
    """The round being played: a move that changes it ended one."""
    return state._round  # type: ignore[attr-defined,no-any-return]


def _interval(values: np.ndarray) -> tuple[float, float]:
    """A 95% bootstrap interval of the mean, over matches."""
    rng = np.random.default_rng(0)
    boot = [values[rng.integers(0, len(values), len(values))].mean() for _ in range(4000)]
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return float(lo), float(hi)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="scat")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--matches", type=int, default=200, help="matches whose steps are measured")
    parser.add_argument("--plain", type=int, default=4000, help="matches played for the result's variance")
    parser.add_argument("--sample", type=float, default=0.3, help="chance that a move's steps are measured")
    parser.add_argument("--rollouts", type=int, default=8, help="playouts per estimate and set")
    parser.add_argument("--workers", type=int, default=multiprocessing.cpu_count())
    args = parser.parse_args()
    purpose = "luck-ceiling"
    plain_jobs = luck.jobs_for(args.variant, args.players, args.plain, "luck-eval", False)
    with multiprocessing.Pool(args.workers) as pool:
        base = pool.map(play_plain, plain_jobs, chunksize=20)
    known = worth(base)
    jobs = [(v, p, s, c, n, args.sample, args.rollouts)
            for v, p, s, c, n, _ in luck.jobs_for(args.variant, args.players, args.matches, purpose, False)]
    done = []
    with multiprocessing.Pool(args.workers, initializer=_init, initargs=(known,)) as pool:
        for k, row in enumerate(pool.imap_unordered(measure, jobs)):
            done.append(row)
            print(f"\r{k + 1}/{len(jobs)} matches", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rungs = luck.RUNGS
    spread: dict[float, list[float]] = {r: [] for r in rungs}
    for rows, job in zip(base, plain_jobs):
        for s, r in enumerate(job[3]):
            spread[r].append(rows[0][1][s])
    total = statistics.fmean(statistics.pvariance(v) for v in spread.values())
    share = np.array([statistics.fmean(row["choice"]) for row in done]) / total
    check = np.array([statistics.fmean(row["check"]) for row in done]) / total
    lo, hi = _interval(share)
    check_lo, check_hi = _interval(check)
    cpu = [row["cpu"] for row in done]
    print(f"{args.variant} {args.players}p, rungs {', '.join(map(str, luck.RUNGS))} taking turns in the seats")
    print(f"variance of a seat's result around its rung's mean: {total:.4f} ({args.plain} matches)")
    print(f"the bots' choices' share of it: {share.mean():.3f} (95%: {lo:.3f} to {hi:.3f}), on {len(done)} matches, "
          f"{sum(r['sampled'] for r in done)} moves measured, {args.rollouts} playouts an action and set")
    print(f"the same from the covariance of the steps with the result: {check.mean():.3f} "
          f"(95%: {check_lo:.3f} to {check_hi:.3f})")
    print(f"so any luck adjustment leaves at least {lo:.2f} of the variance (95% lower end)")
    print(f"CPU a match: median {statistics.median(cpu):.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
