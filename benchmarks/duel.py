"""Playing strength in process: bots' own modules driven by the rules engine, on duplicate deals.

Every seed is played once per rotation of the seats, as ``arena test`` does, but without the
referee, processes or clock: each seat loads its bot's modules afresh in this process (so
two seats of one bot share nothing), and a search bot that has ``FIXED_DEALS`` samples that
many deals a decision.  The results then depend only on the seeds and the code, never on
the machine's load: the way to compare two versions of a bot quickly.

    python benchmarks/duel.py --variant scat --seeds 60 --deals 40 \\
        --bot ismcts --bot heuristic --bot threshold --bot tracker
    python benchmarks/duel.py --variant scat --seeds 200 --deals 40 \\
        --bot ismcts --bot /tmp/ismcts-before --set 0:pimc.OVERRIDE_Z=1.0

Prints each bot's average place and, for every pair, the row bot's score against the
column bot (1 for placing ahead, 0.5 level, 0 behind, averaged over every match of a seed
and then over the seeds) with a 95% interval over the seeds.  Not a verdict: ``arena test``
gives one, at a time control, through the real referee.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabulate import tabulate  # noqa: E402

from arena.bothost import direct_hooks  # noqa: E402
from arena.botspec import find_bot  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.sdk import MatchInfo  # noqa: E402

MOVE_MS, BANK_MS = 200, 2000
TIME = {"move_ms": MOVE_MS, "bank_ms": BANK_MS, "first_move_ms": 1000, "clock": "cpu"}
"""The time control the bots are told of (nothing here enforces it)."""


class Seat:
    """One seat's own copy of a bot: its modules loaded afresh, its hooks, its settings."""

    def __init__(self, ref: str, deals: int | None, settings: list[tuple[str, str, str]]) -> None:
        manifest = find_bot(ref)
        if manifest.folder is None or manifest.entry is None:
            raise SystemExit(f"{ref}: only bots with a Python entry file play in process")
        folder = str(manifest.folder)
        own = {p.stem for p in manifest.folder.glob("*.py")}
        for name in own & set(sys.modules):  # this seat's modules load afresh, whoever loaded a namesake
            del sys.modules[name]
        sys.path.insert(0, folder)
        try:
            spec = importlib.util.spec_from_file_location(f"seat_{id(self)}", Path(folder) / manifest.entry)
            assert spec is not None and spec.loader is not None
            self.module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(self.module)
            self.modules = {name: m for name, m in sys.modules.items()
                            if getattr(m, "__file__", None) and str(m.__file__).startswith(folder + "/")}
        finally:
            sys.path.remove(folder)
        self.modules["bot"] = self.module
        bot: Any = self.module
        if hasattr(bot, "FIXED_DEALS"):
            bot.FIXED_DEALS = deals
        elif any(name in own for name in ("pimc", "budget")):
            raise SystemExit(f"{ref}: a search bot without FIXED_DEALS would search on the clock: its results "
                             "would depend on the machine's load")
        for module_name, attribute, value in settings:
            target: ModuleType = self.modules[module_name]
            if not hasattr(target, attribute):
                raise SystemExit(f"{ref}: {module_name} has no {attribute}")
            setattr(target, attribute, type(getattr(target, attribute))(value))
        hooks = direct_hooks(self.module)
        if hooks is None:
            raise SystemExit(f"{ref}: hooks that need pluggy do not play in process")
        self.hooks = hooks
        self.label = manifest.name

    def call(self, hook: str, **arguments: Any) -> Any:
        if hook not in self.hooks:
            return None
        function, names = self.hooks[hook]
        return function(*(arguments[n] for n in names))


def play(variant: str, players: int, seed: int, seats: list[Seat], options: dict[str, Any]) -> list[int]:
    """One match; the placements by seat."""
    rules = get_variant(variant)
    state: Any = rules.new_match(players, seed=seed, options=options)
    matches = [MatchInfo(f"{variant}-{seed}", variant, dict(state.options), s, players, dict(TIME))
               for s in range(players)]
    for seat, match in zip(seats, matches):
        seat.call("match_start", match=match)
    told = [0] * players
    while not state.is_over:
        to_move = state.to_move
        seat, match = seats[to_move], matches[to_move]
        for event in state.events_for(to_move, told[to_move]):
            match.events.append(event)
            seat.call("on_event", event=event, match=match)
        told[to_move] = len(state.log)
        legal = state.legal_actions()
        texts = [a.text for a in legal]
        chosen = seat.call("choose", observation=state.observe(to_move), legal=texts, match=match,
                           time_left_ms=MOVE_MS + BANK_MS)
        state.apply(legal[texts.index(chosen)] if chosen in texts else legal[0])
    return list(state.outcome.placements)


def deal(job: tuple[argparse.Namespace, int]) -> tuple[int, list[list[int]], float]:
    """Every rotation of one seed: the placements by bot (in ``--bot`` order), and the CPU
    seconds it took."""
    args, seed = job
    began = time.process_time()
    n = len(args.bot)
    rows = []
    for shift in range(n):
        order = [(i + shift) % n for i in range(n)]  # seat s holds bot order[s]
        seats = [Seat(args.bot[b], args.deals, [s[1:] for s in args.settings if s[0] == b]) for b in order]
        placements = play(args.variant, n, seed, seats, dict(args.options))
        by_bot = [0] * n
        for s, b in enumerate(order):
            by_bot[b] = placements[s]
        rows.append(by_bot)
    return seed, rows, time.process_time() - began


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and normal 95% interval over ``values``."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="scat")
    parser.add_argument("--bot", action="append", help="a bot per seat (name or folder), repeated: one a seat")
    parser.add_argument("--seeds", type=int, default=40, help="deals, each played in every rotation")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--deals", type=int, default=40, help="deals a search bot samples per decision")
    parser.add_argument("--set", dest="raw_settings", action="append", default=[],
                        help="SEAT:module.NAME=VALUE, a constant of the bot in --bot position SEAT (0-based)")
    parser.add_argument("--option", action="append", default=[], help="NAME=VALUE, a rules option (int or text)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if not args.bot or len(args.bot) < 2:
        parser.error("give at least two --bot")
    args.settings = []
    for raw in args.raw_settings:
        where, _, assignment = raw.partition(":")
        target, _, value = assignment.partition("=")
        module_name, _, attribute = target.rpartition(".")
        args.settings.append((int(where), module_name, attribute, value))
    args.options = {k: int(v) if v.lstrip("-").isdigit() else v for k, _, v in (o.partition("=") for o in args.option)}
    n = len(args.bot)
    labels = [f"{i}:{Path(b).name}" for i, b in enumerate(args.bot)]
    jobs = [(args, seed) for seed in range(args.first_seed, args.first_seed + args.seeds)]
    began = time.perf_counter()
    results = []
    with multiprocessing.Pool(args.jobs) as pool:
        for done, result in enumerate(pool.imap_unordered(deal, jobs), 1):
            results.append(result)
            print(f"\r{done}/{len(jobs)} seeds", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    cpu = sum(r[2] for r in results)
    places = [[statistics.fmean(row[b] for row in rows) for _, rows, _ in results] for b in range(n)]
    table = [[labels[b], *(f"{m:.3f} ({lo:.3f} to {hi:.3f})" for m, lo, hi in [interval(places[b])])] for b in range(n)]
    print(f"{args.variant}, {n} players, {args.seeds} seeds x {n} rotations, {args.deals} deals a decision; "
          f"{time.perf_counter() - began:.0f} s, {cpu / (len(results) * n):.1f} s CPU a match")
    print(tabulate(table, headers=["bot", "average place (95%)"]))
    pairs = []
    for a in range(n):
        for b in range(a + 1, n):
            scores = [statistics.fmean(1.0 if row[a] < row[b] else 0.5 if row[a] == row[b] else 0.0 for row in rows)
                      for _, rows, _ in results]
            mean, lo, hi = interval(scores)
            pairs.append([labels[a], labels[b], f"{mean:.3f}", f"{lo:.3f} to {hi:.3f}"])
    print(tabulate(pairs, headers=["bot", "against", "score", "95% interval over seeds"]))


if __name__ == "__main__":
    main()
