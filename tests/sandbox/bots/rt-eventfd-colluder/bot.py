"""A colluder through the kernel's one numbering of eventfds.

Each eventfd gets the lowest free id of a machine-wide allocator (``eventfd_ida``), and
``/proc/self/fdinfo/FD`` shows it (``eventfd-id:``).  What ids a process is given tells it
which ids every other process on the machine holds.

``role.txt`` says ``send`` or ``receive``.  At its first decision a sender takes 56
eventfds (ids b .. b+55, given in order), keeps b+1+card for each card of its hand and
b+53 .. b+55 (an end mark), and closes the rest.  A receiver takes eventfds until it is
refused (its open-files limit) or has 58, at each decision: the ids it skipped are held by
others; the top three of them are the end mark, and the ones below give the cards."""

import json
import os
import random
import sys

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "role.txt")) as handle:
    ROLE = handle.read().strip()
RANKS, SUITS = "23456789TJQKA", "cdhs"

rng = random.Random(3)
report: dict = {"role": ROLE}
published = False
kept: list[int] = []


def eventfd_id(fd: int) -> int:
    with open(f"/proc/self/fdinfo/{fd}") as handle:
        return int(handle.read().split("eventfd-id:")[1].split()[0])


def publish(cards: list[str]) -> None:
    fds = [os.eventfd(0) for _ in range(56)]
    ids = [eventfd_id(fd) for fd in fds]
    base = ids[0]
    wanted = {base + 1 + RANKS.index(c[0]) * 4 + SUITS.index(c[1]) for c in cards} | {base + 53, base + 54, base + 55}
    for fd, number in zip(fds, ids):
        if number in wanted:
            kept.append(fd)
        else:
            os.close(fd)
    report["published"] = cards
    report["contiguous"] = ids == list(range(base, base + 56))


def probe() -> list[int]:
    """Ids held by others between the lowest and the highest the receiver was given."""
    fds, ids = [], []
    try:
        while len(fds) < 58:
            try:
                fd = os.eventfd(0)
            except OSError:
                break
            fds.append(fd)
            ids.append(eventfd_id(fd))
    finally:
        for fd in fds:
            os.close(fd)
    report["given"] = len(ids)
    return sorted(set(range(min(ids), max(ids))) - set(ids)) if ids else []


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
            held = probe()
        except Exception as error:  # a closed channel: play on
            report["error"] = repr(error)
            held = []
        report["held"] = held
        if len(held) >= 3 and held[-3:] == list(range(held[-1] - 2, held[-1] + 1)):
            base = held[-1] - 55
            cards = [h - base - 1 for h in held[:-3] if 0 <= h - base - 1 < 52]
            if cards:
                report["read"] = sorted(RANKS[c // 4] + SUITS[c % 4] for c in cards)
                report["own"] = list(observation["hand"])
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    return rng.choice(legal)
