"""Pages follow a running tournament: ``arena run`` plays while the pages are open in the
browser, and they show its new matches without a reload (on a copy of the shared
database, with a server of its own)."""

from __future__ import annotations

import sqlite3
import subprocess
import tempfile
from contextlib import closing
from pathlib import Path

from webtools import (
    REPO,
    Watched,
    WebData,
    arena,
    arena_command,
    screenshot,
    start_server,
    stop_server,
    tournament_file,
)

LIVE_WAIT_MS = 60_000


def test_open_pages_show_the_matches_of_a_running_tournament_without_a_reload(tab: Watched,
                                                                               web_data: WebData) -> None:
    from playwright.sync_api import expect  # here: without Playwright, the tab fixture skips the test

    folder = Path(tempfile.mkdtemp(prefix="live-", dir=web_data.folder))
    folder.chmod(0o755)
    db = folder / "arena.db"
    with closing(sqlite3.connect(web_data.db)) as source, closing(sqlite3.connect(db)) as copy:
        source.backup(copy)  # the shared database stays as it is
    variants = "\n".join(["[[variant]]", 'name = "scat"', "tables = [2]", "options = { lives = 1 }"])
    first = tournament_file(folder, "live", ["random", "heuristic"], variants, deals=1)
    assert arena("run", first, "--db", db, "-q").returncode == 0  # two matches stored
    server = start_server(db)
    try:
        page = tab.page
        index = page.context.new_page()
        index.on("pageerror", lambda error: tab.errors.append(f"index: {error}"))
        index.on("console", lambda m: tab.errors.append(f"index: {m.text}") if m.type == "error" else None)
        index.goto(server.url + "/")
        page.goto(server.url + "/t/live/")
        assert page.inner_text(".scope-matches") == "2"
        assert index.inner_text("tr[data-competition='live'] .count") == "2 / 2"
        for opened in (page, index):
            opened.evaluate("window.__drawn = 'once'")  # gone if the page were loaded again
        more = tournament_file(folder, "live", ["random", "heuristic"], variants, deals=2)
        run = subprocess.Popen(arena_command("run", more, "--db", db, "-q"), cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        try:
            expect(page.locator(".scope-matches")).to_have_text("4", timeout=LIVE_WAIT_MS)
            expect(index.locator("tr[data-competition='live'] .count")).to_have_text("4 / 4", timeout=LIVE_WAIT_MS)
        finally:
            _, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        expect(page.locator("h1 .state")).to_have_text("complete", timeout=LIVE_WAIT_MS)
        for opened in (page, index):
            assert opened.evaluate("window.__drawn") == "once"
        assert page.locator("#ranking tbody tr").count() == 2
        assert page.locator("#live-state").inner_text().startswith("live")
        screenshot(page, "tournament-live")
        index.close()
    finally:
        stop_server(server)
    assert tab.errors == [] and tab.foreign == [], (tab.errors, tab.foreign)
