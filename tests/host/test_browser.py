"""The host's pages as an author meets them in a browser: a real ``arena host`` over
loopback and a real headless Chromium driven by Playwright (tests/web's browser: Debian's
Chromium, ``scripts/setup-browser``; without it this module skips).

One host and one browser serve the whole module; each test has its own account and its
own browser context (its own cookies).  Only one test uploads a bot, which claims scat
alone, so the queue's validation (in the sandbox) is the module's one long wait.

Playwright's sync API refuses to start in a thread where another instance runs, and
tests/web keeps one open for the whole session (pytest-xdist may give one worker tests of
both folders), so this module drives its browser from a thread of its own: the browser
fixture is made there and every test body runs there (:func:`in_browser_thread`).
"""

from __future__ import annotations

import functools
import html
import re
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, ParamSpec

import pytest
from hosttools import Host, account, bot_folder, start_host

sys.path.append(str(Path(__file__).resolve().parents[1] / "web"))
from webtools import (  # type: ignore[import-not-found, unused-ignore]  # noqa: E402  (mypy: MYPYPATH=tests/web)
    CHROMIUM,
    CHROMIUM_ARGS,
    browser_missing,
    screenshot,
)

from arena.host.archive import pack  # noqa: E402
from arena.host.guard import LOGIN_COOKIE, SESSION_COOKIE  # noqa: E402
from arena.host.ledger import Ledger  # noqa: E402
from arena.tournament.store import Store  # noqa: E402

MISSING = browser_missing()
if MISSING:
    pytest.skip(MISSING, allow_module_level=True)

from playwright.sync_api import (  # noqa: E402
    Browser,
    BrowserContext,
    Cookie,
    FilePayload,
    Page,
    Playwright,
    Response,
    Route,
    expect,
    sync_playwright,
)

P = ParamSpec("P")

VALIDATION_MS: Final = 600_000
"""How long the queue may take to validate one bot (the sandbox, on a machine that may be busy)."""
STEP_MS: Final = 60_000
"""How long any other step of a page may take."""
WRONG_TOKEN: Final = "a31_" + "0" * 16 + "_" + "x" * 43
"""A token of the right shape that no account has."""
OTHER_SITE: Final = "http://other-site.example"

_THREAD: Final = ThreadPoolExecutor(1, thread_name_prefix="host-browser")
"""The one thread that drives this module's browser."""


def in_browser_thread(test: Callable[P, None]) -> Callable[P, None]:
    """Run the test's body in the browser's thread (its fixtures are made in pytest's)."""

    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        _THREAD.submit(test, *args, **kwargs).result()

    return run


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    """``arena host`` over a fresh database, for the whole module."""
    db = tmp_path_factory.mktemp("host-browser") / "arena.db"
    Store(db).close()
    running = start_host(db)
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium, launched in the browser's thread."""

    def launch() -> tuple[Playwright, Browser]:
        playwright = sync_playwright().start()
        try:
            return playwright, playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        except BaseException:
            playwright.stop()
            raise

    playwright, launched = _THREAD.submit(launch).result()
    try:
        yield launched
    finally:
        _THREAD.submit(launched.close).result()
        _THREAD.submit(playwright.stop).result()


@dataclass
class Tab:
    """A page in a context of its own, with what went wrong on it."""

    context: BrowserContext
    page: Page
    url: str
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def cookies(self) -> dict[str, Cookie]:
        """The context's cookies for the host, by name."""
        return {c.get("name", ""): c for c in self.context.cookies(self.url)}


@pytest.fixture
def tab(browser: Browser, host: Host) -> Iterator[Tab]:
    """A fresh context and page (made in the browser's thread) that refuse requests for
    other hosts and record console errors and page errors."""

    def open_tab() -> Tab:
        context = browser.new_context()
        context.set_default_timeout(STEP_MS)
        page = context.new_page()
        opened = Tab(context, page, host.url)
        page.on("console", lambda m: opened.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: opened.errors.append(f"page error: {e}"))

        def route(r: Route) -> None:
            if r.request.url.startswith(host.url):
                r.continue_()
            else:
                opened.foreign.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        return opened

    opened = _THREAD.submit(open_tab).result()
    try:
        yield opened
    finally:
        _THREAD.submit(opened.context.close).result()


def sign_in(tab: Tab, token: str) -> None:
    """Sign in with ``token`` through the /login form and land on /my/."""
    page = tab.page
    page.goto(f"{tab.url}/login")
    page.get_by_label("Token").fill(token)
    with page.expect_response(f"{tab.url}/login") as answered:
        page.get_by_role("button", name="Sign in").click()
    assert answered.value.status == 303, (answered.value.status, answered.value.text()[:300])
    page.wait_for_url(f"{tab.url}/my/")


def sign_in_by_request(tab: Tab, token: str) -> None:
    """Sign in with the sign-in form's own two requests, sent by the context's request API
    (whose cookies are the page's), then open /my/ in the page.  The tests of what a
    session is and what it may post use this, apart from the browser's own form."""
    request = tab.context.request
    form = request.get(f"{tab.url}/login")
    found = re.search(r'name="nonce" value="([^"]+)"', form.text())
    assert found is not None, form.text()[:500]
    answer = request.post(f"{tab.url}/login", form={"nonce": found.group(1), "token": token}, max_redirects=0)
    assert answer.status == 303 and answer.headers.get("location") == "/my/", (answer.status, answer.text()[:300])
    tab.page.goto(f"{tab.url}/my/")
    assert tab.page.url == f"{tab.url}/my/"


def csrf_of(page: Page) -> str:
    """The CSRF token of the upload form on the page shown."""
    value = page.locator("#upload-form input[name=csrf]").get_attribute("value")
    assert value, "the upload form carries its CSRF token"
    return value


@in_browser_thread
def test_an_author_signs_in_uploads_a_bot_and_follows_it_to_accepted(host: Host, tab: Tab, tmp_path: Path) -> None:
    token = account(host.db, "ada")
    archive = tmp_path / "adas-bot.tar.gz"
    archive.write_bytes(pack(bot_folder(tmp_path / "src", "adas-bot")))
    sign_in(tab, token)
    page = tab.page
    expect(page.locator("h1")).to_have_text("ada")
    page.set_input_files("#upload-form input[name=archive]", archive)
    page.get_by_role("button", name="Submit").click()
    page.wait_for_url(re.compile(re.escape(tab.url) + r"/my/s/\d+/$"))
    number = int(page.url.rstrip("/").rsplit("/", 1)[1])
    status = page.locator("#submission-status")  # the page reloads itself until the end
    expect(status).to_have_text(re.compile(r"^(accepted|refused)$"), timeout=VALIDATION_MS)
    log = page.locator("#submission-log").inner_text()
    assert status.inner_text() == "accepted", log
    assert "smoke-testing scat" in log, log
    expect(page.locator("h1")).to_have_text(f"Submission {number}: adas-bot")
    screenshot(page, "host-submission")

    page.get_by_role("link", name="the bot's page").click()
    page.wait_for_url(f"{tab.url}/b/adas-bot/")
    expect(page.locator("main")).to_contain_text("by ada")
    page.goto(f"{tab.url}/my/")
    expect(page.locator("section.my-bot[data-bot='adas-bot'] .versions .state")).to_have_text("active")
    expect(page.locator(f"tr:has(a[href='/my/s/{number}/']) .status")).to_have_text("accepted")
    assert tab.errors == [] and tab.foreign == [], (tab.errors, tab.foreign)
    with Ledger(host.db) as ledger:
        [mine] = ledger.submissions("ada")
        assert (mine.id, mine.status, mine.bot) == (number, "accepted", "adas-bot")
        assert ledger.owner("adas-bot") == "ada"
    with Store(host.db) as store:
        [version] = store.versions("adas-bot")
        assert version.manifest["author"] == "ada"


def other_site_form(action: str, fields: dict[str, str], policy: str, *, upload: bool = False) -> str:
    """A page of another site whose form posts ``fields`` (and a file, with ``upload``) to
    ``action``; ``policy``: its referrer policy (``no-referrer`` makes the browser send
    ``Origin: null``)."""
    hidden = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                     for k, v in fields.items())
    return (f'<!doctype html><meta name="referrer" content="{policy}"><title>A prize</title>'
            f'<form method="post" action="{html.escape(action)}" enctype="multipart/form-data">{hidden}'
            + ('<input type="file" name="archive">' if upload else "")
            + '<button type="submit">Win a prize</button></form>')


def post_from_other_site(tab: Tab, page_html: str, action: str, archive: Path | None = None) -> Response:
    """Open ``page_html`` as a page of another site, submit its form, and return the
    host's answer to it."""
    page = tab.page
    page.route(f"{OTHER_SITE}/**", serving(page_html))
    try:
        page.goto(f"{OTHER_SITE}/prize")
        if archive is not None:
            page.set_input_files("input[name=archive]", archive)
        with page.expect_response(action) as answered:
            page.get_by_role("button", name="Win a prize").click()
        return answered.value
    finally:
        page.unroute(f"{OTHER_SITE}/**")


REFERRER_POLICIES: Final = ("strict-origin-when-cross-origin", "no-referrer")
"""Another site's pages: the browser's default (its form's ``Origin`` is that site), and one
whose form says ``Origin: null``."""


def serving(page_html: str) -> Callable[[Route], None]:
    """A route handler answering with ``page_html``."""
    return lambda route: route.fulfill(content_type="text/html", body=page_html)


@in_browser_thread
def test_a_form_without_its_csrf_token_or_from_another_site_is_refused(host: Host, tab: Tab,
                                                                       tmp_path: Path) -> None:
    token = account(host.db, "bea")
    data = pack(bot_folder(tmp_path, "beas-bot"))
    sign_in_by_request(tab, token)
    csrf = csrf_of(tab.page)
    upload = FilePayload(name="beas-bot.tar.gz", mimeType="application/gzip", buffer=data)
    empty = FilePayload(name="empty.tar.gz", mimeType="application/gzip", buffer=b"")
    request, submit = tab.context.request, f"{tab.url}/my/submit"  # the session cookie goes with each
    checked = request.post(submit, multipart={"csrf": csrf, "archive": empty}, max_redirects=0)
    assert checked.status == 400 and "the upload is empty" in checked.text(), "the session and token do post"
    posted = {
        "no CSRF token": request.post(submit, multipart={"archive": upload}, max_redirects=0),
        "a wrong CSRF token": request.post(submit, multipart={"csrf": "x" * 43, "archive": upload}, max_redirects=0),
        "another site's Origin": request.post(submit, multipart={"csrf": csrf, "archive": upload},
                                              headers={"origin": OTHER_SITE}, max_redirects=0),
    }
    for why, answer in posted.items():
        assert answer.status == 403, (why, answer.status, answer.text()[:300])
    assert "the form expired" in posted["no CSRF token"].text()
    assert "another site" in posted["another site's Origin"].json()["error"]

    # Pages of another site the author is lured to, whose forms post the archive to the
    # host (with, for the test, the right CSRF token, which such a page cannot know): the
    # browser says where they come from, or "null", and sends no session cookie with them.
    archive = tmp_path / "beas-bot.tar.gz"
    archive.write_bytes(data)
    for policy in REFERRER_POLICIES:
        refused = post_from_other_site(tab, other_site_form(submit, {"csrf": csrf}, policy, upload=True), submit,
                                       archive)
        assert refused.status == 403 or (refused.status == 303 and refused.headers.get("location") == "/login"), (
            policy, refused.status)
    with Ledger(host.db) as ledger:
        assert ledger.submissions("bea") == [], "nothing was queued"
        assert "submit" not in {e.action for e in ledger.audit() if e.actor == "bea"}


@in_browser_thread
def test_another_site_cannot_sign_the_browser_in_to_an_account_of_its_choosing(host: Host, tab: Tab) -> None:
    attackers = account(host.db, "mallory")
    page, login = tab.page, f"{tab.url}/login"
    page.goto(login)  # the victim opened the sign-in page once: its nonce cookie is set
    nonce = page.locator("input[name=nonce]").get_attribute("value")
    assert nonce, "the sign-in form carries its nonce"
    for policy in REFERRER_POLICIES:  # with, for the test, the right nonce, which such a page cannot know
        refused = post_from_other_site(tab, other_site_form(login, {"nonce": nonce, "token": attackers}, policy),
                                       login)
        assert refused.status == 403, (policy, refused.status)
    request = tab.context.request  # the browser's cookies, the nonce cookie among them
    no_nonce: dict[str, str | float | bool] = {"token": attackers}
    for fields in (no_nonce, {**no_nonce, "nonce": "x" * 32}):
        answer = request.post(login, form=fields, max_redirects=0)
        assert answer.status == 403 and "the form expired" in answer.text(), (fields, answer.status)
    assert SESSION_COOKIE not in tab.cookies()
    with Ledger(host.db) as ledger:
        assert "sign in" not in {e.action for e in ledger.audit() if e.actor == "mallory"}


@in_browser_thread
def test_the_session_cookie_is_httponly_samesite_strict_and_hidden_from_scripts(host: Host, tab: Tab) -> None:
    token = account(host.db, "cleo")
    sign_in_by_request(tab, token)
    cookies = tab.cookies()
    session = cookies[SESSION_COOKIE]
    assert session.get("httpOnly") is True and session.get("sameSite") == "Strict", session
    assert session.get("path") == "/" and LOGIN_COOKIE not in cookies, cookies
    shown = tab.page.evaluate("document.cookie")
    assert SESSION_COOKIE not in shown and str(session.get("value")) not in shown, shown
    assert token not in tab.page.content(), "the token is never written back into a page"
    assert tab.errors == [] and tab.foreign == [], (tab.errors, tab.foreign)


@in_browser_thread
def test_signing_out_ends_the_session(host: Host, tab: Tab) -> None:
    token = account(host.db, "dora")
    sign_in(tab, token)
    session = tab.cookies()[SESSION_COOKIE]
    page = tab.page
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{tab.url}/")
    assert SESSION_COOKIE not in tab.cookies()
    page.goto(f"{tab.url}/my/")
    assert page.url == f"{tab.url}/login"
    tab.context.add_cookies([{"name": SESSION_COOKIE, "value": str(session.get("value")), "url": tab.url}])
    page.goto(f"{tab.url}/my/")  # the old cookie, kept by someone, no longer signs in: the host ended it
    assert page.url == f"{tab.url}/login"
    with Ledger(host.db) as ledger:
        assert {"sign in", "sign out"} <= {e.action for e in ledger.audit() if e.actor == "dora"}


@in_browser_thread
def test_a_wrong_token_shows_why_and_sets_no_session(host: Host, tab: Tab) -> None:
    account(host.db, "edna")
    page = tab.page
    page.goto(f"{tab.url}/login")
    page.get_by_label("Token").fill(WRONG_TOKEN)
    with page.expect_response(f"{tab.url}/login") as answered:
        page.get_by_role("button", name="Sign in").click()
    assert answered.value.status == 401
    expect(page.get_by_role("alert")).to_contain_text("that token does not sign in")
    assert page.url == f"{tab.url}/login"
    assert SESSION_COOKIE not in tab.cookies()
    page.goto(f"{tab.url}/my/")
    assert page.url == f"{tab.url}/login"
