"""One match with a person at the table, through the same referee bots meet.

The person's seat is a bot to the referee: :mod:`arena.human.relay`, launched like any
bot (its protocol on stdin and stdout), passes its lines to a Unix socket in a private
folder, where :func:`arena.human.seat.serve` answers for the person through a front (the
terminal, or a web page's bridge).  The seat is launched without the bot sandbox (it runs
the arena's own code, and must reach that socket) and plays under its own clock; the
bots run behind every layer the machine offers, under theirs.  The match can be
abandoned at any time (:class:`arena.referee.Abandon`): it then ends at once and its
result holds what was played.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import trio

from arena.botspec import BotManifest
from arena.cards import Seed
from arena.human.record import Deal, PlayError, person_version, the_deal, versions_of
from arena.human.seat import VERSION, Front, serve
from arena.human.view import Ending
from arena.referee import Abandon, Bot, BotFault, Clock, MatchResult, TimeControl, open_bots, play_match
from arena.rules import Variant
from arena.sandbox import Sandbox
from arena.tournament.store import Store, VersionRow

__all__ = ["UNLIMITED_MS", "Played", "Seating", "person_clock", "play_seated", "sole_error"]

UNLIMITED_MS: Final = 30 * 24 * 3600 * 1000
"""A person's time per decision when nobody sets one: 30 days, as good as no limit."""
SEAT_STARTUP_MS: Final = 10_000
SEAT_GRACE_S: Final = 10.0
"""How long the seat's relay has to pass its last messages on and exit after ``bye``: it
is the arena's own code and exits at once, so this only bounds a broken one; a shorter
wait could kill it on a busy machine before the person's screen learns why they are out."""


def person_clock(move_seconds: float | None) -> TimeControl:
    """The person's time control: ``move_seconds`` per decision on the wall clock (a person
    thinks without the CPU), no bank; or unlimited."""
    move_ms = UNLIMITED_MS if move_seconds is None else max(1, round(move_seconds * 1000))
    return TimeControl(move_ms=move_ms, bank_ms=0, first_move_ms=0, startup_ms=SEAT_STARTUP_MS, ponder=True,
                       clock=Clock.WALL)


@dataclass(frozen=True)
class Seating:
    """Who plays a match: the person in ``seat``, the bots in the other seats in order."""

    variant: Variant
    options: Mapping[str, Any]
    seat: int
    person: str
    bots: Sequence[BotManifest]
    who: Sequence[str]
    """Each seat's player, as the person's screen names them."""

    @property
    def players(self) -> int:
        return len(self.bots) + 1


@dataclass(frozen=True)
class Table:
    """A table ready to play: who sits where, the versions to record, the deal."""

    seating: Seating
    versions: list[VersionRow]
    deal: Deal


def take_seats(db: Path, variant: Variant, options: Mapping[str, Any], seat: int, person: str,
               bots: Sequence[str], seed: int | None, deal: int | None) -> Table:
    """The person in ``seat`` and ``bots`` in the others, in order, each registered as
    :mod:`arena.human.record` stores them, and the deal: a public ``seed``, deal ``deal``
    of the ``play`` key, or the next deal of it."""
    with Store(db) as store:
        entrants = versions_of(store, bots, variant.name)
        versions = [v for v, _ in entrants]
        versions.insert(seat, person_version(store, person))
        dealt = the_deal(store, variant.name, len(bots) + 1, seed, deal)
    who = [v.bot for v, _ in entrants]
    who.insert(seat, person)
    return Table(Seating(variant, options, seat, person, [m for _, m in entrants], who), versions, dealt)


@dataclass(frozen=True)
class Played:
    """A match with a person: the referee's result and what the person's seat saw."""

    result: MatchResult
    ending: Ending | None
    bot_layers: list[str]
    """The sandbox layers every bot ran behind."""


def sole_error(error: BaseException) -> BaseException:
    """The one exception a nursery's group holds (an :class:`ArenaError` the command line
    reports in one line), or ``error`` itself when it holds several or is no group."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _relay(path: str, person: str) -> BotManifest:
    return BotManifest(name=person, version=VERSION, author=person, description="a person at the table",
                       variants=("*",), folder=None, command=("{python}", "-m", "arena.human.relay", path))


async def play_seated(seating: Seating, front: Front, *, seed: Seed, match_id: str, bot_clock: TimeControl,
                      clock: TimeControl, sandbox: Sandbox, abandon: Abandon) -> Played:
    """Play one match: the bots behind ``sandbox`` under ``bot_clock``, the person's seat
    under ``clock``, answered through ``front``; ``abandon`` stops it."""
    folder = tempfile.mkdtemp(prefix="arena-seat-")
    path = os.path.join(folder, "seat.sock")
    listening = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        return await _play(seating, front, path, listening, seed=seed, match_id=match_id, bot_clock=bot_clock,
                           clock=clock, sandbox=sandbox, abandon=abandon)
    except BaseExceptionGroup as group:
        raise sole_error(group) from None
    finally:
        listening.close()
        shutil.rmtree(folder, ignore_errors=True)


async def _play(seating: Seating, front: Front, path: str, listening: trio.socket.SocketType, *, seed: Seed,
                match_id: str, bot_clock: TimeControl, clock: TimeControl, sandbox: Sandbox,
                abandon: Abandon) -> Played:
    """:func:`play_seated`, its socket made: the seat answers there while the referee plays."""
    await listening.bind(path)
    listening.listen(1)
    listener = trio.SocketListener(listening)
    ended: list[Ending | None] = []
    done = trio.Event()

    async def seat() -> None:
        stream = await listener.accept()
        async with stream:
            ended.append(await serve(stream, front, seating.person, seating.who))
        done.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(seat)
        async with open_bots(seating.bots, time_control=bot_clock, sandbox=sandbox) as bots, \
                open_bots([_relay(path, seating.person)], time_control=clock, sandbox=Sandbox(),
                          grace_s=SEAT_GRACE_S) as person:
            if isinstance(person[0], BotFault):
                raise PlayError(f"the person's seat did not start: {person[0]}")
            table: list[Bot | BotFault] = [*bots[:seating.seat], person[0], *bots[seating.seat:]]
            result = await play_match(seating.variant, table, seed=seed, options=seating.options,
                                      match_id=match_id, time_control=bot_clock, seat_time={seating.seat: clock},
                                      abandon=abandon)
            playing = [set(b.layers) for b in bots if isinstance(b, Bot)]
        with trio.move_on_after(2):  # the seat's process is gone: let the front show the end
            await done.wait()
        nursery.cancel_scope.cancel()
    return Played(result, ended[0] if ended else None, sorted(set.intersection(*playing)) if playing else [])
