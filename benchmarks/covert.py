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
* **page cache**: the pages of the big files under ``/usr`` that nobody has read since
  boot.  Every bot may read them and a plain read loads a page for good (here the first
  read of a page takes 45 microseconds or more, a cached one about one); bots cannot ask
  whether a page is cached or push it out (seccomp), but they can time their own first
  read.  The sender reads the pages of the 1 bits; the receiver times one read of each
  page, which loads it too: each page carries one bit once (every other page of the files
  of 32 MB or more: about 240,000 here; a row says when a run used them all).  Both ends
  number the pages the same way from a seed (the colluder's docstring).  Measured **at
  one table** (the receiver reads, at each of its turns, the blocks the sender sent at
  its own; also with every turn held to ``min_turn_ms``), **between two tables on two
  cores** (one block per period of wall time), and **across the process generations of
  one bot** (a fresh process for each rotation of a duplicate deal: each generation reads
  what the one before sent; played as matches in a row, each with a fresh process of the
  same bot; its figure is per rotation gap).  Before each, the benchmark (outside the
  sandbox) pushes those files out of the page cache, as a machine that has not read them
  since boot has them.  Where the bot's ``/usr`` is a resident copy in memory (the
  ``resident`` layer) the colluder uses the largest files it finds there.

For each it prints the raw rate (symbols sent per second times bits per symbol), the
symbol error rate, and the capacity that error rate leaves (Shannon's, for a symmetric
channel): the number to compare with what a bot would need to send (a 3-card hand is
about 14 bits; the whole deal of a 4-player match about 225).

    python benchmarks/covert.py [--seconds 20] [--channels timing,cpu,memory,pagecache]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import shutil
import stat
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
PAGE_CACHE: dict[str, Any] = {
    "min_mb": 32, "spacing": 8192, "threshold_us": 20,
    "avoid": ["/usr/bin/node", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "/usr/lib/chromium/chromium"],
}
"""The pages of the page cache channels: every ``spacing`` bytes of each file of at least
``min_mb`` MB under /usr, but programs other tables may be running (JavaScript bots, C++
builds); a read under ``threshold_us`` was cached."""


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


def big_files(min_mb: int, avoid: Sequence[str]) -> list[str]:
    """The files the page cache channels use (the colluder makes the same list)."""
    found = []
    for folder, _, names in os.walk("/usr"):
        for name in names:
            path = os.path.join(folder, name)
            try:
                info = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size >= min_mb << 20 and path not in avoid:
                found.append(path)
    return sorted(found)


def evict_big_files() -> None:
    """Push the page cache channels' files out of the page cache (pages mapped by running
    programs stay), so each channel starts from pages nobody has read."""
    for path in big_files(PAGE_CACHE["min_mb"], PAGE_CACHE["avoid"]):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def unhex(text: str) -> str:
    return bin(int(text, 16))[2:].zfill(len(text) * 4)


def pin(bot: Bot, core: int) -> None:
    for pid in bot.sandboxed.cgroup.pids() if bot.sandboxed.cgroup else {bot.sandboxed.pid}:
        os.sched_setaffinity(pid, {core})


def two_cores() -> tuple[int, int]:
    cores = sorted(os.sched_getaffinity(0) | set(range(os.cpu_count() or 1)))
    return cores[0], cores[-1]


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
            first, last = two_cores()
            for bot, core in zip(ready, (first, first, last, last)):
                pin(bot, core)
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


async def page_cache_channel(sandbox: Sandbox, folder: Path, seconds: float, block: int, period_ms: int = 0,
                             min_turn_ms: int = 0) -> dict[str, Any]:
    """A sender sends ``block`` bits of a secret through the page cache at each of its
    decisions (at one table with the receiver, every turn held to ``min_turn_ms``), or
    each ``period_ms`` of wall time (two tables on two cores); the receiver reads each
    block once after."""
    rng = random.Random(block * 1000 + period_ms)
    bits = "".join(rng.choice("01") for _ in range(4096))
    common = {**PAGE_CACHE, "seed": f"covert {block} {period_ms}", "block": block}
    if period_ms:
        common |= {"period_ms": period_ms, "epoch": time.time() + 1.0}
    sender = copy_colluder(folder, {"role": "pagecache-sender", "bits": bits, **common})
    receiver = copy_colluder(folder, {"role": "pagecache-receiver", "sender_seat": 0, **common})
    evict_big_files()
    manifests = [sender, find_bot("random"), receiver, find_bot("random")] if period_ms else [sender, receiver]
    async with open_bots(manifests, time_control=TIME, sandbox=sandbox) as bots:
        ready = [b for b in bots if isinstance(b, Bot)]
        assert len(ready) == len(manifests), bots
        if period_ms:  # each table on a core of its own, as two workers run them
            first, last = two_cores()
            for bot, core in zip(ready, (first, first, last, last)):
                pin(bot, core)
            elapsed = await play_for(seconds, [ready[:2], ready[2:]])
        else:
            elapsed = await play_for(seconds, [ready], dataclasses.replace(TIME, min_turn_ms=min_turn_ms))
        received = {int(j): unhex(hexed) for j, hexed in lines(ready[2 if period_ms else 1], "P")}
        used_up = lines(ready[2 if period_ms else 1], "X")
    # the blocks read, counted from the block numbers (the stderr kept may have lost the first lines)
    count = (max(received) + 1 - (min(received) if period_ms else 0)) if received else 0
    errors = sum(got[i] != bits[(j * block + i) % len(bits)] for j, got in received.items() for i in range(block))
    error = errors / (len(received) * block) if received else 1.0
    rate = count * block / elapsed
    held = f", every turn held to {min_turn_ms} ms" if min_turn_ms else ""
    where = f"two tables on two cores, {block} bits each {period_ms} ms" if period_ms else \
        f"same table, {block} bits a decision{held}"
    if used_up:
        where += f", every one of the {used_up[0][0]} pages used"
    return {"channel": f"page cache, {where}", "symbols": count * block, "raw bits/s": rate,
            "error": error, "capacity bits/s": rate * capacity(1, error, 2)}


async def generations_channel(sandbox: Sandbox, folder: Path, seconds: float, generations: int, block: int,
                              slot_bits: int) -> dict[str, Any]:
    """One bot, ``generations`` matches in a row, each in a fresh process (the rotations of
    a duplicate deal): each generation sends ``slot_bits`` random bits of its own through
    the page cache and reads what the one before sent, ``block`` bits a decision."""
    bot = copy_colluder(folder, {"role": "pagecache-generations", **PAGE_CACHE, "seed": "covert generations",
                                 "block": block, "slot_bits": slot_bits})
    evict_big_files()
    seen, sent, got, reading = [], [], [], 0.0
    for generation in range(generations):
        async with open_bots([bot, find_bot("random")], time_control=TIME, sandbox=sandbox) as bots:
            ready = [b for b in bots if isinstance(b, Bot)]
            assert len(ready) == 2, bots
            elapsed = await play_for(seconds / generations, [ready])
            reading += elapsed if generation else 0.0
            seen += [int(g) for g, in lines(ready[0], "G")]
            sent.append({int(at): unhex(hexed) for at, hexed in lines(ready[0], "E")})
            got.append({int(at): unhex(hexed) for at, hexed in lines(ready[0], "D")})
    pairs = [(sent[g][at], bits) for g in range(generations - 1) for at, bits in got[g + 1].items() if at in sent[g]]
    count = sum(len(bits) for _, bits in pairs)
    error = sum(a != b for s, r in pairs for a, b in zip(s, r)) / count if count else 1.0
    gaps = generations - 1
    note = "" if seen == list(range(generations)) else f", generations found {seen}"
    return {"channel": f"page cache, one bot across {generations} process generations: {count / gaps:.0f} bits "
                       f"a rotation gap (capacity {count / gaps * capacity(1, error, 2):.0f}){note}",
            "symbols": count, "raw bits/s": count / reading if reading else 0.0, "error": error,
            "capacity bits/s": count / reading * capacity(1, error, 2) if reading else 0.0}


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
        if "pagecache" in channels:
            for held in (0, 10):
                rows.append(await page_cache_channel(sandbox, folder, seconds, 64, min_turn_ms=held))
                print(f"  {rows[-1]['channel']}: done", flush=True)
            for period in (50, 10):
                rows.append(await page_cache_channel(sandbox, folder, seconds, 64, period_ms=period))
                print(f"  {rows[-1]['channel']}: done", flush=True)
            rows.append(await generations_channel(sandbox, folder, seconds, 3, 256, 8192))
            print(f"  {rows[-1]['channel']}: done", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each channel is measured")
    parser.add_argument("--channels", default="timing,cpu,memory,pagecache",
                        help="timing, cpu, memory, pagecache (comma-separated)")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[-1]})  # the referee and every bot on one core, as in a worker
    rows = trio.run(measure, args.channels.split(","), args.seconds)
    print(tabulate([[r["channel"], r["symbols"], f"{r['raw bits/s']:.1f}", f"{r['error']:.3f}",
                     f"{r['capacity bits/s']:.1f}"] for r in rows],
                   headers=["channel", "symbols", "raw bits/s", "symbol error", "capacity bits/s"]))


if __name__ == "__main__":
    main()
