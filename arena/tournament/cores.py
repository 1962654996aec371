"""Pinning a single-thread Dask worker, and the bots it starts, to a core of its own.

A local referee worker is pinned to its core by the runner, and its bots inherit the pin
(``benchmarks/tournament.py`` measured that layout fastest).  Dask workers are started by
the operator's own commands, so a worker pins itself when the arena's plugin sets it up:
it claims the first core that no other worker process of this machine holds (a ``flock``
on a file per core in :data:`LOCK_DIR`, held for the life of the process, so a worker that
dies frees its core) and moves every thread of its process there; threads and bots started
later inherit it.  Unpinned, two single-thread workers on two cores played at 0.82 of the
local executor; pinned, at 0.96 and 1.02 in two runs (``benchmarks/cluster.py``).

A worker with several threads plays several tables at once and is not pinned: one core
would not do for them all.  Workers that cannot see each other's claims (containers with
their own ``/run`` that share the host's cores) would claim the same cores: give each a CPU
set of its own, point ``$ARENA_CORE_LOCKS`` at a folder they share, or set it to ``off``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import Final

__all__ = ["LOCK_DIR", "claim_core"]

LOCK_DIR: Final = Path("/run/arena-cores")
"""The machine's folder of core claims (``/run`` is the machine's own, never a per-job
temporary folder); ``$ARENA_CORE_LOCKS`` names another, for workers that share a machine
with others they should not count (a test's own cluster)."""

_claimed: list[tuple[int, int]] = []
"""This process's claim: (descriptor, core); closing the descriptor would free the core."""


def claim_core() -> int | None:
    """Pin this process to a core no other worker holds; the core, or None where every
    core is taken or the claims cannot be kept (no permission for the folder, no locks on its file system)."""
    if _claimed:
        return _claimed[0][1]  # the plugin may be set up again
    chosen = os.environ.get("ARENA_CORE_LOCKS") or str(LOCK_DIR)
    if chosen == "off":
        return None
    lock_dir = Path(chosen)
    try:
        lock_dir.mkdir(mode=0o755, exist_ok=True)
    except OSError:
        return None
    for core in sorted(os.sched_getaffinity(0)):
        try:
            fd = os.open(lock_dir / f"{core}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        except OSError:  # a folder whose file system keeps no locks: pin nothing
            os.close(fd)
            return None
        _claimed.append((fd, core))
        for thread in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError):  # a thread that has just ended
                os.sched_setaffinity(int(thread), {core})
        return core
    return None
