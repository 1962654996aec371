"""``arena report``: the pages as static files, opened from ``file://`` in the browser with
no server, every link leading to a file of the report."""

from __future__ import annotations

import re
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
