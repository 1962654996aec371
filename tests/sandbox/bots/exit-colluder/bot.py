"""A colluder that wakes nothing itself: the kernel does it when a thread exits.

A thread's ``clear_child_tid`` address (set by ``set_tid_address``, or by ``clone``) is
woken by the kernel when the thread exits, with a futex wake that is not private: on a page
of a shared file (the standard library's ``os.py``, mapped read-only, one inode in every
sandbox) it reaches whichever process waits at that file and offset.  No system call of
the sender wakes anything, so refusing shared wakes does not stop it.

``role.txt`` says ``send`` or ``receive``.  A card is its index (0 to 51) in 6 bits, and
slot ``6 * position + bit`` (offset 4 * slot) carries a bit of the card at that position
of the hand (a bot may run 32 threads, so not one per card).  A receiver, as it starts,
parks one waiting thread at each of the 24 slots of a 4-card hand and one at the ready
mark (slot 60), and notes which are woken.  At its first decision a sender starts and
ends one thread per bit set, then one for the ready mark, each pointing its
``clear_child_tid`` at that slot.  The receiver reports what it read (``REPORT``) at each
decision once the ready mark has woken."""

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
CARDS, BITS = 4, 6
SHARED = os.path.join(os.path.dirname(os.__file__), "os.py")  # any file every Python bot maps alike

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
SYS_FUTEX, SYS_SET_TID_ADDRESS = 202, 218  # x86_64
FUTEX_WAIT = 0

fd = os.open(SHARED, os.O_RDONLY)
base = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
rng = random.Random(5)
report: dict = {"role": ROLE, "file": SHARED, "answers": []}
woken: set[int] = set()
published = False


def address(slot: int) -> int:
    return base + 4 * slot


def value(slot: int) -> int:
    return ctypes.c_uint32.from_address(address(slot)).value


def wait(slot: int) -> None:
    """Wait at ``slot`` until woken (0 from the kernel), noting what else it answered."""
    while True:
        result = libc.syscall(SYS_FUTEX, ctypes.c_void_p(address(slot)), FUTEX_WAIT, ctypes.c_uint32(value(slot)),
                              None, None, 0)
        if result == 0:
            woken.add(slot)
            return
        error = ctypes.get_errno()
        if len(report["answers"]) < 5:
            report["answers"].append(os.strerror(error))
        if error != 4:  # EINTR: wait again; EAGAIN (the word of a read-only page never changes) or worse: give up
            return


def in_futex(tid: int) -> bool:
    try:
        with open(f"/proc/self/task/{tid}/syscall") as handle:
            return handle.read().split()[0] == str(SYS_FUTEX)
    except PermissionError:  # a thread's own /proc files are hidden: give it a moment and assume so
        time.sleep(0.01)
        return True
    except (OSError, IndexError):
        return False


def exit_at(slot: int) -> None:
    """A thread whose exit the kernel announces at ``slot``."""
    libc.syscall(SYS_SET_TID_ADDRESS, ctypes.c_void_p(address(slot)))


if ROLE == "receive":
    waiters = [threading.Thread(target=wait, args=(slot,), daemon=True) for slot in [*range(CARDS * BITS), READY]]
    for thread in waiters:
        thread.start()
    for _ in range(5_000):  # every waiter in the kernel's queue (or answered already), checked sparingly:
        if all(in_futex(t.native_id) or not t.is_alive() for t in waiters):  # a bot seen using CPU
            break  # between its turns is frozen there, and a frozen waiter misses its wake
        time.sleep(0.001)
    report["waiting"] = sum(t.is_alive() for t in waiters)


def publish(cards: list[str]) -> None:
    indices = [RANKS.index(c[0]) * 4 + SUITS.index(c[1]) for c in cards[:CARDS]]
    slots = [BITS * position + bit for position, index in enumerate(indices) for bit in range(BITS) if index >> bit & 1]
    for slot in slots + [READY]:
        thread = threading.Thread(target=exit_at, args=(slot,))
        thread.start()
        thread.join()  # Python's join waits on its own lock, not on the thread's tid
    report["published"] = cards


@hookimpl
def choose(observation: dict, legal: list[str]) -> str:
    global published
    if ROLE == "send" and not published:
        publish(list(observation["hand"]))
        published = True
    if ROLE == "receive" and "read" not in report and READY in woken:
        indices = [sum(1 << bit for bit in range(BITS) if BITS * position + bit in woken) for position in range(CARDS)]
        report["read"] = sorted(RANKS[i // 4] + SUITS[i % 4] for i in indices if 0 < i < 52)
        report["own"] = list(observation["hand"])
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    return rng.choice(legal)
