"""The host's child processes die with it: a validator or a ladder left running by a host
killed with kill -9 would go on beside the restarted host's own (validating a submission
twice, or holding the ladder's lock so the new one cannot start)."""

from __future__ import annotations

import ctypes
import os
import signal

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Be killed (SIGKILL) when process ``parent`` dies; exit now if it already has."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died before the request took hold
        os._exit(1)
