"""Finding and killing every process of a bot's tree.

A bot's processes are found in two ways here, each catching what the other misses: its
session (children that moved to a process group of their own stay in the session) and,
when the bot runs as a user of its own, that user (children that called ``setsid``).
The control groups (:mod:`arena.sandbox.cgroups`) catch the rest.

A user goes back to the pool only once none of its processes is left, zombies included:
until a killed process is reaped it still counts against the user's ``RLIMIT_NPROC``,
which would keep the next bot of that user from starting a thread.  A killed bot's
processes are orphans, and the machine's init may take seconds to reap them (about two
here, per bot, so closing a table of four took eight): the arena process adopts them
instead (:func:`adopt_orphans`) and reaps them itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Iterable

import trio

__all__ = ["adopt_orphans", "kill_tree", "wait_reaped"]

_DEAD = (b"Z", b"X")
_PR_SET_CHILD_SUBREAPER = 36
_adopting: dict[int, bool] = {}  # pid -> whether it is a subreaper: a forked child is not


def adopt_orphans() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux's child subreaper),
    so that :func:`wait_reaped` can reap a killed bot's processes at once; whether it is.
    Once per process (the attribute is not inherited by a forked child)."""
    pid = os.getpid()
    if pid not in _adopting:
        try:
            result: int = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
            _adopting[pid] = result == 0
        except (OSError, AttributeError):  # no prctl: not Linux
            _adopting[pid] = False
    return _adopting[pid]


def _members(sid: int | None, uid: int | None) -> dict[int, bytes]:
    """Every process (zombies too) of session ``sid`` or owned by ``uid``, with its state."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read()
            state, _ppid, _pgid, session = stat[stat.rindex(b")") + 2 :].split(maxsplit=4)[:4]
            if int(session) == sid or (uid is not None and os.stat(f"/proc/{entry}").st_uid == uid):
                found[int(entry)] = state
        except OSError:
            continue  # gone meanwhile
    return found


async def kill_tree(sid: int, uid: int | None, timeout_s: float = 2.0) -> None:
    """SIGKILL every process of the bot's session, and of its own user if it has one,
    until none is alive.

    Call it before the session leader is reaped: until then its pid holds the session id."""
    with trio.move_on_after(timeout_s):
        while live := [pid for pid, state in _members(sid, uid).items() if state not in _DEAD]:
            for pid in live:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            await trio.sleep(0.001)


async def wait_reaped(uid: int, timeout_s: float = 5.0) -> bool:
    """Wait until no process of ``uid`` exists, zombies included, reaping those this
    process adopted; whether that happened.

    Call it once the bot's own process is reaped: any other process of a bot's user is
    then one this process did not start, so reaping it takes no exit status from trio."""
    with trio.move_on_after(timeout_s):
        while members := _members(None, uid):
            if not _reap(pid for pid, state in members.items() if state == b"Z"):
                await trio.sleep(0.005)  # alive yet, or another process's to reap
        return True
    return False


def _reap(pids: Iterable[int]) -> int:
    """Reap those of ``pids`` that are this process's zombie children; how many."""
    reaped = 0
    for pid in pids:
        with contextlib.suppress(ChildProcessError):  # not ours (init's, or gone)
            reaped += os.waitpid(pid, os.WNOHANG)[0] == pid
    return reaped
