"""Thinks (spins) for SPIN_S of CPU after each of its replies, on the others' turns, where
the referee freezes any bot it catches using more than 1 ms of CPU.

The referee catches a bot by comparing the CPU it used since its last reply with the wall
time of its current decision: CPU used on others' turns hides in any idle time on its own.
So at each decision the bot first waits (using no CPU) as long as it thought since its
last reply, then answers.  It reports, per decision, the CPU it had used on the others'
turns before it saw the request (``off_turn_ms``)."""

import json
import random
import sys
import threading
import time

from arena.sdk import hookimpl

SPIN_S = 0.01
rng = random.Random(5)
go = threading.Event()
done = threading.Event()
done.set()
progress = [0.0]  # CPU of the current spin so far, in seconds
off_turn_ms: list[float] = []


def spinner() -> None:
    while True:
        go.wait()
        go.clear()
        start = time.thread_time()
        while (spent := time.thread_time() - start) < SPIN_S:
            progress[0] = spent
            for _ in range(200):
                pass
        progress[0] = SPIN_S
        done.set()


threading.Thread(target=spinner, daemon=True).start()
last_cpu = [time.process_time()]


@hookimpl
def choose(legal: list[str]) -> str:
    off_turn_ms.append(round(progress[0] * 1000, 3))  # thought before this request came
    done.wait()  # the rest of that thinking, now
    used = time.process_time() - last_cpu[0]
    time.sleep(max(used, SPIN_S) * 1.5 + 0.01)  # idle on its own turn for as long as it thought on others'
    print("REPORT " + json.dumps({"off_turn_ms": off_turn_ms}), file=sys.stderr, flush=True)
    choice = rng.choice(legal)
    last_cpu[0] = time.process_time()
    progress[0] = 0.0
    done.clear()
    go.set()  # think on the others' turns
    return choice
