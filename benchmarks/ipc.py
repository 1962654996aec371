"""Referee and protocol speed: subprocess bots vs in-process play vs a bare pipe ping-pong.

Everything runs pinned to one CPU, in one run:

* **protocol**: full ``scat`` matches through the real referee (trio) with trivial
  subprocess bots that play the first legal action: once with bots that speak the
  protocol directly (``trivial_raw``: the referee's own cost) and once with Python bots
  on the SDK's bot host (``trivial_bot``: what a Python bot author gets);
* **in-process**: the same matches with the same choices made in-process (rules engine,
  observations, no pipes);
* **bare ping-pong**: a blocking parent and minimal children exchanging lines of the
  same average sizes as the protocol match's requests and replies: one child per seat,
  asked in turn as the referee asks the seats (the ceiling the targets use), and a
  single child for reference.  Four processes taking turns on one core cost about 1.4
  times what one costs per round trip even with no referee at all (every switch finds
  the caches holding another process), so a match of four bots is compared with a
  ping-pong of four children.

It prints decisions per second of each, the ratios, the referee's CPU time per decision
(user and system time, with no layers and with every layer, and how much of it the same
work costs in-process: the rules engine, then building the requests) and the median
start-up time of a bot (launch until its ``hello``).  The SDK-bot match
and the start-up time are measured twice: with no sandbox layers beyond rlimits and an
own session, and with every layer this machine offers (``arena doctor``); the SDK-bot
match a third time with every layer but the freezer, which gives what freezing a bot
between its turns costs per decision.

**Fairness**: an honest bot that thinks 20 ms at each decision and measures the share of
that time it has the CPU, against a bot that keeps a thread spinning between its turns,
both on the referee's core: with the freezer (the default) and without it (``ponder``).

Both targets on rates are medians of ratios of pairs of matches played a moment apart: the
two tables of SDK bots are open at once and play each seed in turn, and each raw-protocol
match is followed at once by a ping-pong of as many round trips.  On a shared machine the
load drifts within seconds: figures taken minutes apart gave single-run ratios anywhere
from 0.25 to 0.54.

    python benchmarks/ipc.py [--matches 30] [--repeats 3] [--players 4]

Targets: the protocol match (raw-protocol bots) reaches at least 40% of the bare
ping-pong rate; a fully sandboxed bot answers its hello within 60 ms of launch; the
match rate with every layer on is at least 90% of the rate with none; the honest bot has
the CPU for at least 95% of its thinking time against the off-turn spinner; moonshot: the
referee's CPU per decision with every layer at most 10 us.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from operator import attrgetter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import trio  # noqa: E402
from tabulate import tabulate  # noqa: E402

from arena.botspec import load_manifest  # noqa: E402
from arena.protocol import DECIDE, ActionReply, Decide, encode, encode_raw  # noqa: E402
from arena.referee import TimeControl, open_bots, play_match  # noqa: E402
from arena.referee.news import News  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.sandbox import Layer, LayerStatus, Sandbox  # noqa: E402

TARGET = 0.40
HERE = Path(__file__).resolve().parent
TRIVIAL_RAW = HERE / "trivial_raw"
TRIVIAL_SDK = HERE / "trivial_bot"
HOSTILE = HERE.parent / "tests" / "sandbox" / "bots"
"""The fairness run's bots: the hostile test suite's CPU meter and off-turn spinner."""
CHILD = """
import sys
reply = sys.argv[1].encode() + b"\\n"
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    out.write(reply)
    out.flush()
"""


class PingPong:
    """A blocking parent and ``children`` minimal children that answer every line at once,
    asked in turn (as a referee asks the seats of a match), with lines of these sizes."""

    def __init__(self, request: int, reply: int, children: int) -> None:
        self._kids = [subprocess.Popen([sys.executable, "-c", CHILD, "x" * (reply - 1)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(children)]
        self._calls = [(kid.stdin.write, kid.stdin.flush, kid.stdout.readline)  # type: ignore[union-attr]
                       for kid in self._kids]
        self._line = b"y" * (request - 1) + b"\n"

    def rate(self, rounds: int) -> float:
        """Round trips/s of about ``rounds`` round trips (whole turns of the children)."""
        calls = self._calls * max(1, rounds // len(self._calls))
        line = self._line
        start = time.perf_counter()
        for write, flush, readline in calls:
            write(line)
            flush()
            readline()
        return len(calls) / (time.perf_counter() - start)

    def close(self) -> None:
        for kid in self._kids:
            kid.stdin.close()  # type: ignore[union-attr]
            kid.wait()


def protocol_run(
    bot: Path, players: int, seeds: range, request: int, reply: int,
) -> tuple[list[float], list[float], tuple[float, float], tuple[float, float]]:
    """(match decisions/s, ping-pong round trips/s, referee CPU s per decision in user
    and system time with no layers, the same with every layer, whose protections cost the
    referee a read of the bot's CPU counter at every decision).  Two tables are open at
    once and play each seed in turn: the one with no layers first, followed at once by a
    ping-pong of as many round trips with one child per seat, so every ratio compares
    figures taken a moment apart."""
    variant = get_variant("scat")
    manifest = load_manifest(bot)
    matches: list[float] = []
    pingpongs: list[float] = []
    cpu = [[0.0, 0.0, 0], [0.0, 0.0, 0]]  # no layers, every layer: user s, system s, decisions
    pingpong = PingPong(request, reply, players)

    async def main() -> None:
        full = await Sandbox.probe()
        async with open_bots([manifest] * players, time_control=TimeControl(), sandbox=Sandbox()) as bare, \
                open_bots([manifest] * players, time_control=TimeControl(), sandbox=full) as every:
            for seed in seeds:
                for counted, bots in zip(cpu, (bare, every)):
                    wall, used = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
                    record = await play_match(variant, bots, seed=seed, match_id=f"bench-{seed}")
                    wall, after = time.perf_counter() - wall, resource.getrusage(resource.RUSAGE_SELF)
                    assert not record.faults, record.faults
                    counted[0] += after.ru_utime - used.ru_utime
                    counted[1] += after.ru_stime - used.ru_stime
                    counted[2] += record.decisions
                    if bots is bare:
                        matches.append(record.decisions / wall)
                        pingpongs.append(pingpong.rate(record.decisions))

    try:
        trio.run(main)
    finally:
        pingpong.close()
    bare, every = ((user / n, system / n) for user, system, n in cpu)
    return matches, pingpongs, bare, every


def layers_run(players: int, seeds: range) -> tuple[list[float], list[float], list[float]]:
    """Decisions/s of each match of SDK bots with no sandbox layers, with every layer, and
    with every layer but the freezer: the three tables are open at once and play each seed
    in turn (in a rotating order), so the matches compared are played moments apart."""
    variant = get_variant("scat")
    manifest = load_manifest(TRIVIAL_SDK)
    rates: tuple[list[float], list[float], list[float]] = ([], [], [])

    async def main() -> None:
        full = await Sandbox.probe()
        unfrozen = copy.copy(full)
        unfrozen.status = {**full.status, Layer.FREEZE: LayerStatus(Layer.FREEZE, False, "switched off to measure it")}
        async with open_bots([manifest] * players, time_control=TimeControl(), sandbox=Sandbox()) as bare, \
                open_bots([manifest] * players, time_control=TimeControl(), sandbox=full) as every, \
                open_bots([manifest] * players, time_control=TimeControl(), sandbox=unfrozen) as thawed:
            tables = (bare, every, thawed)
            for seed in seeds:
                for i in (seed % 3, (seed + 1) % 3, (seed + 2) % 3):
                    start = time.perf_counter()
                    record = await play_match(variant, tables[i], seed=seed, match_id=f"bench-{seed}")
                    rates[i].append(record.decisions / (time.perf_counter() - start))
                    assert not record.faults, record.faults

    trio.run(main)
    return rates


def fairness_run(matches: int, ponder: bool) -> list[float]:
    """The honest CPU meter's share of its thinking time in each of its decisions, against
    the off-turn spinner, everything on this process's core; ``ponder``: not frozen."""
    variant = get_variant("scat")
    lineup = [load_manifest(HOSTILE / "cpu-meter"), load_manifest(HOSTILE / "offturn-spinner")]
    shares: list[float] = []
    time_control = TimeControl(move_ms=500, bank_ms=60_000, first_move_ms=2000, ponder=ponder)

    async def main() -> None:
        sandbox = await Sandbox.probe()
        for seed in range(matches):
            async with open_bots(lineup, time_control=time_control, sandbox=sandbox) as bots:
                await play_match(variant, bots, seed=seed, time_control=time_control)
                meter = bots[0]
                assert not isinstance(meter, BaseException), meter
                reports = [line for line in meter.stderr_text(1 << 20).splitlines() if line.startswith("REPORT ")]
                shares.extend(json.loads(reports[-1][len("REPORT "):])["shares"])

    trio.run(main)
    return shares


def _message_sizes(players: int, seed: int) -> tuple[int, int]:
    """Average request and reply line sizes of one match, rebuilt in-process."""
    state = get_variant("scat").new_match(players, seed=seed)
    seen = [0] * players
    sizes: list[int] = []
    request = 0
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        legal = state.legal_actions()
        request += 1
        events = [e.view(seat) for e in state.log[seen[seat]:]]
        seen[seat] = len(state.log)
        sizes.append(len(encode(Decide(request, state.observe(seat), [a.text for a in legal], 16000, events))))
        state.apply(legal[0])
    reply = len(encode(ActionReply(request, "discard 6h")))
    return int(statistics.mean(sizes)), reply


def inprocess_run(players: int, seeds: range) -> float:
    """Decisions/s of the same matches played in-process with the same choices."""
    variant = get_variant("scat")
    decisions = 0
    start = time.perf_counter()
    for seed in seeds:
        state = variant.new_match(players, seed=seed)
        while not state.is_over:
            seat = state.to_move
            assert seat is not None
            state.observe(seat)
            state.apply(state.legal_actions()[0])
            decisions += 1
    return decisions / (time.perf_counter() - start)


def referee_parts(players: int, seeds: range) -> tuple[float, float]:
    """CPU s per decision of what the referee does in-process, on the same matches with
    the same choices: (the rules engine: legal actions, the observation, the move; that
    and building the ``decide`` line: the events not yet told, the encoding)."""
    variant = get_variant("scat")
    text = attrgetter("text")
    engine = built = 0.0
    decisions = 0
    for encoding in (False, True):
        used = time.process_time()
        for seed in seeds:
            state = variant.new_match(players, seed=seed)
            news_for = News(state.log, players).take
            request = 0
            while not state.is_over:
                seat = state.to_move
                assert seat is not None
                legal = state.legal_actions()
                if encoding:
                    request += 1
                    DECIDE % (request, encode_raw(state.observe(seat)), encode_raw(list(map(text, legal))), 1000.0,
                              b",".join(news_for(seat)))
                else:
                    state.observe(seat)
                    decisions += 1
                state.apply(legal[0])
        if encoding:
            built = time.process_time() - used
        else:
            engine = time.process_time() - used
    return engine / decisions, built / decisions


def pingpong_run(request: int, reply: int, rounds: int, children: int = 1) -> float:
    """Round trips/s of a fresh :class:`PingPong`."""
    pingpong = PingPong(request, reply, children)
    try:
        return pingpong.rate(rounds)
    finally:
        pingpong.close()


def startup_times(count: int, full: bool = False) -> list[float]:
    """Launch-to-hello times of the trivial SDK bot, one at a time; ``full``: all layers."""
    manifest = load_manifest(TRIVIAL_SDK)
    times: list[float] = []

    async def main() -> None:
        sandbox = await Sandbox.probe() if full else Sandbox()
        for _ in range(count):
            start = time.perf_counter()
            async with open_bots([manifest], sandbox=sandbox) as bots:
                times.append(time.perf_counter() - start)
                assert not isinstance(bots[0], Exception), bots[0]

    trio.run(main)
    return times


def _spread(median: float, ratios: list[float]) -> str:
    """A median ratio with the quartiles of the pairs it is taken from."""
    quartiles = " ".join(f"{q:.2f}" for q in statistics.quantiles(ratios, n=4))
    return f"{median:.2f} (quartiles {quartiles} of {len(ratios)} pairs of matches)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fairness", type=int, default=3, help="matches of the fairness run")
    args = parser.parse_args()
    cpu = sorted(os.sched_getaffinity(0))[0]
    os.sched_setaffinity(0, {cpu})  # children inherit it: everything on one CPU
    seeds = range(1, args.matches + 1)
    request, reply = _message_sizes(args.players, seeds[0])
    # Each repeat measures everything once, so each ratio compares figures taken moments
    # apart: on a shared machine the load drifts between runs.  The protocol target goes
    # further: each match is followed at once by its own ping-pong.
    match_rates: list[float] = []
    pingpong_rates: list[float] = []
    referee_cpus: list[tuple[float, float]] = []
    referee_full_cpus: list[tuple[float, float]] = []
    parts: list[tuple[float, float]] = []
    inprocess_runs, single_runs, sdk_rates, full_rates, thawed_rates = [], [], [], [], []
    for _ in range(args.repeats):
        matches, pingpongs, referee, referee_full = protocol_run(TRIVIAL_RAW, args.players, seeds, request, reply)
        match_rates += matches
        pingpong_rates += pingpongs
        referee_cpus.append(referee)
        referee_full_cpus.append(referee_full)
        parts.append(referee_parts(args.players, seeds))
        single_runs.append(pingpong_run(request, reply, 20_000))
        bare_rates, every_rates, unfrozen_rates = layers_run(args.players, seeds)
        sdk_rates += bare_rates
        full_rates += every_rates
        thawed_rates += unfrozen_rates
        inprocess_runs.append(inprocess_run(args.players, seeds))
    raw = statistics.median(match_rates)
    sdk = statistics.median(sdk_rates)
    full = statistics.median(full_rates)
    referee_user, referee_system = (statistics.median(c[i] for c in referee_cpus) for i in (0, 1))
    full_user, full_system = (statistics.median(c[i] for c in referee_full_cpus) for i in (0, 1))
    engine_cpu, built_cpu = (statistics.median(p[i] for p in parts) for i in (0, 1))
    inprocess = statistics.median(inprocess_runs)
    pingpong = statistics.median(pingpong_rates)
    single = statistics.median(single_runs)
    raw_ratios = [m / p for m, p in zip(match_rates, pingpong_rates)]
    full_ratios = [f / s for f, s in zip(full_rates, sdk_rates)]
    raw_ratio, full_ratio = statistics.median(raw_ratios), statistics.median(full_ratios)
    thawed = statistics.median(thawed_rates)
    freeze_us = statistics.median([(1 / f - 1 / t) * 1e6 for f, t in zip(full_rates, thawed_rates)])
    fair = fairness_run(args.fairness, ponder=False)
    unfair = fairness_run(args.fairness, ponder=True)
    startup_runs: list[float] = []
    startup_full_runs: list[float] = []
    for _ in range(5):
        startup_runs += startup_times(2)
        startup_full_runs += startup_times(2, full=True)
    startup = statistics.median(startup_runs)
    startup_full = statistics.median(startup_full_runs)
    rows = [
        [f"bare blocking ping-pong, {args.players} children in turn", f"{pingpong:,.0f}", "1.00"],
        ["bare blocking ping-pong, one child", f"{single:,.0f}", f"{single / pingpong:.2f}"],
        ["protocol match, raw-protocol bots", f"{raw:,.0f}", f"{raw / pingpong:.2f}"],
        ["protocol match, SDK (bot host) bots", f"{sdk:,.0f}", f"{sdk / pingpong:.2f}"],
        ["protocol match, SDK bots, every sandbox layer", f"{full:,.0f}", f"{full / pingpong:.2f}"],
        ["protocol match, SDK bots, every layer but the freezer", f"{thawed:,.0f}", f"{thawed / pingpong:.2f}"],
        ["in-process match (no pipes)", f"{inprocess:,.0f}", f"{inprocess / pingpong:.2f}"],
    ]
    print(f"scat, {args.players} players, {args.matches} matches per run, median of {args.repeats} runs, "
          f"all on CPU {cpu}; requests average {request} B, replies {reply} B")
    print(tabulate(rows, headers=["what", "decisions/s", "x ping-pong"], tablefmt="github"))
    us = 1e6
    print(f"\nreferee CPU per decision (raw-protocol bots): {(referee_user + referee_system) * us:.1f} us with no "
          f"layers (user {referee_user * us:.1f}, system {referee_system * us:.1f}), "
          f"{(full_user + full_system) * us:.1f} us with every layer (user {full_user * us:.1f}, system "
          f"{full_system * us:.1f}); of which in-process: the rules engine {engine_cpu * us:.1f} us, building the "
          f"request {(built_cpu - engine_cpu) * us:.1f} us more; the rest is the pipes, the clocks and the loop")
    print(f"bot start-up, launch to hello, median of 10: {startup * 1000:.1f} ms with no sandbox layers, "
          f"{startup_full * 1000:.1f} ms with every layer")
    print(f"freezing a bot between its turns: {freeze_us:.1f} us per decision (median of {len(thawed_rates)} "
          f"matches; every layer / every layer but the freezer: {full / thawed:.2f})")
    print(f"an honest bot's CPU share of its thinking time against an off-turn spinner, median of "
          f"{len(fair)} decisions: {statistics.median(fair):.3f} frozen (quartiles "
          f"{' '.join(f'{q:.3f}' for q in statistics.quantiles(fair, n=4))}), "
          f"{statistics.median(unfair):.3f} with ponder (not frozen)")
    checks = [
        ("protocol match / bare ping-pong (median of the matches' ratios)", raw_ratio, TARGET,
         _spread(raw_ratio, raw_ratios)),
        ("every layer / no layers, match rate (median of the matches' ratios)", full_ratio, 0.90,
         _spread(full_ratio, full_ratios)),
        ("fully sandboxed start-up (ms, at most)", 60 / max(startup_full * 1000, 1e-9), 1.0,
         f"{startup_full * 1000:.1f}"),
        ("honest bot's CPU share against an off-turn spinner (median)", statistics.median(fair), 0.95,
         f"{statistics.median(fair):.3f}"),
        ("referee CPU per decision with every layer (us, at most 10: the moonshot)",
         10 / max((full_user + full_system) * us, 1e-9), 1.0, f"{(full_user + full_system) * us:.1f}"),
    ]
    failed = 0
    for name, value, target, shown in checks:
        met = value >= target
        failed += not met
        print(f"{name}: {shown} ({'MET' if met else 'NOT MET'})")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
