"""Rendered pages kept, served at once, and rendered anew in the background at a bounded cost.

A ranking page costs a bootstrap and a fit of its ratings, and the cost grows with the
matches: on a ladder a few thousand matches in, one rendering takes seconds of CPU, and
while the ladder stores matches every fraction of a second no cache keyed on the data ever
hits.  So a page, once rendered, is always answered from here at once; when its moment has
passed, the request that notices starts one rendering anew in a thread of its own and is
answered with the last one meanwhile.  A page's moment is :data:`FRESH_S`, or longer for
costly pages: rendering a page anew never takes more than :data:`SHARE` of a core (a page
whose rendering costs 1 s of CPU is rendered at most every 50 s), so visitors cannot take
the ladder's cores, and a live page follows the data a little later the more it costs.
Only a page never rendered makes its requests wait, for one rendering shared by all.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, Generic, NamedTuple, TypeVar

__all__ = ["FRESH_S", "SHARE", "PageCache"]

FRESH_S: Final = 2.0
"""The shortest time a rendered page is served before it is rendered anew."""
SHARE: Final = 0.02
"""The most of one core that rendering any one page anew may take."""
SIZE: Final = 512
"""Pages kept (the least recently rendered go first)."""

T = TypeVar("T")


class _Kept(NamedTuple, Generic[T]):
    page: T
    due: float
    """When (``time.monotonic``) it is to be rendered anew."""


class PageCache(Generic[T]):
    """Renders by key; serves what it keeps (thread-safe)."""

    def __init__(self, fresh_s: float = FRESH_S, size: int = SIZE, share: float = SHARE) -> None:
        self.fresh_s = fresh_s
        self.size = size
        self.share = share
        self._lock = threading.Lock()
        self._pages: OrderedDict[str, _Kept[T]] = OrderedDict()
        self._first: dict[str, threading.Lock] = {}
        self._renewing: set[str] = set()

    def get(self, key: str, render: Callable[[], T]) -> T:
        """The page ``key``: the one kept (renewed in the background once due), else
        ``render()``'s, rendered once for all who ask meanwhile."""
        with self._lock:
            kept = self._pages.get(key)
            if kept is not None:
                if time.monotonic() >= kept.due and key not in self._renewing:
                    self._renewing.add(key)
                    threading.Thread(target=self._renew, args=(key, render), name="page-render",
                                     daemon=True).start()
                return kept.page
            gate = self._first.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                kept = self._pages.get(key)  # rendered by another request while this one waited
                if kept is not None:
                    return kept.page
            page = self._render(key, render)
            with self._lock:
                self._first.pop(key, None)
            return page

    def _renew(self, key: str, render: Callable[[], T]) -> None:
        try:
            self._render(key, render)
        finally:
            with self._lock:
                self._renewing.discard(key)

    def _render(self, key: str, render: Callable[[], T]) -> T:
        """Render and keep ``key``, due again after ``fresh_s`` or its CPU cost over ``share``."""
        cpu = time.thread_time()
        page = render()
        cost = time.thread_time() - cpu
        with self._lock:
            self._pages[key] = _Kept(page, time.monotonic() + max(self.fresh_s, cost / self.share))
            self._pages.move_to_end(key)
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)
        return page
