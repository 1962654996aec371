"""Rendered pages kept, served at once, and rendered anew in the background at a bounded cost.

A ranking page costs a bootstrap and a fit of its ratings, and the cost grows with the
matches: on a ladder a few thousand matches in, one rendering takes seconds of CPU, and
while the ladder stores matches every fraction of a second no cache keyed on the data ever
hits.  So a costly page, once rendered, is answered from here at once; when its moment has
passed, the request that notices starts one rendering anew in a thread of its own and is
answered with the last one meanwhile (a page quick to render is rendered anew for the
request that notices: its visitor sees it fresh).  A page's moment is :data:`FRESH_S`, or longer for
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

__all__ = ["FRESH_S", "QUICK_S", "SHARE", "PageCache"]

FRESH_S: Final = 2.0
"""The shortest time a rendered page is served before it is rendered anew."""
SHARE: Final = 0.02
"""The most of one core that rendering any one page anew may take."""
QUICK_S: Final = 0.05
"""A page whose rendering took less CPU than this is rendered anew by the request that finds
it past its moment (its visitor waits a moment and sees it fresh); a costlier one in the
background."""
SIZE: Final = 512
"""Pages kept at most (the least recently rendered go first)."""
BUDGET: Final = 64 << 20
"""Their weight kept at most (bytes, as ``weight`` tells): a crawler walking every match
page of a ladder must not fill the host's memory."""

T = TypeVar("T")


class _Kept(NamedTuple, Generic[T]):
    page: T
    due: float
    """When (``time.monotonic``) it is to be rendered anew."""
    cost: float
    """The CPU seconds its rendering took."""


class PageCache(Generic[T]):
    """Renders by key; serves what it keeps (thread-safe)."""

    def __init__(self, fresh_s: float = FRESH_S, size: int = SIZE, share: float = SHARE,
                 quick_s: float = QUICK_S, weight: Callable[[T], int] = lambda _: 0, budget: int = BUDGET,
                 keep: Callable[[T], bool] = lambda _: True) -> None:
        self.fresh_s = fresh_s
        self.quick_s = quick_s
        self.size = size
        self.share = share
        self.weight = weight
        self.budget = budget
        self.keep = keep
        self._weighed = 0
        self._lock = threading.Lock()
        self._pages: OrderedDict[str, _Kept[T]] = OrderedDict()
        self._first: dict[str, threading.Lock] = {}
        self._renewing: set[str] = set()

    def __len__(self) -> int:
        """The pages kept."""
        with self._lock:
            return len(self._pages)

    def kept(self, key: str, render: Callable[[], T]) -> T | None:
        """The page ``key`` if one is kept and may be served (a costly one past its moment is,
        while ``render`` renews it in the background), else None; never waits for a
        rendering (an event loop may ask)."""
        with self._lock:
            kept = self._pages.get(key)
            if kept is None:
                return None
            if time.monotonic() < kept.due:
                return kept.page
            if kept.cost < self.quick_s:
                return None  # quick to render: rendered anew for the one who asks, as if never kept
            if key not in self._renewing:
                self._renewing.add(key)
                threading.Thread(target=self._renew, args=(key, render), name="page-render", daemon=True).start()
            return kept.page

    def get(self, key: str, render: Callable[[], T]) -> T:
        """The page ``key``: the one kept, else ``render()``'s, rendered once for all who
        ask meanwhile (a quick page past its moment too)."""
        page = self.kept(key, render)
        if page is not None:
            return page
        with self._lock:
            gate = self._first.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                kept = self._pages.get(key)  # rendered by another request while this one waited
                if kept is not None and time.monotonic() < kept.due:
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
            old = self._pages.pop(key, None)
            if not self.keep(page):  # rendered for its request alone, and what was kept is gone
                self._weighed -= 0 if old is None else self.weight(old.page)
                return page
            self._weighed += self.weight(page) - (0 if old is None else self.weight(old.page))
            self._pages[key] = _Kept(page, time.monotonic() + max(self.fresh_s, cost / self.share), cost)
            while len(self._pages) > self.size or (self._weighed > self.budget and len(self._pages) > 1):
                _, dropped = self._pages.popitem(last=False)
                self._weighed -= self.weight(dropped.page)
        return page
