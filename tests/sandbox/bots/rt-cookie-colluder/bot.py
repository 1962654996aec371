"""A colluder through the machine's counter of socket cookies, which outlives it.

``getsockopt(SO_COOKIE)`` gives a socket a number from one machine-wide counter (in
batches of 4,096 per CPU: a CPU whose batch is used up takes the next one).  Nothing else
on a machine asks for cookies (no runtime does; BPF and socket diagnostics, which the
sandbox refuses, would), so the number of batches taken since boot is a counter bots
alone move, and it stays where they left it when they die.  ``socketpair`` is allowed, and
each of its sockets gets a cookie when asked.

``role.txt`` says ``write`` or ``read``.  At its first decision a writer takes batches
until the index of the last one it took is, modulo 64, the index of the lowest card of
its hand.  A reader (a later process: another generation, another table) takes a fresh
batch: its index minus one, modulo 64, is the card."""

import json
import os
import random
import socket
import sys

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "role.txt")) as handle:
    ROLE = handle.read().strip()
RANKS, SUITS = "23456789TJQKA", "cdhs"
SO_COOKIE = 57
BATCH = 4096
rng = random.Random(3)
report: dict = {"role": ROLE}
done = False


def cookie() -> int:
    one, other = socket.socketpair()
    try:
        return int.from_bytes(one.getsockopt(socket.SOL_SOCKET, SO_COOKIE, 8), "little")
    finally:
        one.close()
        other.close()


def fresh_batch() -> int:
    """The index of the next batch of cookies (taken by using up the current one)."""
    for _ in range(3 * BATCH):
        value = cookie()
        if value % BATCH == 1:
            return (value - 1) // BATCH
    raise RuntimeError("no fresh batch")


def card_index(card: str) -> int:
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


@hookimpl
def choose(observation: dict, legal: list[str]) -> str:
    global done
    if not done:
        done = True
        try:
            if ROLE == "write":
                card = min(observation["hand"], key=card_index)
                batch = fresh_batch()
                while batch % 64 != card_index(card):
                    batch = fresh_batch()
                report["wrote"] = card
                report["batch"] = batch
            else:
                batch = fresh_batch()
                report["batch"] = batch
                if (batch - 1) % 64 < 52:
                    value = (batch - 1) % 64
                    report["read"] = RANKS[value // 4] + SUITS[value % 4]
        except Exception as error:  # a closed channel: play on
            report["error"] = repr(error)
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    return rng.choice(legal)
