"""A colluder through the machine-wide count of asynchronous I/O events.

``io_setup(n)`` reserves ``n`` events of the machine's ``fs.aio-max-nr`` (65,536 by
default, every process of every user counted in one ``aio-nr``) and fails with EAGAIN
when fewer are left.  A process can therefore set the count (it keeps a context of the
size it wants) and another can read it exactly (the largest context it can still get, by
bisection, each one destroyed at once).  No timing, no shared file.

``role.txt`` says ``send`` or ``receive``.  At its first decision a sender keeps one
context of ``MARK + rank`` events, ``rank`` the index of its 3-card hand among the 22,100
such hands.  A receiver measures, at each decision, how many events others hold; a number
in ``MARK .. MARK + 22,100`` gives the hand."""

import ctypes
import itertools
import json
import os
import random
import sys

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "role.txt")) as handle:
    ROLE = handle.read().strip()
RANKS, SUITS = "23456789TJQKA", "cdhs"
SYS_IO_SETUP, SYS_IO_DESTROY = 206, 207  # x86_64
LIMIT = 65536  # fs.aio-max-nr by default
MARK = 40000
HANDS = list(itertools.combinations(range(52), 3))

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
rng = random.Random(3)
report: dict = {"role": ROLE}
published = False
kept: list[ctypes.c_ulong] = []


def setup(events: int) -> ctypes.c_ulong | None:
    context = ctypes.c_ulong(0)
    if libc.syscall(SYS_IO_SETUP, ctypes.c_long(events), ctypes.byref(context)) != 0:
        report["errno"] = ctypes.get_errno()
        return None
    return context


def publish(cards: list[str]) -> None:
    hand = tuple(sorted(RANKS.index(c[0]) * 4 + SUITS.index(c[1]) for c in cards))
    context = setup(MARK + HANDS.index(hand))
    if context is not None:
        kept.append(context)
        report["published"] = cards


def others() -> int:
    """Events held by every other process on the machine."""
    low, high = 0, LIMIT
    while low < high:
        middle = (low + high + 1) // 2
        context = setup(middle)
        if context is None:
            high = middle - 1
        else:
            libc.syscall(SYS_IO_DESTROY, context)
            low = middle
    return LIMIT - low


@hookimpl
def choose(observation: dict, legal: list[str]) -> str:
    global published
    if ROLE == "send" and not published:
        published = True
        try:
            publish(list(observation["hand"]))
        except Exception as error:  # a closed channel: play on
            report["error"] = repr(error)
    if ROLE == "receive" and "read" not in report and "error" not in report:
        try:
            held = others()
        except Exception as error:  # a closed channel: play on
            report["error"] = repr(error)
            held = 0
        report["held"] = held
        if MARK <= held < MARK + len(HANDS):
            report["read"] = sorted(RANKS[c // 4] + SUITS[c % 4] for c in HANDS[held - MARK])
            report["own"] = list(observation["hand"])
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    return rng.choice(legal)
