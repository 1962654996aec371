"""The C allocator set for a server that runs for weeks: few arenas, large blocks mapped.

Pages are rendered in worker threads, and glibc gives a thread that finds the arenas busy
an arena of its own (up to eight per core), which keeps the peak of whatever that thread
once rendered: a ranking's rendering holds every match of its ladder for a moment.  And
once a large block is freed glibc raises the size from which blocks are mapped apart (up to
32 MiB), so a ranking's arrays come from the arenas afterwards and stay there.  A host's
memory then grew by half over its first half hour of a ladder (127 MiB at minute 10, 188
at minute 31, a dozen thread arenas of 4 to 7 MiB each).  So a server asks for two arenas and a fixed 128 KiB
threshold (glibc's ``mallopt``; the environment's ``MALLOC_ARENA_MAX`` does the same, but
only for a process started with it).  Another C library is left as it is.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Final

__all__ = ["ARENAS", "MAPPED_FROM", "settle"]

ARENAS: Final = 2
MAPPED_FROM: Final = 128 * 1024
"""Blocks this large or larger are mapped apart and given back when freed."""
_M_MMAP_THRESHOLD: Final = -3
_M_ARENA_MAX: Final = -8


def settle() -> bool:
    """Set the allocator for a long-running server; whether it took (glibc only)."""
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_ARENA_MAX, ARENAS)) and bool(mallopt(_M_MMAP_THRESHOLD, MAPPED_FROM))
