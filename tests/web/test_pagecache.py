"""The rendered-page cache: a page is rendered once for every request that wants it at
the same time, and again once its moment has passed."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from arena.web.pagecache import PageCache


def test_requests_for_a_page_being_rendered_share_its_one_rendering() -> None:
    cache: PageCache[int] = PageCache(fresh_s=3600)
    started, release = threading.Event(), threading.Event()
    renders = []

    def render() -> int:
        renders.append(1)
        started.set()
        release.wait()
        return len(renders)

    with ThreadPoolExecutor(8) as pool:
        first = pool.submit(cache.get, "/t/ladder/", render)
        started.wait()
        others = [pool.submit(cache.get, "/t/ladder/", render) for _ in range(7)]
        release.set()
        answers = [first.result(), *(f.result() for f in others)]
    assert answers == [1] * 8 and len(renders) == 1


def test_a_page_past_its_moment_and_another_address_are_rendered_anew() -> None:
    stale: PageCache[str] = PageCache(fresh_s=0.0)
    assert [stale.get("/", lambda: "a"), stale.get("/", lambda: "b")] == ["a", "b"]
    kept: PageCache[str] = PageCache(fresh_s=3600, size=2)
    assert kept.get("/", lambda: "a") == "a" and kept.get("/", lambda: "b") == "a"
    assert kept.get("/m/1/", lambda: "c") == "c"
    kept.get("/m/2/", lambda: "d")  # a third page: the least recently rendered goes
    assert kept.get("/", lambda: "e") == "e"


def test_while_a_page_is_rendered_anew_others_get_its_last_rendering() -> None:
    cache: PageCache[str] = PageCache(fresh_s=0.0)
    assert cache.get("/", lambda: "old") == "old"
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait()
        return "new"

    with ThreadPoolExecutor(2) as pool:
        renewing = pool.submit(cache.get, "/", slow)
        started.wait()
        assert cache.get("/", lambda: "not asked") == "old"
        release.set()
        assert renewing.result() == "new"
