"""One half of a colluding pair, for ``benchmarks/covert.py``: what it does comes from
``role.json`` beside it.

- ``timing-sender``: before answering its j-th decision, waits ``symbols[j] * step_ms``
  (one of ``levels`` durations); the only thing it changes is how long it takes.
- ``timing-receiver``: at the same table, measures the wall time from its own last reply
  to its next request (while frozen it cannot look, but the clock has moved on); when the
  sender acted exactly once in between (it counts the sender's actions in its events), it
  prints ``W j milliseconds`` on stderr: the wait that carried the sender's j-th symbol
  (the benchmark decodes it as the receiver would).
- ``cpu-sender``: at another table on the same core, spins the CPU through its turns
  (``spin_ms``) while the secret's current bit is 1 and answers at once while it is 0; the
  bit changes every ``period_ms`` of wall time from ``epoch`` (both bots read the same clock).
- ``cpu-receiver``: thinks ``window_ms`` at each of its turns and prints ``S t share``: the
  share of that window it had the CPU, at wall time ``t``.
- ``memory-sender`` / ``memory-receiver``: the same on two cores, with memory instead of
  the CPU: the sender streams through 64 MB while the bit is 1; the receiver prints how
  fast it streamed through 4 MB (``S t megabytes-per-second``).
"""

import json
import os
import random
import sys
import time

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "role.json"), encoding="utf-8") as handle:
    CONFIG = json.load(handle)
ROLE = CONFIG["role"]
rng = random.Random(5)
state = {"decisions": 0, "last_reply": 0.0, "sender_actions": 0, "new_actions": 0}


def busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def stream(buffer: bytearray, seconds: float) -> float:
    """Read and write through ``buffer`` for ``seconds`` (at least once); megabytes a second."""
    begun, moved = time.perf_counter(), 0
    view = memoryview(buffer)
    while True:
        view[1:] = view[:-1]  # a memmove of the whole buffer
        moved += len(buffer)
        if time.perf_counter() - begun >= seconds:
            return moved / (time.perf_counter() - begun) / 1e6


BUFFER = bytearray(64 * 2**20 if ROLE == "memory-sender" else 4 * 2**20 if ROLE == "memory-receiver" else 0)


@hookimpl
def on_event(event: dict[str, object]) -> None:
    if event.get("event") == "action" and event.get("seat") == CONFIG.get("sender_seat"):
        state["sender_actions"] += 1
        state["new_actions"] += 1


@hookimpl
def choose(legal: list[str]) -> str:
    now = time.perf_counter()
    if ROLE == "timing-sender":
        symbols = CONFIG["symbols"]
        busy(symbols[state["decisions"] % len(symbols)] * CONFIG["step_ms"] / 1000)
    elif ROLE == "timing-receiver":
        if state["last_reply"] and state["new_actions"] == 1:
            waited_ms = (now - state["last_reply"]) * 1000
            print(f"W {state['sender_actions'] - 1} {waited_ms:.3f}", file=sys.stderr, flush=True)
        state["new_actions"] = 0
    elif ROLE == "cpu-sender":
        bits = CONFIG["bits"]
        if bits[int((time.time() - CONFIG["epoch"]) * 1000 // CONFIG["period_ms"]) % len(bits)] == "1":
            busy(CONFIG["spin_ms"] / 1000)
    elif ROLE == "memory-sender":
        bits = CONFIG["bits"]
        if bits[int((time.time() - CONFIG["epoch"]) * 1000 // CONFIG["period_ms"]) % len(bits)] == "1":
            stream(BUFFER, CONFIG["spin_ms"] / 1000)
    elif ROLE == "memory-receiver":
        speed = stream(BUFFER, CONFIG["window_ms"] / 1000)
        print(f"S {time.time() - CONFIG['epoch']:.4f} {speed:.1f}", file=sys.stderr, flush=True)
    elif ROLE == "cpu-receiver":
        wall, cpu = time.perf_counter(), time.process_time()
        busy(CONFIG["window_ms"] / 1000)
        share = (time.process_time() - cpu) / (time.perf_counter() - wall)
        print(f"S {time.time() - CONFIG['epoch']:.4f} {share:.3f}", file=sys.stderr, flush=True)
    state["decisions"] += 1
    choice = rng.choice(legal)
    state["last_reply"] = time.perf_counter()
    return choice
