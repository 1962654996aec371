"""Fixtures of the web tests: one small results database played by the real command (with
hostile bots among the entrants), one ``arena serve`` over it, and one headless Chromium,
each shared by every test of the folder (the database is built once per run, even on
several pytest-xdist workers: the web tests' budget is a minute)."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from webtools import (
    CHROMIUM,
    CHROMIUM_ARGS,
    CRASHER,
    PAYLOADS,
    STDERR_PAYLOAD,
    TAKEN,
    Server,
    Watched,
    WebData,
    arena,
    browser_missing,
    every_variant,
    make_bot,
    random_matches,
    start_server,
    stop_server,
    tournament_file,
)


def _build(folder: Path) -> WebData:
    """The database: ``arena run`` of scat (two seats, 12 matches) among the bundled random
    and heuristic (one author: authors are not kept apart here),
    a bot whose manifest is all markup and one that crashes with markup on its stderr, and
    skat (three seats, 3 matches) among the first three; then, played in process, a small
    ladder and a match of every variant."""
    entrants = ["random", make_bot(folder, "hostile", PAYLOADS),
                make_bot(folder, "crasher", {"description": STDERR_PAYLOAD}, CRASHER, ["scat"]), "heuristic"]
    spec = tournament_file(folder, "webtest", entrants, "\n".join([
        "[[variant]]", 'name = "scat"', "tables = [2]", "options = { lives = 1 }",
        "[[variant]]", 'name = "skat"', "tables = [3]", "options = { rounds = 3 }"]), authors_apart=False)
    data = WebData(folder, folder / "arena.db")
    result = arena("run", spec, "--db", data.db, "-q")
    assert result.returncode == 0, result.stderr
    random_matches(data.db, data.ladder, ["heuristic", "random", "hostile"], [("scat", 3, {})] * 14)
    random_matches(data.db, data.families, ["heuristic", "random", "hostile"], every_variant())
    return data


def _remove(folder: Path) -> None:
    for root, dirs, _ in os.walk(folder):
        for name in dirs:
            os.chmod(Path(root, name), 0o755)  # the registry's copies are read-only
    shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def web_data() -> Iterator[WebData]:
    """The prepared database, built once per test run: under pytest-xdist its workers share
    it (the first builds it, the last removes it), and no test changes it."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:
        folder = Path(tempfile.mkdtemp(prefix="arena-web-test-"))
        folder.chmod(0o755)  # sandboxed bots run as other users and must reach the registry beside the database
        try:
            yield _build(folder)
        finally:
            _remove(folder)
        return
    folder = Path(tempfile.gettempdir()) / f"arena-web-test-{run}"
    lock, users = folder.with_name(folder.name + ".lock"), folder.with_name(folder.name + ".users")
    with _locked(lock):
        if not (folder / "arena.db").exists():
            _remove(folder)
            folder.mkdir(mode=0o755)
            folder.chmod(0o755)
            _build(folder)
        users.write_text(str(int(users.read_text() or 0) + 1) if users.exists() else "1")
    try:
        yield WebData(folder, folder / "arena.db")
    finally:
        with _locked(lock):
            left = int(users.read_text()) - 1
            users.write_text(str(left))
            if left == 0:
                _remove(folder)
                users.unlink()
        if left == 0:
            lock.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def server(web_data: WebData) -> Iterator[Server]:
    """``arena serve`` over the prepared database."""
    running = start_server(web_data.db)
    try:
        yield running
    finally:
        stop_server(running)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium, launched once."""
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def tab(browser: Any) -> Iterator[Watched]:
    """A fresh page (its own context) that records what went wrong on it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    watched = Watched(page)
    page.on("console", lambda m: watched.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: watched.errors.append(f"page error: {e}"))

    def dialog(d: Any) -> None:
        watched.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)

    def route(r: Any) -> None:
        url = r.request.url
        if url.startswith(("http://127.0.0.1", "file://", "data:")):
            r.continue_()
        else:
            watched.foreign.append(url)
            r.abort()

    page.route("**/*", route)
    try:
        yield watched
    finally:
        context.close()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say where this run's screenshots are."""
    if TAKEN:
        terminalreporter.write_line(f"web screenshots ({len(TAKEN)}): {TAKEN[0].parent}")
