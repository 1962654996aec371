"""A referee worker process: plays the tables it is sent, several at once, on one core.

Run as ``python -m arena.tournament.worker --core N``.  It reads :class:`TableJob`
lines on stdin and writes :class:`Ready`, :class:`Played` and :class:`TableDone` lines on
stdout (JSON, msgspec).  Keeping a table's matches and bots on one pinned core is the
layout that measured fastest (``benchmarks/tournament.py``).  A table's bot processes live
for one generation (the matches of one seat rotation, ``docs/TOURNAMENTS.md``): fresh
processes for every generation, so that no bot remembers a duplicate deal.

It stops when the runner that started it goes away (its stdin ends) and on SIGTERM,
killing every bot it started.  (``PR_SET_PDEATHSIG`` is no help: it fires when the
*thread* that forked the worker exits, and trio forks from short-lived threads.)
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from contextlib import AsyncExitStack
from dataclasses import asdict
from typing import Any

import msgspec
import trio

from arena.botspec import BotManifest, ManifestError, manifest_for
from arena.referee import Bot, BotFault, FaultKind, SeatTiming, open_bots, play_match
from arena.rules import get_variant
from arena.sandbox import Sandbox
from arena.text import printable
from arena.tournament.jobs import BotRef, FromWorker, MatchSpec, Played, Ready, TableDone, TableJob, ToWorker
from arena.tournament.logs import compress_log

__all__ = ["main"]




def _used_s(timing: SeatTiming) -> float:
    """What a match cost a bot's process: the CPU its tree used where the sandbox counts
    it, and never less than its thinking time on the referee's clock."""
    return max(timing.cpu_s, timing.total_s)


def _launchable(bot: BotRef) -> BotManifest | BotFault:
    """The manifest to launch ``bot`` with; the start-up fault of a registered copy that
    does not load (every match forfeits its seat, and the table plays on, rather than
    this worker dying with every table it plays)."""
    try:
        return manifest_for(bot.name, bot.path)
    except (ManifestError, OSError) as error:  # OSError: a bot.toml that cannot be read
        found = str(error).replace(bot.path, "its folder") if bot.path else str(error)
        return BotFault(FaultKind.STARTUP, f"its registered copy does not load: {printable(found, lines=False)}",
                        bot.name)


async def _play_table(job: TableJob, sandbox: Sandbox, send: Any) -> None:
    """Play the table's matches, each generation with bot processes started for it alone
    and killed before the next starts: a process never sees a deal twice."""
    for generation in _generations(job.matches):
        await _play_generation(job, generation, sandbox, send)
    await send(TableDone(job.id))


def _generations(matches: list[MatchSpec]) -> list[list[MatchSpec]]:
    """Consecutive matches of the same generation, in order."""
    runs: list[list[MatchSpec]] = []
    for match in matches:
        if not runs or runs[-1][0].generation != match.generation:
            runs.append([])
        runs[-1].append(match)
    return runs


async def _play_generation(job: TableJob, matches: list[MatchSpec], sandbox: Sandbox, send: Any) -> None:
    """Play ``matches`` with one process per bot, started again where needed, and killed
    at the end without waiting after their ``bye`` (their stderr is of no more use).

    A bot's process is replaced between matches when it forfeited the last one, and
    before it could reach its lifetime CPU limit (``Limits.cpu_seconds``, a backstop for
    runaway bots): once what it used plus twice its costliest match would pass the limit.
    A long table of a slow bot would otherwise see it killed mid-match, a crash that is
    not its fault."""
    variant = get_variant(job.variant)
    loaded = [_launchable(b) for b in job.bots]
    manifests = [m for m in loaded if isinstance(m, BotManifest)]
    sandbox = sandbox.with_limits(job.limits)
    time_control = job.time
    policy = job.policy
    limit_s = sandbox.limits.cpu_seconds
    used_s = [0.0] * len(loaded)  # by the bot's current process
    costliest_s = [0.0] * len(loaded)  # one match, any process of the bot
    async with AsyncExitStack() as stack:
        started = iter(await stack.enter_async_context(open_bots(manifests, time_control=time_control,
                                                                 sandbox=sandbox, grace_s=0)))
        bots: list[Bot | BotFault] = [next(started) if isinstance(m, BotManifest) else m for m in loaded]
        for match in matches:
            for i, bot in enumerate(bots):
                if not isinstance(bot, Bot):
                    continue
                if bot.alive and used_s[i] + 2 * costliest_s[i] > limit_s:
                    await bot.close()
                if not bot.alive:
                    manifest = loaded[i]
                    assert isinstance(manifest, BotManifest)  # a bot that started has a manifest
                    fresh = await stack.enter_async_context(
                        open_bots([manifest], time_control=time_control, sandbox=sandbox, grace_s=0)
                    )
                    bots[i] = fresh[0]
                    used_s[i] = 0.0
            own = {seat: control for seat, i in enumerate(match.seats) if (control := job.bots[i].time) is not None}
            result = await play_match(
                variant, [bots[i] for i in match.seats], seed=match.seed, options=job.options,
                match_id=match.public_id, time_control=time_control, policy=policy, seat_time=own,
            )
            for i, timing in zip(match.seats, result.timings):
                used_s[i] += _used_s(timing)
                costliest_s[i] = max(costliest_s[i], _used_s(timing))
            await send(Played(
                table=job.id, id=match.id, outcome=result.outcome, decisions=result.decisions,
                faults=[asdict(f) for f in result.faults],
                sandbox=result.sandbox, duration_s=result.duration_s,
                seat_decisions=[t.decisions for t in result.timings],
                seat_think_s=[t.total_s for t in result.timings],
                log=compress_log(result.log),
            ))


async def serve(stdin: trio.abc.ReceiveStream, stdout: trio.abc.SendStream) -> None:
    """Probe the sandbox, say ready, then play every table received until stdin ends."""
    encoder = msgspec.json.Encoder()
    decoder = msgspec.json.Decoder(ToWorker)
    lock = trio.Lock()

    async def send(message: FromWorker) -> None:
        async with lock:
            await stdout.send_all(encoder.encode(message) + b"\n")

    sandbox = await Sandbox.probe()
    await send(Ready(sandbox.active, {s.name: s.why for s in sandbox.status.values() if not s.active}))
    async with trio.open_nursery() as nursery:
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:

            async def stop_on_signal() -> None:
                async for _ in signals:
                    nursery.cancel_scope.cancel()

            nursery.start_soon(stop_on_signal)
            buffer = b""
            while data := await stdin.receive_some(1 << 16):
                buffer += data
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    nursery.start_soon(_play_table, decoder.decode(line), sandbox, send)
            nursery.cancel_scope.cancel()  # the runner went away: stop playing


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m arena.tournament.worker``."""
    parser = argparse.ArgumentParser(description="Thirty-One Arena referee worker (started by `arena run`).")
    parser.add_argument("--core", type=int, default=None, help="pin this worker and its bots to this CPU")
    args = parser.parse_args(argv)
    if args.core is not None and hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[args.core % len(cores)]})

    async def run() -> None:
        await serve(trio.lowlevel.FdStream(os.dup(0)), trio.lowlevel.FdStream(os.dup(1)))

    trio.run(run)
    sys.exit(0)


if __name__ == "__main__":
    main()
