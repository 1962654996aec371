"""The play page of ``arena serve``: a person plays bots in the browser, through the same
seat, referee and recording as ``arena play``.

``/play/`` is a page like the others (read-only: the form's choices); the game itself runs
over one WebSocket per table, ``/play/socket``.  The page sends the table it wants, then
its answers; the server runs :func:`arena.human.match.play_seated` in its own trio
loop with a :class:`arena.human.webfront.WebFront` as the person's front, sends each screen
as JSON, and records the game with :func:`arena.human.record.record` as ``arena play``
does.  The socket closing (the tab closed) or a ``leave`` message abandons the match, and so
does a message that is not one of the page's (:class:`Unreadable`), after one error saying so.

Only a page of this site, reached under a loopback name when the server listens on a
loopback address, may open a table: a WebSocket is not bound by the same-origin rule, so
the ``Origin`` header is checked against ``Host``, and a loopback server refuses any other
``Host`` (a page of another site whose name was made to resolve to 127.0.0.1).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import trio
from starlette.requests import Request
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena.deals import opaque_id
from arena.errors import ArenaError
from arena.human.match import Played, Table, person_clock, play_seated
from arena.human.record import PLAY, record
from arena.human.table import seat_names
from arena.human.webfront import WebFront
from arena.lightjson import json_loads_bounded
from arena.referee import Abandon, TimeControl
from arena.sandbox import Sandbox
from arena.text import printable
from arena.tournament.store import Store
from arena.web import site
from arena.web.hosts import is_loopback
from arena.web.pages import Page
from arena.web.playtable import offered, seat_seconds, seat_table
from arena.web.readonly import ReadOnlyStore

__all__ = ["PLAY_PAGE", "SOCKET_URL", "Tables"]

PLAY_PAGE: Final = "play/index.html"
SOCKET_URL: Final = "/play/socket"
MAX_TABLES: Final = 4
"""Games one server plays at once: each runs a process per bot."""
ANSWER_CHARS: Final = 200
"""Longer answers are cut: no legal action is near this long."""
POLICY_VIOLATION: Final = 1008
STOPPING_S: Final = 10
"""How long a game may take to end and be recorded once the server is stopping."""
MESSAGE_CHARS: Final = 256 * 1024
"""Longer messages are refused unread: the page's are a few hundred characters, and reading
JSON takes the server's one event loop (about half a second a megabyte)."""
MESSAGE_DEPTH: Final = 8
"""Deeper messages are refused unread: the page's nest two levels (a table's list of bots)."""
FIRST_MESSAGE_S: Final = 30.0
"""How long a new play socket may stay silent before it is closed."""
LONGEST_S: Final = 600
"""A visitor's longest time per decision by default (``arena serve --seat-seconds``): past
it the seat is out of the match, as a bot would be, so an idle visitor frees the table."""


def _refusal(websocket: WebSocket) -> str | None:
    """Why this WebSocket may not open a table (None if it may)."""
    host = websocket.headers.get("host", "")
    origin = websocket.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
        return "a table can be opened only from this site's own play page"
    server = websocket.scope.get("server")
    if server and is_loopback(str(server[0])) and not is_loopback(urlsplit(f"//{host}").hostname):
        return "this server answers play requests under a loopback name only (127.0.0.1, localhost, [::1])"
    return None


class Unreadable(ArenaError):
    """A message that is not one of the page's (a JSON object, as text): the socket is not
    the page the person sees, so nothing more it says is taken."""

    def __init__(self, why: str) -> None:
        super().__init__(f"the page sent a message that cannot be read ({why})")
        self.why = why


async def _receive(websocket: WebSocket) -> dict[str, Any]:
    """The page's next message; :class:`Unreadable` says why it is not one (a document
    100,000 deep is refused unread: json.loads would raise RecursionError)."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    if not isinstance(text, str):
        raise Unreadable("a binary message, not text")
    if len(text) > MESSAGE_CHARS:
        raise Unreadable(f"{len(text)} characters, more than {MESSAGE_CHARS}")
    try:
        value = json_loads_bounded(text, MESSAGE_DEPTH)
    except ValueError as error:  # not JSON, too deep, or a number past Python's digit limit
        raise Unreadable(str(error)) from None
    if not isinstance(value, dict):
        raise Unreadable("not a JSON object")
    return value


async def _first_message(websocket: WebSocket) -> dict[str, Any]:
    """The table the page asks for, sent first; ArenaError when it is no message of the page
    or does not come within :data:`FIRST_MESSAGE_S` (an idle socket holds nothing for long)."""
    with trio.move_on_after(FIRST_MESSAGE_S):
        return await _receive(websocket)
    raise ArenaError(f"no table asked for within {FIRST_MESSAGE_S:.0f} s")


class Tables:
    """The play page and the games being played on one server."""

    def __init__(self, db: Path, enabled: bool, longest_s: int = LONGEST_S) -> None:
        self.db = db
        self.enabled = enabled
        self.longest_s = longest_s
        """The longest time per decision a visitor may take or choose, seconds."""
        self.playing = 0
        self._sandbox: Sandbox | None = None
        self._probing = trio.Lock()

    def page(self, store: ReadOnlyStore, _: Request) -> Page:
        """The form (the variants and bots offered), or why playing is off."""
        choices = offered(store, self.longest_s) if self.enabled else {}
        context = {"enabled": self.enabled, "socket": SOCKET_URL, "offered": choices}
        return Page(PLAY_PAGE, "play.html", "play", context)

    async def socket(self, websocket: WebSocket) -> None:
        """One table: its choice, then the game, then where it was recorded."""
        refusal = _refusal(websocket)
        if refusal is not None:
            await websocket.close(code=POLICY_VIOLATION, reason=refusal)
            return
        await websocket.accept()
        try:
            choice = await _first_message(websocket)
            if not self.enabled:
                raise ArenaError("playing is off on this server: start `arena serve` with --play")
            if self.playing >= MAX_TABLES:
                raise ArenaError(f"{MAX_TABLES} games are being played on this server: try again when one ends")
            seconds = seat_seconds(choice, self.longest_s)
            self.playing += 1
            try:
                table = await trio.to_thread.run_sync(seat_table, self.db, choice)
                await self._play(websocket, table, seconds)
            finally:
                self.playing -= 1
        except WebSocketDisconnect:
            return
        except ArenaError as error:
            await _send(websocket, {"type": "error", "message": str(error)})
        await _close(websocket)

    async def sandbox(self) -> Sandbox:
        """Every isolation layer that works here, probed once per server."""
        async with self._probing:
            if self._sandbox is None:
                self._sandbox = await Sandbox.probe()
            return self._sandbox

    async def _play(self, websocket: WebSocket, table: Table, seconds: int) -> None:
        seating, dealt = table.seating, table.deal
        front = WebFront()
        abandon = Abandon()
        told = trio.Event()

        async def relay() -> None:
            async for message in front.outbox:
                await _send(websocket, message)
            told.set()

        async def listen() -> None:
            while True:
                try:
                    message = await _receive(websocket)
                except WebSocketDisconnect:
                    abandon(f"{seating.person} left the match (closed the page)")
                    return
                except Unreadable as error:
                    await _send(websocket, {"type": "error", "message": f"{error}: the match is abandoned"})
                    abandon(f"{seating.person}'s page sent a message that cannot be read ({error.why})")
                    return
                if message.get("type") == "leave":
                    abandon(f"{seating.person} left the match (Leave)")
                elif message.get("type") == "answer" and isinstance(message.get("question"), int):
                    front.answer(message["question"], str(message.get("text", ""))[:ANSWER_CHARS])

        await _send(websocket, {"type": "seated", "players": seating.who, "seat": seating.seat,
                                "variant": seating.variant.name, "options": dict(seating.options),
                                "seconds": seconds})
        sandbox = await self.sandbox()
        game = trio.CancelScope(shield=True)
        recorded = trio.Event()

        async def stopping() -> None:
            """The server stops (Ctrl+C): abandon the match, and give it a while to end and
            be recorded, shielded from the stop."""
            try:
                await trio.sleep_forever()
            finally:
                if not recorded.is_set():
                    abandon(f"the server stopped while {seating.person} played")
                    game.deadline = trio.current_time() + STOPPING_S

        async with trio.open_nursery() as nursery:
            nursery.start_soon(relay)
            nursery.start_soon(listen)
            nursery.start_soon(stopping)
            with game:
                try:
                    played = await play_seated(seating, front, seed=dealt.seed,
                                               match_id=opaque_id(dealt.seed, f"{PLAY}-{dealt.number}"),
                                               bot_clock=TimeControl(), clock=person_clock(seconds), sandbox=sandbox,
                                               abandon=abandon)
                finally:
                    front.close()
                message = await trio.to_thread.run_sync(self._record, played, table)
                recorded.set()
            with trio.move_on_after(5):
                await told.wait()
            await _send(websocket, message)
            nursery.cancel_scope.cancel()

    def _record(self, played: Played, table: Table) -> dict[str, Any]:
        """Store the game as ``arena play`` does; what the page is told about it."""
        with Store(self.db) as store:
            stored = record(store, played.result, table.versions, table.deal, played.bot_layers)
        seating = table.seating
        names = seat_names(seating.players, seating.seat)
        faults = []
        for fault in played.result.faults:
            if fault.seat == seating.seat:
                faults.append(f"Your seat faulted ({fault.kind}): {printable(fault.detail)[:300]}")
            else:
                faults.append(f"{names[fault.seat]} ({seating.who[fault.seat]}) stopped playing: its bot faulted "
                              f"({fault.kind}: {printable(fault.detail)[:300]}).")
        return {"type": "recorded", "match": stored.id, "url": site.url_of(site.match_page(stored.id)),
                "reason": played.result.outcome.reason, "decisions": stored.decisions, "faults": faults,
                "seen_end": played.ending is not None}


async def _send(websocket: WebSocket, message: dict[str, Any]) -> None:
    """Send, unless the page is gone (the game goes on to its record all the same)."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        await websocket.send_json(message)


async def _close(websocket: WebSocket) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        await websocket.close()
