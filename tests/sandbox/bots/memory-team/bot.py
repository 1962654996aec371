"""On its first decision: forks CHILDREN children that each allocate and write BLOCK_MB
(each under the per-process address-space limit; together over the bot's memory limit),
tell the parent when they hold it, and wait.  Once every child has said so or ended (or
10 s have passed: a busy machine makes this slow, not different), the parent reports how
many are still alive holding their block and how the others ended, kills the rest and
keeps playing legally.

Numbers come from ``team.json`` in the bot's folder: {"children": N, "block_mb": M}.
"""

import json
import os
import random
import select
import signal
import sys
import time

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
MB = 1024 * 1024
rng = random.Random(5)
attacked = False


def child(block_mb: int, ready: int) -> None:
    try:
        block = bytearray(b"\x02") * (block_mb * MB)
        os.write(ready, b"1")
        while block:
            time.sleep(60)
    finally:
        os._exit(0)


def attack() -> dict[str, object]:
    with open(os.path.join(HERE, "team.json")) as handle:
        team = json.load(handle)
    read, write = os.pipe()
    pids = []
    for _ in range(team["children"]):
        pid = os.fork()
        if pid == 0:
            os.close(read)
            child(team["block_mb"], write)
        pids.append(pid)
    os.close(write)
    held = 0
    ends = {}
    deadline = time.monotonic() + 10.0
    while held + len(ends) < len(pids) and time.monotonic() < deadline:
        if select.select([read], [], [], 0.05)[0]:
            held += len(os.read(read, 16))
        for pid in pids:
            if pid not in ends:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    ends[pid] = f"killed by {signal.Signals(-os.waitstatus_to_exitcode(status)).name}" if (
                        os.WIFSIGNALED(status)) else f"exit {os.waitstatus_to_exitcode(status)}"
    os.close(read)
    for pid in pids:
        if pid not in ends:
            ends[pid] = "alive"
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return {"children": len(pids), "block_mb": team["block_mb"], "ready_signals": held,
            "alive_at_end": sum(1 for end in ends.values() if end == "alive"), "ends": sorted(ends.values())}


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(attack()), file=sys.stderr, flush=True)
    return rng.choice(legal)
