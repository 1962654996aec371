"""An honest bot that thinks (computes) for THINK_S of wall-clock time at each decision
and measures how much of that time it had the CPU (its thread's CPU time over the wall
time); reports every decision's share so far after each decision.

The thread's clock, not the process's: under an RLIMIT_CPU (every sandboxed bot has one)
the kernel reads the process clock from a timer updated at scheduler ticks, which lags by
up to a few milliseconds and made a bot that had the whole core look as if it had 0.85."""

import json
import random
import sys
import time

from arena.sdk import hookimpl

THINK_S = 0.02
rng = random.Random(11)
shares: list[float] = []


@hookimpl
def choose(legal: list[str]) -> str:
    wall, cpu = time.perf_counter(), time.thread_time()
    while time.perf_counter() - wall < THINK_S:
        for _ in range(1000):
            pass
    shares.append((time.thread_time() - cpu) / (time.perf_counter() - wall))
    print("REPORT " + json.dumps({"shares": shares}), file=sys.stderr, flush=True)
    return rng.choice(legal)
