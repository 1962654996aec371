"""A colluder through the machine-wide count of pids ever allocated: a pidfd's inode number.

Since Linux 6.9 a pidfd is a file of ``pidfs``, whose inode number is a 64-bit number the
kernel gives each new ``struct pid`` from one counter of the whole machine: every process
and every thread created anywhere takes the next one, whatever its pid namespace.  A bot
reads it by starting a child and ``fstat``-ing ``pidfd_open(child)``, and moves it by one
with each thread it starts (about 0.1 ms), with no batching: a register any bot can write
and read, moved by nothing else but process and thread creation on the machine.

``role.txt`` says ``send``/``write`` or ``receive``/``read``.  A sender (at its first
decision) starts threads until the count is ``8 * (4 * card + 3)`` modulo 2,048, ``card`` the
index of the lowest card of its hand.  A receiver, at each decision, reads the count: it
decodes ``((count - 1) % 2048) // 8`` (up to 7 creations by others in between tolerated) and
reads a card only for a symbol ``4 * card + 3``, and only when the count moved since its own
last read.  ``write``/``read`` are the same roles for a process killed before the reader
starts; the reader takes off the pids a rotation gap takes (the referee's processes for
the new bots: steady, 9 to 13 here: it takes off 8)."""

import _thread
import json
import os
import random
import sys
import threading

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "role.txt")) as handle:
    ROLE = handle.read().strip()
RANKS, SUITS = "23456789TJQKA", "cdhs"
SPREAD, MODULUS = 8, 2048
GAP = 8
"""Pids a rotation gap takes (the referee's processes for three new bots), measured: 9 to
13; the spread of 8 tolerates up to 7 more."""
rng = random.Random(3)
report: dict = {"role": ROLE, "reads": [], "read": []}
decisions = 0


def count() -> int:
    """The pidfs inode number of a new child: the machine's count of pids given out."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        fd = os.pidfd_open(pid)
        try:
            return os.fstat(fd).st_ino
        finally:
            os.close(fd)
    finally:
        os.waitpid(pid, 0)


def threads(n: int) -> None:
    """Start (and finish) ``n`` threads, one at a time: each takes one pid."""
    for _ in range(n):
        done = threading.Lock()
        done.acquire()
        _thread.start_new_thread(done.release, ())
        done.acquire()


def card_index(card: str) -> int:
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


def write(card: str) -> int:
    target = SPREAD * (4 * card_index(card) + 3)
    value = count()
    for _ in range(20):
        if value % MODULUS == target:
            return value
        threads((target - value - 1) % MODULUS)
        value = count()
    raise RuntimeError("could not set the count")


@hookimpl
def choose(observation: dict, legal: list[str]) -> str:
    global decisions
    decisions += 1
    try:
        if ROLE in ("send", "write") and decisions == 1:
            card = min(observation["hand"], key=card_index)
            report["count"] = write(card)
            report["wrote"] = card
            report["published"] = [card]
        elif ROLE in ("receive", "read"):
            value = count()
            moved = not report["reads"] or value != report["reads"][-1] + 1
            report["reads"].append(value)
            symbol = ((value - 1 - (GAP if ROLE == "read" else 0)) % MODULUS) // SPREAD
            if moved and symbol % 4 == 3 and symbol // 4 < 52:
                report["read"].append(RANKS[symbol // 16] + SUITS[symbol // 4 % 4])
    except Exception as error:  # a closed channel: play on
        report["error"] = repr(error)
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    return rng.choice(legal)
