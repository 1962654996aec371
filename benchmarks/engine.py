"""Rules-engine speed: in-process random play, per variant, against a minimal ceiling.

Every variant plays the same seeds with uniformly random legal actions, building the
deciding seat's observation at every decision (what a referee sends a bot).  The same
run also plays a deliberately minimal Scat engine (integer cards, no observations, no
log, no options) on the same seeds: the ceiling the real engine is compared with.

    python benchmarks/engine.py [--players 4] [--matches 300] [--repeats 5]

Rates are decisions per second of CPU time on one pinned core (on a shared machine, wall
time would count other processes' turns on that core).  Each run splits the seeds into
chunks of 20 matches and has the ceiling and every variant play each chunk in turn, so a
slow moment of the machine falls on all of them alike and each ratio compares figures
taken within a second of each other; the table shows medians of ``--repeats`` runs.
Target: ``scat`` with 4 players reaches at least 100,000 decisions per second and one
third of the minimal engine's rate.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabulate import tabulate  # noqa: E402

from arena.rules import get_variant, variants  # noqa: E402

TARGET_DECISIONS = 100_000
TARGET_RATIO = 1 / 3
CHUNK = 20
"""Matches per chunk: each engine plays the same chunk in turn, so the ratios compare
figures taken within a second of each other."""

POINTS = [min(i >> 2, 8) + 2 if (i >> 2) < 12 else 11 for i in range(52)]


def _value(hand: list[int]) -> int:
    sums = [0, 0, 0, 0]
    for c in hand:
        sums[c & 3] += POINTS[c]
    return max(sums)


def minimal_match(players: int, seed: int) -> int:
    """A bare Scat match with random play; returns the number of decisions."""
    rng = random.Random(seed)
    choice = rng.choice
    lives = [3] * players
    dealer = decisions = 0
    while sum(1 for x in lives if x >= 0) > 1:
        live = [s for s in range(players) if lives[s] >= 0]
        deck = list(range(52))
        rng.shuffle(deck)
        hands = {s: [deck.pop(), deck.pop(), deck.pop()] for s in live}
        pile = [deck.pop()]
        seat = live[(live.index(dealer) + 1) % len(live)] if dealer in live else live[0]
        knocker, left, loser = -1, 0, None
        while True:
            decisions += 1
            options = ["take", "draw"] if deck else ["take"]
            options.append("knock" if knocker < 0 else "stand")
            move = choice(options)
            hand = hands[seat]
            if move == "knock":
                knocker, left = seat, len(live) - 1
            elif move != "stand":
                taken = pile.pop() if move == "take" else deck.pop()
                hand.append(taken)
                decisions += 1
                discard = choice([c for c in hand if c != taken] if move == "take" else hand)
                hand.remove(discard)
                pile.append(discard)
                if _value(hand) == 31 and len({c & 3 for c in hand}) == 1:
                    loser = [s for s in live if s != seat]
                    break
                if not deck and knocker < 0:
                    loser = []
                    break
            if knocker >= 0 and move != "knock":
                left -= 1
                if left == 0:
                    break
            seat = live[(live.index(seat) + 1) % len(live)]
        if loser is None:
            values = {s: _value(hands[s]) for s in live}
            low = min(values.values())
            loser = [s for s in live if values[s] == low]
        for s in loser:
            lives[s] -= 2 if s == knocker and len(loser) == 1 else (0 if s == knocker else 1)
        dealer = (dealer + 1) % players
    return decisions


def engine_match(name: str, players: int, seed: int) -> int:
    """One match of the real engine with random play and observations; decisions made."""
    rng = random.Random(seed)
    choice = rng.choice
    state = get_variant(name).new_match(players, seed=seed)
    decisions = 0
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        state.observe(seat)
        state.apply(choice(state.legal_actions()))
        decisions += 1
    return decisions


def timed(play: Callable[[int], int], seeds: Sequence[int]) -> tuple[int, float]:
    """(decisions, CPU seconds) of ``play`` over ``seeds``."""
    start = time.process_time()
    decisions = sum(play(seed) for seed in seeds)
    return decisions, time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--matches", type=int, default=300, help="matches per run and variant")
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure; the median is shown")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    seeds = range(args.matches)
    chunks = [seeds[i : i + CHUNK] for i in range(0, len(seeds), CHUNK)]
    names = ["minimal scat (ceiling)", *variants()]
    plays: dict[str, Callable[[int], int]] = {names[0]: lambda s: minimal_match(args.players, s)}
    for name in names[1:]:
        plays[name] = lambda s, n=name: engine_match(n, args.players, s)  # type: ignore[misc]
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in names}
    for _ in range(args.repeats):
        totals = dict.fromkeys(names, (0, 0.0))
        for chunk in chunks:  # every engine plays each chunk in turn: a slow moment hits all
            for name in names:
                decisions, seconds = timed(plays[name], chunk)
                done, spent = totals[name]
                totals[name] = (done + decisions, spent + seconds)
        ceiling = totals[names[0]][0] / totals[names[0]][1]
        for name in names:
            decisions, seconds = totals[name]
            runs[name].append((decisions / seconds, len(seeds) / seconds, decisions / seconds / ceiling))
    table = {name: tuple(statistics.median(run[i] for run in runs[name]) for i in range(3)) for name in names}
    rows = [[name, f"{d:,.0f}", f"{m:,.1f}", f"{x:.2f}"] for name, (d, m, x) in table.items()]
    print(f"In-process random play, {args.players} players, {args.matches} matches per run, "
          f"median of {args.repeats} runs, one core, per CPU second")
    print(tabulate(rows, headers=["engine", "decisions/s", "matches/s", "x ceiling"], tablefmt="github"))
    scat_rate, _, ratio = table["scat"]
    ok = scat_rate >= TARGET_DECISIONS and ratio >= TARGET_RATIO
    print(f"\nscat: {scat_rate:,.0f} decisions/s (target {TARGET_DECISIONS:,}), {ratio:.2f} of the "
          f"minimal engine (target {TARGET_RATIO:.2f}): {'MET' if ok else 'NOT MET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
