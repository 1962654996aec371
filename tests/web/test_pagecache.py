"""The rendered-page cache: a page is rendered once for every request that wants it at
the same time; once kept, it is served at once and rendered anew in the background, no
more often than its cost allows."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import trio
from starlette.applications import Starlette
from webtools import WebData

from arena.web.app import _Site, routes
from arena.web.pagecache import PageCache


def eventually(cache: PageCache[str], key: str, wanted: str) -> None:
    """Poll until ``key`` is served as ``wanted`` (the renewal runs in a thread of its own)."""
    for _ in range(10_000):
        if cache.get(key, lambda: "not asked") == wanted:
            return
        time.sleep(0.01)
    raise AssertionError(f"{key} never became {wanted!r}")


def test_requests_for_a_page_never_rendered_share_its_one_rendering() -> None:
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


def test_a_page_past_its_moment_is_served_at_once_and_rendered_anew_once_behind() -> None:
    """Was a stall: the request that found the page past its moment rendered it itself, and
    on a ladder thousands of matches in that took longer than a browser waits."""
    cache: PageCache[str] = PageCache(fresh_s=0.0, share=1e9, quick_s=0.0)  # due again at once, renewed behind
    assert cache.get("/", lambda: "old") == "old"
    started, release = threading.Event(), threading.Event()
    renders = []

    def slow() -> str:
        renders.append(1)
        started.set()
        release.wait()
        return "new"

    assert cache.get("/", slow) == "old", "the request that noticed waited for the new rendering"
    started.wait()
    assert [cache.get("/", slow) for _ in range(5)] == ["old"] * 5
    release.set()
    eventually(cache, "/", "new")
    assert len(renders) == 1, "one renewal at a time"


def test_a_costly_page_is_rendered_anew_no_more_often_than_its_share_of_a_core() -> None:
    def costly() -> str:
        begun = time.thread_time()
        while time.thread_time() - begun < 0.05:  # 50 ms of this thread's CPU
            pass
        return "kept"

    renewed = threading.Event()

    def renew() -> str:
        renewed.set()
        return "renewed"

    frugal: PageCache[str] = PageCache(fresh_s=0.0, share=1e-4, quick_s=0.0)  # 50 ms of CPU: due in 500 s
    assert frugal.get("/", costly) == "kept"
    assert [frugal.get("/", renew) for _ in range(3)] == ["kept"] * 3
    assert not renewed.wait(0.5), "rendered anew before its cost allowed"
    generous: PageCache[str] = PageCache(fresh_s=0.0, share=1e9, quick_s=0.0)
    generous.get("/", costly)
    generous.get("/", lambda: "renewed")
    eventually(generous, "/", "renewed")


def test_a_quick_page_past_its_moment_is_rendered_anew_for_the_one_who_asks() -> None:
    """A bot just entered shows on the play page its author opens next: a page that costs
    little is not served stale."""
    cache: PageCache[str] = PageCache(fresh_s=0.0, share=1e9)
    assert cache.get("/play/", lambda: "before") == "before"
    assert cache.get("/play/", lambda: "after") == "after"


def test_the_least_recently_rendered_page_goes_first() -> None:
    kept: PageCache[str] = PageCache(fresh_s=3600, size=2)
    assert kept.get("/", lambda: "a") == "a" and kept.get("/", lambda: "b") == "a"
    assert kept.get("/m/1/", lambda: "c") == "c"
    kept.get("/m/2/", lambda: "d")  # a third page: the least recently rendered goes
    assert kept.get("/", lambda: "e") == "e"


def test_pages_kept_weigh_no_more_than_the_budget() -> None:
    """A crawler walking every match page of a ladder must not fill the host's memory."""
    cache: PageCache[bytes] = PageCache(fresh_s=3600, weight=len, budget=10_000)
    for n in range(100):
        cache.get(f"/m/{n}/", lambda: b"x" * 1_000)
    assert cache.kept("/m/99/", lambda: b"") is not None  # the newest stay
    assert cache.kept("/m/0/", lambda: b"") is None
    kept = [n for n in range(100) if cache.kept(f"/m/{n}/", lambda: b"") is not None]
    assert 1_000 * len(kept) <= 10_000 and kept == list(range(100 - len(kept), 100))
    cache.get("/big/", lambda: b"y" * 50_000)  # heavier than the budget alone: kept, alone
    assert cache.kept("/big/", lambda: b"") is not None and cache.kept("/m/99/", lambda: b"") is None


def test_a_made_up_query_is_the_same_page(web_data: WebData) -> None:
    """Was a way to fill the server's memory: pages were kept by path and query, and no page
    reads its query, so each made-up query kept another copy (a match list of megabytes)."""
    site = _Site(web_data.db)

    async def visit() -> set[str]:
        transport = httpx.ASGITransport(app=Starlette(routes=routes(site)))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            bodies = {(await client.get(f"/matches/?junk={n}")).text for n in range(20)}
            assert (await client.get("/matches/")).status_code == 200
            for n in range(20):  # the list's own filters mean nothing to another page
                assert (await client.get(f"/?t={n}&page={n}")).status_code == 200
            for wrong in ("page=%C2%B2", "page=0", "page=" + "9" * 5000, "bot=nobody"):  # not found, and not kept
                assert (await client.get(f"/matches/?{wrong}")).status_code == 404, wrong
            return bodies

    assert len(trio.run(visit)) == 1 and len(site.rendered) == 2
