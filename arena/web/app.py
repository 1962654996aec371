"""``arena serve``: the pages as a local, read-only web app (Starlette on Hypercorn's trio
worker).

Every request opens the results database read-only (:class:`ReadOnlyStore`), builds its
page in a worker thread (the statistics are CPU work) and closes it; the only shared state
is the memory cache of recomputed ratings.  The app answers GET (and HEAD) for its pages,
its status and its static folder, and the play page's WebSocket (:mod:`arena.web.play`,
the only part that writes, and only games played), nothing else: no route takes a file
name, and the static folder is served by Starlette's ``StaticFiles``, which refuses any
path that resolves outside it.  Every response carries the Content-Security-Policy of
:mod:`arena.web.render`.

All routes are in :func:`routes`; a page is a builder in :mod:`arena.web.pages` and a
template, so a new page (a table where a person plays the bots, say) is a route here.
"""

from __future__ import annotations

import html
import re
import signal
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Final, cast
from urllib.parse import urlencode

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as hypercorn_serve
from hypercorn.typing import ASGIFramework
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.errors import ArenaError
from arena.tournament.views import ResultsError, variants_played
from arena.web import allocator, pages
from arena.web.botpage import bot_names
from arena.web.h2guard import guard_h2
from arena.web.hosts import KnownHosts
from arena.web.matchpage import choices
from arena.web.overview import status
from arena.web.pagecache import PageCache
from arena.web.play import LONGEST_S, SOCKET_URL, Tables
from arena.web.readonly import RatingsMemo, ReadOnlyStore, Wanted
from arena.web.render import CONTENT_SECURITY_POLICY, render
from arena.web.site import STATIC_DIR

__all__ = ["STATUS_URL", "create_app", "page_routes", "routes", "secured", "serve", "serve_app"]

STATUS_URL: Final = "/api/status.json"
STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
"""What stops ``arena serve``: Ctrl+C, or ``kill`` by a service manager."""
FILTERS: Final = ("t", "v", "bot", "result", "page")
"""The match list's query: the only one a page reads."""
HEADERS: Final = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-resource-policy", b"same-origin"),
)

Builder = Callable[[ReadOnlyStore, Request], pages.Page]


class _Site:
    """What every request of one app shares: the database's path, the ratings memo and the
    games being played (``play``: whether visitors may play)."""

    def __init__(self, db: Path, play: bool = False, seat_seconds: int = LONGEST_S) -> None:
        self.db = db
        self.memo = RatingsMemo()
        self.tables = Tables(db, play, seat_seconds)
        # a page not found is not kept: made-up addresses must not push out the pages kept
        self.rendered: PageCache[tuple[bytes, int]] = PageCache(weight=lambda kept: len(kept[0]),
                                                               keep=lambda kept: kept[1] == 200)

    def page(self, build: Builder, reads: Sequence[str] = ()) -> Callable[[Request], Awaitable[Response]]:
        """The endpoint that renders the page ``build`` makes for a request (which reads the
        query's ``reads`` alone: any other query is the same page)."""

        async def endpoint(request: Request) -> Response:
            asked = sorted((k, v) for k, v in request.query_params.items() if k in reads and v)
            key = request.url.path + (f"?{urlencode(asked)}" if asked else "")
            make = partial(self._build, build, request)
            # a kept page is answered from here; only a first rendering goes to a thread
            kept = self.rendered.kept(key, make)
            body, status = kept if kept is not None else await run_in_threadpool(self.rendered.get, key, make)
            return HTMLResponse(body, status_code=status)

        return endpoint

    def _build(self, build: Builder, request: Request) -> tuple[bytes, int]:
        try:
            with ReadOnlyStore(self.db, self.memo) as store:
                page = build(store, request)
                seen = _seen(store, page.watch)
                return render(page, relative=False, live=STATUS_URL, seen=seen).encode(), 200
        except ArenaError as error:
            return _problem_html(404, self.told(error)).encode(), 404

    async def status(self, request: Request) -> Response:
        """The small JSON the live pages poll."""

        def read() -> dict[str, object]:
            with ReadOnlyStore(self.db, self.memo) as store:
                return status(store)

        try:
            return JSONResponse(await run_in_threadpool(read), headers={"cache-control": "no-store"})
        except ArenaError as error:
            return JSONResponse({"error": self.told(error)}, status_code=503)

    def told(self, error: ArenaError) -> str:
        """``error``'s message for a visitor: the database named, not where it lies."""
        return str(error).replace(str(self.db.resolve()), self.db.name).replace(str(self.db), self.db.name)


def _seen(store: ReadOnlyStore, watch: str | None) -> str:
    if watch is None:
        return ""
    now = status(store)
    return str(now["all"]) if watch == "*" else str(now["tournaments"].get(watch, ""))


def _problem_html(code: int, message: str) -> str:
    """A plain error page (the message escaped: it may quote a name from the address)."""
    text = html.escape(message)
    return (f"<!doctype html><title>{code}</title><h1>{code}</h1><p>{text}</p>"
            '<p><a href="/">the competitions</a></p>')


def _tournament(store: ReadOnlyStore, request: Request) -> pages.Page:
    name = _competition(store, request)
    variant = request.path_params.get("variant")
    if variant is not None:
        variant = pages.find(variants_played(store, name), variant, "variant")
    luck = request.query_params.get("luck")
    if luck not in (None, "", "1"):  # one page per view: no query can make the pages render anew at will
        raise ResultsError(f"no view luck={luck!r}: ?luck=1 shows the ranking with the cards' luck taken out")
    return pages.tournament(store, name, variant, luck=luck == "1")


def _competition(store: ReadOnlyStore, request: Request) -> str:
    names = sorted(set(store.played()) | {n for n, _, _ in store.tournaments()})
    return pages.find(names, request.path_params["name"], "competition")


def _bot(store: ReadOnlyStore, request: Request) -> pages.Page:
    return pages.bot(store, pages.find(bot_names(store), request.path_params["bot"], "bot"))


def _matches(store: ReadOnlyStore, request: Request) -> pages.Page:
    asked = request.query_params
    offered = {**choices(store), "result": ["won", "lost", "faults"]}
    for name, values in offered.items():
        if asked.get(name) and asked[name] not in values:
            raise ResultsError(f"no {name} {asked[name]!r} in the match list's filters")
    page = asked.get("page") or "1"
    if not re.fullmatch(r"[1-9][0-9]{0,6}", page):
        raise ResultsError(f"no page {page!r} of the match list")
    wanted = Wanted(*(asked.get(name) or None for name in ("t", "v", "bot", "result")))
    return pages.listed(store, wanted, int(page), offered)


def _match(store: ReadOnlyStore, request: Request) -> pages.Page:
    wanted = request.path_params["match"]
    if wanted.startswith("~"):
        wanted = pages.find(store.hashed_match_ids(), wanted, "match")
    return pages.match(store, wanted)


def routes(site: _Site) -> list[BaseRoute]:
    """Every address the app answers."""
    return [
        Route("/", site.page(lambda store, _: pages.index(store))),
        Route("/t/{name}/", site.page(_tournament, ("luck",))),
        Route("/t/{name}/v/{variant}/", site.page(_tournament, ("luck",))),
        Route("/b/{bot}/", site.page(_bot)),
        Route("/matches/", site.page(_matches, FILTERS)),
        Route("/m/{match}/", site.page(_match)),
        Route(STATUS_URL, site.status),
        Route("/play/", site.page(site.tables.page)),
        WebSocketRoute(SOCKET_URL, site.tables.socket),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]


class _SecurityHeaders:
    """Adds the Content-Security-Policy and its companions to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class _ClosesUnread:
    """Says ``Connection: close`` on a response sent before its request's body was read
    (a refusal at the door): the server closes such a connection, since it cannot tell where
    the next request would start, and a keep-alive client not told so would send its next
    request into the closing connection and get no answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", ())) if scope["type"] == "http" else {}
        unread = headers.get(b"content-length", b"0") != b"0" or b"transfer-encoding" in headers
        if not unread:
            await self.app(scope, receive, send)
            return

        async def receiving() -> Message:
            nonlocal unread
            message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False):
                unread = False
            return message

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and unread:
                message["headers"] = [*message.get("headers", []), (b"connection", b"close")]
            await send(message)

        await self.app(scope, receiving, sending)


def create_app(db: Path, play: bool = False, host: str = "127.0.0.1", allowed: Sequence[str] = (),
               seat_seconds: int = LONGEST_S) -> ASGIApp:
    """The web app over the results database at ``db`` (opened read-only per request);
    ``play``: visitors may play the bots at ``/play/`` (games are recorded there), with at
    most ``seat_seconds`` per decision; it answers only the names of ``host``, the address
    it listens on, and ``allowed`` (:mod:`arena.web.hosts`)."""
    return secured(Starlette(routes=routes(_Site(db, play, seat_seconds))), host, allowed)


def page_routes(db: Path) -> list[BaseRoute]:
    """The read-only pages over ``db`` (``/play/`` saying playing is off): for an app that
    mounts them beside its own routes (``arena host``)."""
    return routes(_Site(db))


def secured(app: ASGIApp, host: str, allowed: Sequence[str] = ()) -> ASGIApp:
    """``app`` answering only the names of ``host`` and ``allowed``, every response with
    the Content-Security-Policy and its companions (and ``Connection: close`` where the
    request's body was left unread)."""
    return _ClosesUnread(KnownHosts(_SecurityHeaders(app), host, allowed))


def serve(db: Path, host: str, port: int, announce: Callable[[str], None], play: bool = False,
          allowed: Sequence[str] = (), seat_seconds: int = LONGEST_S) -> None:
    """Serve the app until Ctrl+C; ``announce`` is told the address once it listens."""
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.loglevel = "WARNING"
    config.accesslog = None

    serve_app(lambda: create_app(db, play, host, allowed, seat_seconds), config, announce)


def serve_app(make_app: Callable[[], ASGIApp], config: Config, announce: Callable[[str], None],
              background: Sequence[Callable[..., Awaitable[object]]] = ()) -> None:
    """Serve the app ``make_app`` makes (after starting the ``background`` tasks, each
    started with ``nursery.start``) until Ctrl+C or SIGTERM; ``announce`` is told each
    address once it listens."""

    async def main() -> None:
        # The stop signal is received as a message and stops the server by cancellation: a
        # KeyboardInterrupt raised at whatever line happened to run could leave a library
        # mid-step and the server hanging.  Once it is stopping, a second Ctrl+C interrupts.
        async with trio.open_nursery() as nursery:
            with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
                for task in background:
                    await nursery.start(task)
                app = cast(ASGIFramework, make_app())
                binds = await nursery.start(partial(hypercorn_serve, app, config, mode="asgi"))
                for bound in binds:
                    announce(f"{bound}/")
                async for _ in signals:
                    break
            nursery.cancel_scope.cancel()

    allocator.settle()  # before any thread: one that allocates keeps the arena it was given
    guard_h2()
    try:
        trio.run(main)
    except KeyboardInterrupt:  # a second Ctrl+C while the server stopped
        return
    except BaseExceptionGroup as group:
        _, rest = group.split(KeyboardInterrupt)  # Ctrl+C, as the server's tasks saw it
        if rest is not None:
            raise rest from None
