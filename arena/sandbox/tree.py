"""Finding and killing every process of a bot's tree.

A bot's processes are found in two ways here, each catching what the other misses: its
session (children that moved to a process group of their own stay in the session) and,
when the bot runs as a user of its own, that user (children that called ``setsid``).
The control groups (:mod:`arena.sandbox.cgroups`) catch the rest.

A user goes back to the pool only once none of its processes is left, zombies included:
killed children are reaped by the machine's init (or by the bot's own pid namespace),
and until then they still count against the user's ``RLIMIT_NPROC``, which would keep
the next bot of that user from starting a thread.
"""

from __future__ import annotations

import contextlib
import os
import signal

import trio

__all__ = ["kill_tree", "wait_reaped"]

_DEAD = (b"Z", b"X")


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
    """Wait until no process of ``uid`` exists, zombies included; whether that happened."""
    with trio.move_on_after(timeout_s):
        while _members(None, uid):
            await trio.sleep(0.005)
        return True
    return False
