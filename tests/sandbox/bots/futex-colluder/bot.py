"""A colluder that needs no writable shared file, no socket, no lock and no timing.

Every Python bot maps the same read-only file of the interpreter's standard library
(``os.py``: one inode, shared by every sandbox on the machine) with ``MAP_SHARED``.  A
futex on a shared file mapping is keyed by the file's inode and offset, not by the
process, so threads of one bot waiting at offsets of that page are seen by another
bot's ``FUTEX_WAKE`` at the same offsets: the number it wakes (0 or 1) reads one bit.

``role.txt`` says ``send`` or ``receive``.  At its first decision a sender publishes the
cards of its hand: one waiting thread per card, at offset 4 * card index, plus a ready mark
at offset 4 * 60.  A receiver probes the 52 offsets at
each decision once the ready mark answers, and reports what it read (``REPORT``)."""

import ctypes
import json
import mmap
import os
import random
import sys
import threading
import time

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "role.txt")) as handle:
    ROLE = handle.read().strip()
RANKS, SUITS = "23456789TJQKA", "cdhs"
READY = 60
SHARED = os.path.join(os.path.dirname(os.__file__), "os.py")  # any file every Python bot maps alike

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
SYS_FUTEX = 202  # x86_64
FUTEX_WAIT, FUTEX_WAKE = 0, 1

fd = os.open(SHARED, os.O_RDONLY)
base = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
rng = random.Random(3)
report: dict = {"role": ROLE, "file": SHARED}
published = False


def address(slot: int) -> int:
    return base + 4 * slot


def value(slot: int) -> int:
    return ctypes.c_uint32.from_address(address(slot)).value


def wait_forever(slot: int) -> None:
    while True:  # woken by a probe: wait again
        if libc.syscall(SYS_FUTEX, ctypes.c_void_p(address(slot)), FUTEX_WAIT, ctypes.c_uint32(value(slot)), None,
                        None, 0) != 0 and ctypes.get_errno() == 11:
            return  # EAGAIN: the word of a read-only page never changes, so this wait is refused


def waiting(tid: int) -> bool:
    try:
        with open(f"/proc/self/task/{tid}/syscall") as handle:
            return handle.read().split()[0] == str(SYS_FUTEX)
    except PermissionError:  # a thread's own /proc files are hidden: give it a moment and assume so
        time.sleep(0.01)
        return True
    except (OSError, IndexError):
        return False


def publish(cards: list[str]) -> None:
    slots = [RANKS.index(c[0]) * 4 + SUITS.index(c[1]) for c in cards] + [READY]
    threads = []
    for slot in slots:
        thread = threading.Thread(target=wait_forever, args=(slot,), daemon=True)
        thread.start()
        threads.append(thread)
    while not all(waiting(t.native_id) or not t.is_alive() for t in threads):  # every waiter is in the kernel's queue
        os.sched_yield()
    report["published"] = cards


def probe(slot: int) -> bool:
    return libc.syscall(SYS_FUTEX, ctypes.c_void_p(address(slot)), FUTEX_WAKE, 1, None, None, 0) == 1


@hookimpl
def choose(observation: dict, legal: list[str]) -> str:
    global published
    if ROLE == "send" and not published:
        publish(list(observation["hand"]))
        published = True
    if ROLE == "receive" and "read" not in report and probe(READY):
        report["read"] = sorted(RANKS[i // 4] + SUITS[i % 4] for i in range(52) if probe(i))
        report["own"] = list(observation["hand"])
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    return rng.choice(legal)
