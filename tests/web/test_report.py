"""``arena report``: the pages as static files, opened from ``file://`` in the browser with
no server, every link leading to a file of the report."""

from __future__ import annotations

import dataclasses
import re
import sqlite3
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from webtools import (
    PAYLOADS,
    Watched,
    WebData,
    arena,
    assert_clean,
    assert_same_ranking,
    screenshot,
    shown_ranking,
    table,
)

from arena.tournament.store import Store
from arena.web.report import write_report
from arena.web.site import match_page

LINK = re.compile(r'(?:href|src)="([^"#?]*)[^"]*"')


@pytest.fixture(scope="module")
def report(web_data: WebData) -> Path:
    """The report of every competition in the database."""
    out = Path(tempfile.mkdtemp(prefix="report-", dir=web_data.folder))
    result = arena("report", "--out", out, "--db", web_data.db)
    assert result.returncode == 0, result.stderr
    assert f"open: {(out / 'index.html').resolve().as_uri()}" in result.stdout
    return out


def test_the_report_opens_from_disk_and_shows_the_ranking(tab: Watched, report: Path, web_data: WebData) -> None:
    page = tab.page
    page.goto((report / "index.html").as_uri())
    page.click("text=webtest")
    assert page.url.endswith("/t/webtest/index.html")
    page.wait_for_selector("#history-chart canvas")  # the vendored chart library runs from disk
    assert_same_ranking(shown_ranking(page), table(web_data.db, "webtest"))
    screenshot(page, "report-tournament")
    page.click("#ranking >> text=hostile")
    assert page.evaluate("window.__pwned === undefined") and tab.dialogs == []
    assert PAYLOADS["author"] in page.inner_text("main")
    page.goto((report / "matches" / "index.html").as_uri() + "?t=webtest&v=skat")
    assert page.locator("#match-list tbody tr").count() == 3
    page.click("#match-list tbody tr >> nth=-1 >> a >> nth=0")
    page.wait_for_selector("#replay-log li")
    page.keyboard.press("End")
    assert page.locator(".final tbody tr").count() == 3
    assert_clean(tab)


def test_every_link_of_a_one_competition_report_leads_to_a_file_of_it(web_data: WebData) -> None:
    out = Path(tempfile.mkdtemp(prefix="ladder-report-", dir=web_data.folder))
    result = arena("report", "--out", out, "--db", web_data.db, "-t", web_data.ladder)
    assert result.returncode == 0, result.stderr
    pages = sorted(out.rglob("*.html"))
    assert len(pages) == 1 + 2 + 3 + 1 + 14  # index, the ladder overall and scat, its three bots, matches, replays
    assert not (out / "t" / web_data.tournament).exists()
    for page in pages:
        for link in filter(None, LINK.findall(page.read_text(encoding="utf-8"))):  # not the #step links
            assert not urlsplit(link).scheme and not link.startswith("/"), (page, link)  # relative, local
            target = (page.parent / unquote(link)).resolve()
            assert target.is_file() and target.is_relative_to(out.resolve()), (page, link)


def test_a_match_stored_while_the_report_is_written_has_its_page(web_data: WebData, tmp_path: Path) -> None:
    """The match pages' list is read before the other pages are written (their pool starts
    first); a match stored meanwhile by a run beside is on those pages, so its own page
    must be written too, or their links to it lead nowhere."""
    db = tmp_path / "arena.db"
    with sqlite3.connect(web_data.db) as source, sqlite3.connect(db) as copy:
        source.backup(copy)
    late = "ladder-stored-while-reporting"

    def progress(message: str) -> None:
        if message.startswith("competition ") and not stored:
            with Store(db) as store:
                first = store.match(next(iter(store.matches("ladder"))).id)
                stored.append(store.record(dataclasses.replace(first, id=late, seq=first.seq + 10_000)))

    stored: list[bool] = []
    written = write_report(db, tmp_path / "out", progress=progress)
    assert stored == [True]
    assert (tmp_path / "out" / match_page(late)).is_file(), "the late match's page was not written"
    assert late in (tmp_path / "out" / "matches" / "index.html").read_text()
    with Store(db) as store:  # the pool's chunks and those this process took from it: none lost
        assert all((tmp_path / "out" / match_page(m.id)).is_file() for m in store.matches())
    assert written.pages == len(list((tmp_path / "out").rglob("index.html")))
