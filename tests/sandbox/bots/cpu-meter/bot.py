"""An honest bot that thinks (computes) for THINK_S of wall-clock time at each decision
and measures how much of that time it had the CPU (its CPU time over the wall time);
reports every decision's share so far after each decision."""

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
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < THINK_S:
        for _ in range(1000):
            pass
    shares.append((time.process_time() - cpu) / (time.perf_counter() - wall))
    print("REPORT " + json.dumps({"shares": shares}), file=sys.stderr, flush=True)
    return rng.choice(legal)
