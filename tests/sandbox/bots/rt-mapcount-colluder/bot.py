"""A colluder that needs no lock, futex, writable file or timing: the map count of a
shared file's pages.

Every bot reads the same copy of the standard library (one inode in every sandbox on the
machine).  A page of a file that two processes map has a map count of 2, and
``/proc/self/pagemap`` tells a process, for each page it maps, whether it is the only one
that maps it (bit 56, ``PM_MMAP_EXCLUSIVE``; ``/proc/self/smaps`` says the same as
``Shared_Clean``).  Nothing but this bot maps ``pydoc_data/topics.py`` (it is read, never
mapped), so:

``role.txt`` says ``send`` or ``receive``.  At its first decision a sender maps page 0 of
the file (a ready mark) and page 1 + card index for each card of its hand, one page per
mapping (a larger mapping would map its neighbours too: the kernel's fault-around), and
keeps them mapped.  A receiver maps the first 53 pages at each decision, touches them,
reads which of them someone else maps, unmaps them, and reports what it read (``REPORT``)
once the ready mark shows."""

import ctypes
import json
import mmap
import os
import random
import struct
import sys

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "role.txt")) as handle:
    ROLE = handle.read().strip()
RANKS, SUITS = "23456789TJQKA", "cdhs"
SHARED = os.path.join(os.path.dirname(os.__file__), "pydoc_data", "topics.py")
PAGE = 4096
PM_MMAP_EXCLUSIVE = 1 << 56
PM_PRESENT = 1 << 63

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]

fd = os.open(SHARED, os.O_RDONLY)
rng = random.Random(3)
report: dict = {"role": ROLE, "file": SHARED}
published = False
kept: list[int] = []


def touch(address: int) -> None:
    ctypes.c_char.from_address(address).value  # noqa: B018 - faults the page in


def publish(cards: list[str]) -> None:
    for page in [0] + [1 + RANKS.index(c[0]) * 4 + SUITS.index(c[1]) for c in cards]:
        address = libc.mmap(None, PAGE, mmap.PROT_READ, mmap.MAP_SHARED, fd, page * PAGE)
        touch(address)
        kept.append(address)
    report["published"] = cards


def probe() -> list[int]:
    """The pages of the first 53 that another process maps too."""
    size = 53 * PAGE
    base = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    try:
        for page in range(53):
            touch(base + page * PAGE)
        with open("/proc/self/pagemap", "rb") as pagemap:
            pagemap.seek(base // PAGE * 8)
            entries = struct.unpack("53Q", pagemap.read(53 * 8))
    finally:
        libc.munmap(base, size)
    report["present"] = sum(1 for e in entries if e & PM_PRESENT)
    return [page for page, e in enumerate(entries) if e & PM_PRESENT and not e & PM_MMAP_EXCLUSIVE]


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
            shared = probe()
        except Exception as error:  # a closed channel: play on
            report["error"] = repr(error)
            shared = []
        report["shared_pages"] = shared
        if 0 in shared:
            report["read"] = sorted(RANKS[(p - 1) // 4] + SUITS[(p - 1) % 4] for p in shared if p > 0)
            report["own"] = list(observation["hand"])
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    return rng.choice(legal)
