"""``arena host``: the read-only pages of ``arena serve`` and a door beside them.

The door takes entries from authors on other machines: an HTTP API for ``arena submit
--to`` (a token in the ``Authorization`` header) and the same in the browser (the token
signs in to a session cookie; every form carries a CSRF token).  An upload is committed
to the ledger, with its author and address, before the author hears "queued"; the queue
(:mod:`arena.host.queue`) validates it as ``arena submit`` would.  Logs and faults of a
submission are shown to its author and the operators only: to anyone else it does not
exist (404, as an unknown number).

Everything an author sends is bounded (:mod:`arena.host.bodies`, :mod:`arena.host.archive`)
and every failed token check counts against the sender's address (:mod:`arena.host.guard`).
The pages' Host and Content-Security-Policy rules are ``arena serve``'s.
"""

from __future__ import annotations

import contextlib
import datetime
import hmac
import ipaddress
import resource
import secrets
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any, Final, cast

from hypercorn.config import Config
from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp

from arena.host import inflight
from arena.host.authorpage import author_view
from arena.host.bodies import BodyError, read_body, read_form
from arena.host.config import HostConfig
from arena.host.guard import LOGIN_COOKIE, SESSION_COOKIE, Guard, Unheard, token_from_header
from arena.host.keeper import keep_final, keep_ladder
from arena.host.ledger import SIGNUP_ACTOR, Account, FloodError, Ledger, LedgerError, Submission
from arena.host.queue import Queue
from arena.tournament.spec import load_spec
from arena.tournament.store import Store
from arena.web import site
from arena.web.app import page_routes, secured, serve_app
from arena.web.hosts import is_loopback
from arena.web.readonly import RatingsMemo
from arena.web.render import META_POLICY

__all__ = ["create_host_app", "serve_host"]

FINAL: Final = ("accepted", "refused")
SIGN_INS_PER_HOUR: Final = 20
FORM_SECONDS: Final = 10.0
"""How long a small form's body may take to arrive (a sign-in is a few hundred bytes)."""
BUSY_UPLOADING: Final = ("an upload from this account or address is still being received: wait for its answer, "
                         "then send the next")
"""Browser sign-ins an account may make in an hour: each writes a session and an audit
entry, and a remembered token makes them cheap to repeat."""
NAME_CHARS: Final = "lower-case letters, digits, '-', '_' or '.', starting with a letter or digit (at most 32)"

_ENV: Final = Environment(loader=ChoiceLoader([PackageLoader("arena.host", "templates"),
                                               PackageLoader("arena.web", "templates")]),
                          autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


class _Door:
    """What the host's routes share: its settings, the guard, the queue and one ledger
    connection per worker thread (SQLite connections stay in their thread)."""

    def __init__(self, config: HostConfig, queue: Queue | None) -> None:
        self.config = config
        self.guard = Guard(config.auth_failures, config.auth_window_s)
        self.queue = queue
        self._local = threading.local()
        self.memo = RatingsMemo()
        self.ladder = None if config.ladder is None else load_spec(config.ladder)
        self.flight = inflight.InFlight()

    def ledger(self) -> Ledger:
        """This thread's ledger connection."""
        ledger: Ledger | None = getattr(self._local, "ledger", None)
        if ledger is None:
            ledger = self._local.ledger = Ledger(self.config.db)
        return ledger

    async def call(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(ledger, *args)`` in a worker thread: SQLite and scrypt block."""
        return await run_in_threadpool(lambda: function(self.ledger(), *args))

    # -- who is asking ------------------------------------------------------------------

    async def api_account(self, request: Request) -> Account | Response:
        """The account of the request's bearer token, or the 401/429 to answer."""
        address = _address(request)
        if self.guard.blocked(address):
            return _api_error(429, "too many failed sign-ins from this address: wait and try again")
        token = token_from_header(request.headers.get("authorization"))
        try:
            account = None if token is None else await self.call(lambda db: self.guard.account(db, token, address))
        except Unheard:  # checks in flight reached the limit
            return _api_error(429, "too many failed sign-ins from this address: wait and try again")
        if account is None:
            return _api_error(401, "no valid token: send `Authorization: Bearer TOKEN` with the token the operator "
                                   "gave you (a wrong, rotated, disabled or locked token reads the same)")
        return cast(Account, account)

    async def browser_account(self, request: Request) -> tuple[Account, str] | None:
        """The signed-in account of the request's session cookie and its CSRF token."""
        session = request.cookies.get(self.named(SESSION_COOKIE))
        if not session:
            return None
        found = await self.call(lambda ledger: ledger.session(session))
        return cast("tuple[Account, str] | None", found)

    def page(self, request: Request, template: str, title: str, status: int = 200, **context: Any) -> Response:
        """A host page (its templates extend the pages' ``base.html``)."""
        path = request.url.path.lstrip("/")
        html = _ENV.get_template(template).render(
            page={"title": title, "path": path}, url=site.Links(path or site.INDEX, False), site=site,
            relative=False, live=None, seen="", policy=META_POLICY, signup=self.config.signup,
            origin=self.origin(request), **context)
        return HTMLResponse(html, status_code=status, headers={"cache-control": "no-store"})

    def origin(self, request: Request) -> str:
        """The address authors reach this host by (https behind a TLS proxy)."""
        origin = str(request.base_url)
        return "https://" + origin.removeprefix("http://") if self.config.secure_cookies else origin

    def named(self, cookie: str) -> str:
        """A cookie's name: behind TLS with the ``__Host-`` prefix, which a browser keeps
        only from this very host over https, so a site on a sibling subdomain cannot plant
        a login nonce or session of its choosing (SameSite does not stop a sibling)."""
        return "__Host-" + cookie if self.config.secure_cookies else cookie

    def cookie(self, response: Response, name: str, value: str, max_age: int) -> None:
        """Set a cookie scripts cannot read and other sites' requests do not carry."""
        response.set_cookie(self.named(name), value, max_age=max_age, httponly=True, samesite="strict",
                            secure=self.config.secure_cookies, path="/")

    def forget(self, response: Response, name: str) -> None:
        """Remove a cookie set by :meth:`cookie`."""
        response.delete_cookie(self.named(name), path="/", secure=self.config.secure_cookies, httponly=True,
                               samesite="strict")

    # -- the API ---------------------------------------------------------------------------

    async def me(self, request: Request) -> Response:
        account = await self.api_account(request)
        if isinstance(account, Response):
            return account
        bots = await self.call(lambda ledger: ledger.bots_of(account.name))
        return _json({"account": account.name, "operator": account.operator, "bots": bots,
                      "tournaments": sorted(self.config.tournaments)})

    async def api_submit(self, request: Request) -> Response:
        account = await self.api_account(request)
        if isinstance(account, Response):
            return account
        address = _address(request)
        async with self._uploading(account, address) as refused:
            if refused is not None:
                return _api_error(429, refused, close=True)
            try:
                body = await read_body(request, self.config.archive.archive_bytes, self.config.body_seconds)
            except BodyError as error:
                return _api_error(error.status, str(error))
        tournament = request.query_params.get("tournament") or None
        queued = await self._enqueue(account, address, body, tournament)
        if isinstance(queued, str):
            return _api_error(429 if queued.startswith("limit") else 400, queued.removeprefix("limit: "))
        return _json(_public(queued), status=202, headers={"location": f"/api/submissions/{queued.id}"})

    async def api_submissions(self, request: Request) -> Response:
        account = await self.api_account(request)
        if isinstance(account, Response):
            return account
        mine = await self.call(lambda ledger: ledger.submissions(None if account.operator else account.name))
        return _json({"submissions": [_public(s, log=False) for s in mine]})

    async def api_submission(self, request: Request) -> Response:
        account = await self.api_account(request)
        if isinstance(account, Response):
            return account
        found = await self._own_submission(account, request.path_params["number"])
        if found is None:
            return _api_error(404, "no such submission of yours")
        return _json(_public(found))

    async def api_withdraw(self, request: Request) -> Response:
        account = await self.api_account(request)
        if isinstance(account, Response):
            return account
        bot = request.path_params["bot"]

        def withdraw(ledger: Ledger) -> list[str] | None:
            if ledger.owner(bot) != account.name and not account.operator:
                return None
            with Store(self.config.db) as store:
                gone = [v.short for v in store.withdraw(bot)]
            if gone:
                ledger.record(account.name, "withdraw", bot, address=_address(request), detail=", ".join(gone))
            return gone

        gone = await self.call(withdraw)
        if gone is None:
            return _api_error(404, f"no bot {bot!r} of yours")
        return _json({"bot": bot, "withdrawn": gone})

    async def _own_submission(self, account: Account, number: str) -> Submission | None:
        """Submission ``number`` if ``account`` may see it (its author or an operator)."""
        if not (number.isascii() and number.isdigit()) or len(number) > 18:
            return None
        found = cast("Submission | None", await self.call(lambda ledger: ledger.submission(int(number))))
        if found is None or (found.account != account.name and not account.operator):
            return None
        return found

    @contextlib.asynccontextmanager
    async def _uploading(self, account: Account, address: str) -> AsyncIterator[str | None]:
        """Why an upload is refused before its body is read (its sender's day's limit, asked
        again when it is queued, or its uploads in flight), or None: it then counts as in
        flight until the block ends."""

        def check(ledger: Ledger) -> str | None:
            try:
                ledger.check_quota(account.name, address, per_account_day=self.config.per_account_day,
                                   per_address_day=self.config.per_address_day)
            except FloodError as error:
                return str(error)
            return None

        refused = cast("str | None", await self.call(check))
        if refused is not None:
            yield refused
            return
        with self.flight.admit({f"account {account.name}": inflight.UPLOADS_PER_ACCOUNT,
                                f"address {address}": inflight.UPLOADS_PER_ADDRESS}) as admitted:
            yield None if admitted else BUSY_UPLOADING

    async def _enqueue(self, account: Account, address: str, body: bytes, tournament: str | None) -> Submission | str:
        """The queued submission, or why it was not queued (``limit: ...`` for a flood)."""
        if not body:
            return "the upload is empty: send a .tar.gz or .zip of the bot's folder"
        if tournament is not None and tournament not in self.config.tournaments:
            open_here = ", ".join(sorted(self.config.tournaments)) or "none"
            return f"no tournament {tournament!r} takes entries here (open here: {open_here})"
        deadline = self.config.deadlines.get(tournament or "")
        if deadline is not None and time.time() > deadline:
            closed = datetime.datetime.fromtimestamp(deadline, datetime.UTC).isoformat(timespec="seconds")
            return f"entries to {tournament!r} closed at its deadline, {closed}"

        def enqueue(ledger: Ledger) -> Submission | str:
            try:
                return ledger.enqueue(account.name, address, body, tournament,
                                      per_account_day=self.config.per_account_day,
                                      per_address_day=self.config.per_address_day)
            except FloodError as error:
                return f"limit: {error}"
            except LedgerError as error:
                return str(error)

        queued = cast("Submission | str", await self.call(enqueue))
        if isinstance(queued, Submission) and self.queue is not None:
            self.queue.wake()
        return queued

    # -- the browser ------------------------------------------------------------------------

    async def login_form(self, request: Request) -> Response:
        nonce = secrets.token_urlsafe(24)
        response = self.page(request, "login.html", "Sign in", nonce=nonce, error=None)
        self.cookie(response, LOGIN_COOKIE, nonce, 3600)
        return response

    async def login(self, request: Request) -> Response:
        form = await self._form(request)
        if isinstance(form, Response):
            return form
        nonce = request.cookies.get(self.named(LOGIN_COOKIE), "")
        if not nonce or not hmac.compare_digest(nonce, str(form.get("nonce", ""))):
            return self.page(request, "login.html", "Sign in", 403, nonce=nonce,
                             error="the form expired: sign in again")
        address = _address(request)
        if self.guard.blocked(address):
            return self.page(request, "login.html", "Sign in", 429, nonce=nonce,
                             error="too many failed sign-ins from this address: wait and try again")
        token = str(form.get("token", "")).strip()
        try:
            account = await self.call(lambda ledger: self.guard.account(ledger, token, address))
        except Unheard:  # checks in flight reached the limit
            return self.page(request, "login.html", "Sign in", 429, nonce=nonce,
                             error="too many failed sign-ins from this address: wait and try again")
        if account is None:
            return self.page(request, "login.html", "Sign in", 401, nonce=nonce,
                             error="that token does not sign in (wrong, rotated, disabled or locked)")
        try:
            session, _ = await self.call(lambda ledger: ledger.open_session(
                account.name, address=address, per_hour=SIGN_INS_PER_HOUR))
        except FloodError as error:
            return self.page(request, "login.html", "Sign in", 429, nonce=nonce, error=str(error))
        except LedgerError:  # disabled since its token was checked
            return self.page(request, "login.html", "Sign in", 401, nonce=nonce,
                             error="that token does not sign in (wrong, rotated, disabled or locked)")
        response = RedirectResponse("/my/", status_code=303)
        self.cookie(response, SESSION_COOKIE, session, 7 * 86400)
        self.forget(response, LOGIN_COOKIE)
        return response

    async def logout(self, request: Request) -> Response:
        signed = await self.browser_account(request)
        form = await self._form(request)
        if isinstance(form, Response):
            return form
        if signed is not None and hmac.compare_digest(signed[1], str(form.get("csrf", ""))):
            session = request.cookies.get(self.named(SESSION_COOKIE), "")
            await self.call(lambda ledger: ledger.close_session(session, address=_address(request)))
        response = RedirectResponse("/", status_code=303)
        self.forget(response, SESSION_COOKIE)
        return response

    async def mine(self, request: Request) -> Response:
        signed = await self.browser_account(request)
        if signed is None:
            return RedirectResponse("/login", status_code=303)
        account, csrf = signed
        return await self._mine(request, account, csrf)

    async def _mine(self, request: Request, account: Account, csrf: str, status: int = 200,
                    error: str | None = None) -> Response:
        bots, submissions = await self.call(
            lambda ledger: (ledger.bots_of(account.name), ledger.submissions(account.name, limit=50)))
        views = await run_in_threadpool(author_view, self.config.db, self.memo, bots, self.ladder)
        return self.page(request, "account.html", account.name, status, account=account, csrf=csrf, bots=views,
                         submissions=submissions, tournaments=sorted(self.config.tournaments), error=error,
                         limit=self.config.archive.archive_bytes)

    async def upload(self, request: Request) -> Response:
        signed = await self.browser_account(request)
        if signed is None:
            return RedirectResponse("/login", status_code=303)
        account, csrf = signed
        address = _address(request)
        async with self._uploading(account, address) as refused:
            if refused is not None:
                response = await self._mine(request, account, csrf, 429, refused)
                response.headers["connection"] = "close"  # its body is not read
                return response
            try:
                body = await read_body(request, self.config.request_bytes, self.config.body_seconds)
                form = await read_form(request, body, 4096)
            except BodyError as error:
                return await self._mine(request, account, csrf, error.status, str(error))
        if not hmac.compare_digest(csrf, str(form.get("csrf", ""))):
            return await self._mine(request, account, csrf, 403, "the form expired: load the page and try again")
        upload = form.get("archive")
        data = await upload.read() if upload is not None and not isinstance(upload, str) else b""
        if len(data) > self.config.archive.archive_bytes:
            return await self._mine(request, account, csrf, 413, "the archive is larger than this host accepts")
        tournament = str(form.get("tournament", "")) or None
        queued = await self._enqueue(account, _address(request), data, tournament)
        if isinstance(queued, str):
            return await self._mine(request, account, csrf, 429 if queued.startswith("limit") else 400,
                                    queued.removeprefix("limit: "))
        return RedirectResponse(f"/my/s/{queued.id}/", status_code=303)

    async def submission_page(self, request: Request) -> Response:
        signed = await self.browser_account(request)
        if signed is None:
            return RedirectResponse("/login", status_code=303)
        account, csrf = signed
        found = await self._own_submission(account, request.path_params["number"])
        if found is None:
            return self.page(request, "missing.html", "Not found", 404, what="no such submission of yours")
        return self.page(request, "submission.html", f"Submission {found.id}", submission=found, csrf=csrf,
                         final=found.status in FINAL)

    async def signup_form(self, request: Request) -> Response:
        if not self.config.signup:
            return self.page(request, "missing.html", "Not found", 404, what="sign-up is closed on this host: "
                             "ask its operator for an account")
        nonce = secrets.token_urlsafe(24)
        response = self.page(request, "signup.html", "Sign up", nonce=nonce, error=None, token=None)
        self.cookie(response, LOGIN_COOKIE, nonce, 3600)
        return response

    async def signup(self, request: Request) -> Response:
        if not self.config.signup:
            return self.page(request, "missing.html", "Not found", 404, what="sign-up is closed on this host")
        form = await self._form(request)
        if isinstance(form, Response):
            return form
        nonce = request.cookies.get(self.named(LOGIN_COOKIE), "")
        if not nonce or not hmac.compare_digest(nonce, str(form.get("nonce", ""))):
            return self.page(request, "signup.html", "Sign up", 403, nonce=nonce, token=None,
                             error="the form expired: load the page and try again")
        name, address = str(form.get("name", "")).strip(), _address(request)
        if self.guard.blocked(address):
            return self.page(request, "signup.html", "Sign up", 429, nonce=nonce, token=None,
                             error="too many failed attempts from this address: wait and try again")

        def add(ledger: Ledger) -> tuple[Account, str] | str:
            try:
                return ledger.add_account(name, actor=SIGNUP_ACTOR, address=address,
                                          per_address_day=self.config.per_address_day)
            except LedgerError as error:
                return str(error)

        made = await self.call(add)
        if isinstance(made, str):
            self.guard.failed(address)  # trying names costs the address as trying tokens does
            return self.page(request, "signup.html", "Sign up", 400, nonce=nonce, token=None, error=made)
        return self.page(request, "signup.html", "Your token", nonce=nonce, error=None, token=made[1],
                         name=made[0].name)

    async def _form(self, request: Request) -> Any:
        """A small form's fields, or the error page to answer (its body must come whole
        within :data:`FORM_SECONDS`, and an address may send only so many at once)."""
        with self.flight.admit({_address(request): inflight.FORMS_PER_ADDRESS}) as admitted:
            if not admitted:
                response = self.page(request, "missing.html", "Refused", 429,
                                     what="this address is sending too many forms at once: wait and try again")
                response.headers["connection"] = "close"  # its body is not read
                return response
            try:
                body = await read_body(request, 16 * 1024, min(FORM_SECONDS, self.config.body_seconds))
                return await read_form(request, body, 4096)
            except BodyError as error:
                return self.page(request, "missing.html", "Refused", error.status, what=str(error))


def _address(request: Request) -> str:
    """The sender's network address as the per-address limits count it (behind a reverse
    proxy: the proxy's, unless the host was told to trust its forwarding headers with
    ``--behind-proxy``; docs/HOSTING.md): an IPv6 sender by its /64, which one client is
    given whole (each of its 2^64 addresses would be a fresh quota), an IPv4 address
    written in IPv6 as that IPv4 address."""
    return _counted_address(request.client.host if request.client is not None else "unknown")


def _counted_address(host: str) -> str:
    """``host`` as one sender: an IPv6 address's /64 network, or the address as it is."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _public(submission: Submission, log: bool = True) -> dict[str, Any]:
    """What an author sees of a submission (never the archive)."""
    shown: dict[str, Any] = {"id": submission.id, "status": submission.status, "bot": submission.bot,
                             "tournament": submission.tournament, "reason": submission.reason,
                             "created": submission.created, "updated": submission.updated,
                             "final": submission.status in FINAL}
    if log:
        shown["log"] = submission.log
    return shown


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(data, status_code=status, headers={"cache-control": "no-store", **(headers or {})})


def _api_error(status: int, message: str, *, close: bool = False) -> Response:
    """The API's error answer; ``close`` for a request whose body is left unread."""
    return _json({"error": message}, status=status, headers={"connection": "close"} if close else None)


HEADER_BYTES: Final = 16 * 1024
"""The most a request's header fields may take, over HTTP/1.1 and HTTP/2 alike (the
servers' own bounds are per read and 64 KiB)."""


def _bounded_headers(app: ASGIApp) -> ASGIApp:
    """Answers 431 to a request whose header fields pass :data:`HEADER_BYTES`."""

    async def bounded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket") and \
                sum(len(k) + len(v) + 4 for k, v in scope["headers"]) > HEADER_BYTES:
            if scope["type"] == "http":
                await JSONResponse({"error": f"the request's headers pass {HEADER_BYTES // 1024} KiB"},
                                   431)(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1009})
            return
        await app(scope, receive, send)

    return bounded


def _same_origin(app: ASGIApp) -> ASGIApp:
    """Refuses a browser's POST sent from another site's page (its ``Origin`` names
    another host): a second wall behind the CSRF tokens and SameSite cookies."""

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            headers = dict(scope["headers"])
            origin, host = headers.get(b"origin"), headers.get(b"host", b"")
            # (the host's pages ask for a same-origin referrer policy: under the pages' usual
            # no-referrer a browser would send "null" for the host's own forms)
            if origin is not None and origin.split(b"://", 1)[-1] != host:
                await JSONResponse({"error": "a form of another site may not post here"}, 403)(scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded


def _forwarded_for(app: ASGIApp) -> ASGIApp:
    """Takes the client's address from the last ``X-Forwarded-For`` entry, the one the
    proxy in front added, for a request that came from this machine (the proxy): nothing
    else of what a client says about itself (its Host, its scheme) is believed."""

    async def forwarded(scope: Any, receive: Any, send: Any) -> None:
        peer = scope.get("client")
        if scope["type"] in ("http", "websocket") and peer is not None and is_loopback(peer[0]):
            values = [v for k, v in scope["headers"] if k == b"x-forwarded-for"]
            last = values[-1].split(b",")[-1].strip().decode("latin-1") if values else ""
            if last:
                scope = {**scope, "client": (last, 0)}
        await app(scope, receive, send)

    return forwarded


def host_routes(door: _Door) -> list[BaseRoute]:
    """The door's addresses (the pages' are added after them)."""
    return [
        Route("/api/me", door.me),
        Route("/api/submissions", door.api_submit, methods=["POST"]),
        Route("/api/submissions", door.api_submissions, methods=["GET"]),
        Route("/api/submissions/{number}", door.api_submission),
        Route("/api/bots/{bot}/withdraw", door.api_withdraw, methods=["POST"]),
        Route("/login", door.login_form, methods=["GET"]),
        Route("/login", door.login, methods=["POST"]),
        Route("/logout", door.logout, methods=["POST"]),
        Route("/signup", door.signup_form, methods=["GET"]),
        Route("/signup", door.signup, methods=["POST"]),
        Route("/my/", door.mine),
        Route("/my/submit", door.upload, methods=["POST"]),
        Route("/my/s/{number}/", door.submission_page),
    ]


def create_host_app(config: HostConfig, host: str = "127.0.0.1", allowed: tuple[str, ...] = (),
                    queue: Queue | None = None) -> ASGIApp:
    """The host's app over ``config.db``: the door's routes and the read-only pages."""
    door = _Door(config, queue)
    app = Starlette(routes=[*host_routes(door), *page_routes(config.db)])
    guarded = _bounded_headers(secured(_same_origin(app), host, allowed))
    return _forwarded_for(guarded) if config.behind_proxy else guarded


def _more_files() -> None:
    """The soft limit of open files raised to the hard one: each connection is a file
    descriptor, and systemd's default soft limit (1024) is a thousand slow clients away
    (bots set their own limit in the sandbox)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 1 << 16
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def serve_host(config: HostConfig, host: str, port: int, announce: Callable[[str], None],
               allowed: tuple[str, ...] = (), read_timeout_s: int = 60) -> None:
    """Serve the host and run its queue until Ctrl+C (or SIGTERM)."""
    _more_files()
    server = Config()
    server.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    server.loglevel = "WARNING"
    server.accesslog = None
    server.read_timeout = read_timeout_s  # a client that stops sending is dropped
    server.h11_max_incomplete_size = HEADER_BYTES  # headers sent slowly (the body is bounded by the door)
    server.h2_max_header_list_size = HEADER_BYTES

    queue = Queue(config)
    background: list[Callable[..., Awaitable[object]]] = [queue.run]
    if config.ladder is not None:
        background.append(partial(keep_ladder, config.ladder, config.db))
    background += [partial(keep_final, config.tournaments[name], config.db, deadline)
                   for name, deadline in config.deadlines.items()]
    serve_app(lambda: create_host_app(config, host, allowed, queue), server, announce, background)

