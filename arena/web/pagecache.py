"""Rendered pages kept for a moment and rendered once for every request that wants them.

A ranking page costs a bootstrap of its ratings (a tenth of a second of CPU and more), and
while a ladder stores matches every fraction of a second no cache keyed on the data ever
hits: every view would compute the page anew, and fifty views a second would queue without
end.  A page rendered less than :data:`FRESH_S` ago is served again (a live page follows
the data all the same, a moment later); while a page is rendered anew, other requests for
it get its last rendering, and a page never rendered is rendered once for all who ask.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, Generic, TypeVar

__all__ = ["FRESH_S", "PageCache"]

FRESH_S: Final = 2.0
"""How long a rendered page is served again."""
SIZE: Final = 512
"""Pages kept (the least recently rendered go first)."""

T = TypeVar("T")


class PageCache(Generic[T]):
    """Renders by key, at most once per ``fresh_s`` (thread-safe)."""

    def __init__(self, fresh_s: float = FRESH_S, size: int = SIZE) -> None:
        self.fresh_s = fresh_s
        self.size = size
        self._lock = threading.Lock()
        self._pages: OrderedDict[str, tuple[float, T]] = OrderedDict()
        self._rendering: dict[str, threading.Lock] = {}

    def get(self, key: str, render: Callable[[], T]) -> T:
        """The page ``key``: a fresh rendering kept, else ``render()`` (once, whoever asks)."""
        with self._lock:
            kept = self._fresh(key)
            if kept is not None:
                return kept[1]
            gate = self._rendering.setdefault(key, threading.Lock())
            stale = self._pages.get(key)
        if stale is not None and gate.locked():  # being rendered anew: the last rendering meanwhile
            return stale[1]
        with gate:
            with self._lock:
                kept = self._fresh(key)  # rendered by another request while this one waited
                if kept is not None:
                    return kept[1]
            page = render()
            with self._lock:
                self._pages[key] = (time.monotonic(), page)
                self._pages.move_to_end(key)
                while len(self._pages) > self.size:
                    old, _ = self._pages.popitem(last=False)
                    self._rendering.pop(old, None)
            return page

    def _fresh(self, key: str) -> tuple[float, T] | None:
        kept = self._pages.get(key)
        return kept if kept is not None and time.monotonic() - kept[0] < self.fresh_s else None
