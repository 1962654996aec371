"""Covert channels between bots that the sandbox cannot close: how many bits a second a
colluding pair gets through, behind every sandbox layer this machine offers.

The pair is ``benchmarks/colluder`` (its docstring says what each role does).  Each
channel is measured with real sandboxed bot processes through the real referee, on one
pinned core as a tournament worker runs them, sending a random secret:

* **timing, same table**: the sender encodes a symbol in how long it takes to answer; the
  receiver, frozen meanwhile, reads the clock when it next runs.  Thinking time is part of
  the game, so this channel is inherent to turn-based play; the table shows how much it
  carries with 2, 4 and 16 distinguishable durations.
* **timing, with** ``min_turn_ms``: the same sender and receiver when the referee holds
  every reply back to a minimum turn time longer than the sender's longest symbol (the
  tournament setting ``[time] min_turn_ms``): what is left of the channel.
* **CPU load, two tables on one core**: a bot cannot run on another bot's turn at its own
  table (it is frozen), but a worker plays several tables at once on its core; senders at
  one table spin through their turns while the secret's bit is 1, a receiver at another
  measures how much of its own thinking time it had the CPU.
* **memory, two tables on two cores**: the same with memory traffic instead of the CPU,
  each table on its own core (as two workers run them): the senders stream through 64 MB
  while the bit is 1; the receiver times its own streaming.

For each it prints the raw rate (symbols sent per second times bits per symbol), the
symbol error rate, and the capacity that error rate leaves (Shannon's, for a symmetric
channel): the number to compare with what a bot would need to send (a 3-card hand is
about 14 bits; the whole deal of a 4-player match about 225).

    python benchmarks/covert.py [--seconds 20] [--channels timing,cpu,memory]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import trio  # noqa: E402
from tabulate import tabulate  # noqa: E402

from arena.botspec import BotManifest, find_bot, load_manifest  # noqa: E402
from arena.deals import new_key  # noqa: E402
from arena.referee import Bot, TimeControl, open_bots, play_match  # noqa: E402
from arena.rules import get_variant  # noqa: E402
from arena.sandbox import Sandbox  # noqa: E402

COLLUDER = Path(__file__).resolve().parent / "colluder"
SCAT = get_variant("scat")
TIME = TimeControl(move_ms=1000, bank_ms=5000, first_move_ms=2000, startup_ms=10_000)
PREAMBLE = 16
"""Symbols the timing sender starts with, all 0: the receiver calibrates on them."""


def copy_colluder(folder: Path, role: dict[str, Any]) -> BotManifest:
    """A copy of the colluder with its role, in a folder the bot's user can read."""
    target = folder / f"colluder-{role['role']}-{len(list(folder.iterdir()))}"
    shutil.copytree(COLLUDER, target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "role.json").write_text(json.dumps(role), encoding="utf-8")
    for path in (target, *target.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return load_manifest(target)


def entropy(p: float) -> float:
    return 0.0 if p <= 0 or p >= 1 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def capacity(bits_per_symbol: float, error: float, levels: int) -> float:
    """Bits per symbol left after errors (symmetric channel over ``levels`` symbols)."""
    if levels == 2:
        return max(0.0, 1 - entropy(error))
    spread = error * math.log2(levels - 1) if error > 0 else 0.0
    return max(0.0, bits_per_symbol - entropy(error) - spread)


async def play_for(seconds: float, tables: Sequence[list[Bot]], time_control: TimeControl = TIME) -> float:
    """Play matches at every table at once (one per table at a time) for ``seconds``;
    the wall time it took."""
    begun = time.perf_counter()

    async def table(bots: list[Bot]) -> None:
        while time.perf_counter() - begun < seconds:
            await play_match(SCAT, bots, seed=new_key(), time_control=time_control)

    async with trio.open_nursery() as nursery:
        for bots in tables:
            nursery.start_soon(table, bots)
    return time.perf_counter() - begun


def lines(bot: Bot, tag: str) -> list[list[str]]:
    return [line.split()[1:] for line in bot.stderr_text(1 << 20).splitlines() if line.startswith(tag + " ")]


async def timing_channel(sandbox: Sandbox, folder: Path, seconds: float, levels: int, step_ms: float,
                         min_turn_ms: int = 0) -> dict[str, Any]:
    rng = random.Random(levels)
    symbols = [0] * PREAMBLE + [rng.randrange(levels) for _ in range(20_000)]
    sender = copy_colluder(folder, {"role": "timing-sender", "symbols": symbols, "step_ms": step_ms})
    receiver = copy_colluder(folder, {"role": "timing-receiver", "sender_seat": 0})
    async with open_bots([sender, receiver], time_control=TIME, sandbox=sandbox) as bots:
        ready = [b for b in bots if isinstance(b, Bot)]
        assert len(ready) == 2, bots
        elapsed = await play_for(seconds, [ready], dataclasses.replace(TIME, min_turn_ms=min_turn_ms))
        waits = {int(j): float(ms) for j, ms in lines(ready[1], "W")}
    base = statistics.median([ms for j, ms in waits.items() if j < PREAMBLE] or [0.0])
    decoded = {j: max(0, min(levels - 1, round((ms - base) / step_ms))) for j, ms in waits.items() if j >= PREAMBLE}
    errors = sum(1 for j, s in decoded.items() if s != symbols[j])
    error = errors / len(decoded) if decoded else 1.0
    per_symbol = math.log2(levels)
    rate = len(decoded) * per_symbol / elapsed
    held = f", every turn held to {min_turn_ms} ms" if min_turn_ms else ""
    return {"channel": f"timing, {levels} levels {step_ms:g} ms apart{held}", "symbols": len(decoded),
            "raw bits/s": rate, "error": error,
            "capacity bits/s": rate * capacity(per_symbol, error, levels) / per_symbol}


async def load_channel(sandbox: Sandbox, folder: Path, seconds: float, period_ms: int, kind: str) -> dict[str, Any]:
    """Senders at one table load the CPU (``kind`` "cpu", tables on one core) or the memory
    ("memory", tables on two cores) while the secret's bit is 1; a receiver at another
    table measures its own speed in each of its turns."""
    rng = random.Random(period_ms)
    bits = "".join(rng.choice("01") for _ in range(4096))
    epoch = time.time() + 1.0
    load = {"role": f"{kind}-sender", "bits": bits, "epoch": epoch, "period_ms": period_ms, "spin_ms": 20}
    senders = [copy_colluder(folder, load), copy_colluder(folder, load)]
    receiver = copy_colluder(folder, {"role": f"{kind}-receiver", "epoch": epoch, "window_ms": 5})
    async with open_bots([*senders, receiver, find_bot("random")], time_control=TIME, sandbox=sandbox) as bots:
        ready = [b for b in bots if isinstance(b, Bot)]
        assert len(ready) == 4, bots
        if kind == "memory":  # each table on a core of its own, as two workers run them
            cores = sorted(os.sched_getaffinity(0) | set(range(os.cpu_count() or 1)))
            for bot, core in zip(ready, (cores[0], cores[0], cores[-1], cores[-1])):
                for pid in bot.sandboxed.cgroup.pids() if bot.sandboxed.cgroup else {bot.sandboxed.pid}:
                    os.sched_setaffinity(pid, {core})
        elapsed = await play_for(seconds, [ready[:2], ready[2:]])
        samples = [(float(t), float(speed)) for t, speed in lines(ready[2], "S")]
    by_period: dict[int, list[float]] = {}
    for t, speed in samples:
        if t >= 0:
            by_period.setdefault(int(t * 1000 // period_ms), []).append(speed)
    means = {k: statistics.mean(v) for k, v in by_period.items()}
    threshold = statistics.median(means.values()) if means else 0.5
    decoded = {k: "1" if m < threshold else "0" for k, m in means.items()}  # loaded: slower for the receiver
    errors = sum(1 for k, b in decoded.items() if b != bits[k % len(bits)])
    error = errors / len(decoded) if decoded else 1.0
    rate = len(decoded) / elapsed
    where = "two tables on one core" if kind == "cpu" else "two tables on two cores"
    return {"channel": f"{kind} load, {where}, {period_ms} ms a bit", "symbols": len(decoded), "raw bits/s": rate,
            "error": error, "capacity bits/s": rate * capacity(1, error, 2)}


async def measure(channels: Sequence[str], seconds: float) -> list[dict[str, Any]]:
    sandbox = await Sandbox.probe()
    print(f"sandbox layers: {', '.join(sandbox.active)}", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="arena-covert-"))
    folder.chmod(0o755)
    rows = []
    try:
        if "timing" in channels:
            for levels, step, held in ((2, 3.0, 0), (4, 2.0, 0), (16, 1.0, 0), (2, 3.0, 8), (4, 2.0, 10)):
                rows.append(await timing_channel(sandbox, folder, seconds, levels, step, held))
                print(f"  {rows[-1]['channel']}: done", flush=True)
        for kind in ("cpu", "memory"):
            if kind in channels:
                for period in (100, 400):
                    rows.append(await load_channel(sandbox, folder, seconds, period, kind))
                    print(f"  {rows[-1]['channel']}: done", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each channel is measured")
    parser.add_argument("--channels", default="timing,cpu,memory", help="timing, cpu, memory (comma-separated)")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[-1]})  # the referee and every bot on one core, as in a worker
    rows = trio.run(measure, args.channels.split(","), args.seconds)
    print(tabulate([[r["channel"], r["symbols"], f"{r['raw bits/s']:.1f}", f"{r['error']:.3f}",
                     f"{r['capacity bits/s']:.1f}"] for r in rows],
                   headers=["channel", "symbols", "raw bits/s", "symbol error", "capacity bits/s"]))


if __name__ == "__main__":
    main()
