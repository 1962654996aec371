"""The person's seat, on the side of the program the person uses: it speaks the bot protocol
for them and asks a *front* (a terminal, a web page) for each decision.

The referee's lines arrive over a byte stream (the socket :mod:`arena.human.relay` passes
them through); :func:`serve` answers ``hello``, keeps what the seat was told, and at each
``decide`` shows the front a :class:`~arena.human.view.Decision` and reads what the
person typed, asking again, with the reason, until it names a legal action
(:func:`arena.human.parse.choose`): a refused input never costs the turn.  The front
never sees the protocol, so a web page drives the same seat as the terminal does.

While the person thinks, the referee may end the seat's match (the match is abandoned,
or the person's clock ran out): the question is then withdrawn and the front told.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Protocol

import msgspec
import trio

from arena import PROTOCOL_VERSION
from arena.human.narrate import narrate
from arena.human.parse import HelpAsked, InputError, choose
from arena.human.table import Table
from arena.human.view import Decision, Ending, decision_view, ending_view
from arena.protocol import (
    OUT_OF_MATCH,
    ActionReply,
    BotHello,
    Bye,
    Decide,
    Error,
    Events,
    Hello,
    MatchEnd,
    MatchStart,
    RefereeMessage,
    encode,
)
from arena.referee.records import FaultKind

__all__ = ["VERSION", "Front", "serve"]

VERSION = "person"
"""The version a person's seat says it is in its ``hello``."""


class Front(Protocol):
    """Where the person sees the table and answers: the terminal, a web page."""

    async def ask(self, view: Decision, problem: str | None) -> str:
        """What the person typed for this decision.  ``problem`` is None the first time,
        then why the last input was refused (show it, keep the rest of the screen)."""

    def finished(self, view: Ending) -> None:
        """The match is over (or abandoned): its last events and the placements."""

    def left(self, message: str) -> None:
        """The referee ended the person's part before the match's end (their clock ran out,
        the seat failed): ``message`` says so in words."""

    def notice(self, message: str) -> None:
        """A message from the referee (a fault of the seat's, under the substitute policy)."""


async def serve(stream: trio.abc.Stream, front: Front, name: str, who: Sequence[str] = ()) -> Ending | None:
    """Play the person's seat over ``stream`` until the referee says ``bye`` or the stream
    ends; the last match's ending (None if none ended).  ``name`` is the person's name (in
    ``hello``), ``who`` names each seat's player for the screen (the person's own seat
    included)."""
    seat = _Seat(stream, front, name, who)
    send, receive = trio.open_memory_channel[bytes](math.inf)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_read_lines, stream, send)
        await seat.run(receive)
        nursery.cancel_scope.cancel()
    return seat.ending


async def _read_lines(stream: trio.abc.ReceiveStream, send: trio.MemorySendChannel[bytes]) -> None:
    """Every line of ``stream``, without its newline, into ``send``; closed at the end."""
    buffer = bytearray()
    async with send:
        while True:
            try:
                data = await stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
            if not data:
                return
            buffer += data
            while (end := buffer.find(b"\n")) >= 0:
                await send.send(bytes(buffer[:end]))
                del buffer[: end + 1]


class _Seat:
    """What the seat keeps between messages."""

    def __init__(self, stream: trio.abc.SendStream, front: Front, name: str, who: Sequence[str]) -> None:
        self.stream = stream
        self.front = front
        self.name = name
        self.who = list(who)
        self.decode = msgspec.json.Decoder(RefereeMessage).decode
        self.table: Table | None = None
        self.pending: list[dict[str, object]] = []
        """Events received but not yet told (an ``events`` message before a ``decide``)."""
        self.moves = 0
        self.ending: Ending | None = None
        self.out: str | None = None
        """Why the referee put the seat out of its match, in its words (an ``error``)."""

    async def run(self, receive: trio.MemoryReceiveChannel[bytes]) -> None:
        """Answer the referee until ``bye`` or the end of the stream."""
        line: bytes | None = None
        while True:
            if line is None:
                try:
                    line = await receive.receive()
                except trio.EndOfChannel:
                    break
            message = self.decode(line)
            line = None
            if isinstance(message, Hello):
                await self._send(BotHello(self.name, VERSION, PROTOCOL_VERSION))
            elif isinstance(message, MatchStart):
                self._start(message)
            elif isinstance(message, Events):
                self.pending += message.events
            elif isinstance(message, Decide):
                line = await self._decide(message, receive)
            elif isinstance(message, MatchEnd):
                self._end(message)
            elif isinstance(message, Error):
                if message.message.endswith(OUT_OF_MATCH):
                    self.out = message.message
                else:
                    self.front.notice(message.message)
            elif isinstance(message, Bye):
                break
        if self.table is not None and self.ending is None:
            late = self.out is not None and self.out.startswith(f"{FaultKind.TIMEOUT}:")
            why = "Your time ran out" if late else "Your seat stopped answering"
            self.front.left(f"{why}: the referee took you out of the match, which goes on without you.")

    async def _send(self, message: msgspec.Struct) -> None:
        await self.stream.send_all(encode(message))

    def _start(self, start: MatchStart) -> None:
        who = self.who if len(self.who) == start.players else []
        self.table = Table.seated(start.variant, start.options, start.players, start.seat, who)
        self.pending = []
        self.moves = 0
        self.ending = None

    def _news(self, events: Sequence[dict[str, object]]) -> list[str]:
        assert self.table is not None
        told = narrate(self.table, [*self.pending, *events])
        self.pending = []
        return told

    async def _decide(self, decide: Decide, receive: trio.MemoryReceiveChannel[bytes]) -> bytes | None:
        """Ask the person, while listening to the referee: the answer is sent; a line that
        comes first (the match ended meanwhile) withdraws the question, and is returned, as
        is one that came in the same moment as the answer (the next to read)."""
        table = self.table
        assert table is not None
        self.moves += 1
        view = decision_view(table, decide.observation, decide.legal, self._news(decide.events), self.moves,
                             decide.time_left_ms)
        interrupted: list[bytes] = []
        async with trio.open_nursery() as race:

            async def person() -> None:
                problem = None
                while True:
                    typed = await self.front.ask(view, problem)
                    try:
                        action = choose(typed, decide.legal, _kept(decide.observation))
                    except HelpAsked as asked:
                        problem = str(asked)
                        continue
                    except InputError as error:
                        problem = f"Not taken: {error}"
                        continue
                    await self._send(ActionReply(decide.id, action))
                    race.cancel_scope.cancel()
                    return

            async def referee() -> None:
                with contextlib.suppress(trio.EndOfChannel):
                    interrupted.append(await receive.receive())
                race.cancel_scope.cancel()

            race.start_soon(person)
            race.start_soon(referee)
        # answered or not: a line the referee sent meanwhile is the next to read, never dropped
        return interrupted[0] if interrupted else None

    def _end(self, end: MatchEnd) -> None:
        table = self.table
        assert table is not None
        self.ending = ending_view(table, end.outcome, self._news(end.events))
        self.front.finished(self.ending)


def _kept(observation: dict[str, object]) -> str | None:
    """The card the person must keep this turn (taken from the discard pile), if any."""
    kept = observation.get("must_keep")
    return kept if isinstance(kept, str) else None
