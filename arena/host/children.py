"""The host's child processes die with it: a validator or a ladder left running by a host
killed with kill -9 would go on beside the restarted host's own (validating a submission
twice, or holding the ladder's lock so the new one cannot start).

Not ``PR_SET_PDEATHSIG``: it fires when the *thread* that started the child ends, and the
host starts its children from trio's worker threads, which end after ten idle seconds;
the child would be killed in the middle of its work.  A thread of the child's own watches
for its parent instead (an orphan's parent becomes another process).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Final

__all__ = ["die_with_parent"]

WATCH_S: Final = 0.2
"""How often a child looks whether its parent is still there."""


def die_with_parent(parent: int) -> None:
    """Exit (at once, as kill would) when process ``parent`` is no longer this process's
    parent; exit now if it already is not."""
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_S)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()
