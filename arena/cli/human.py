"""``arena play``: a person plays bots in the terminal, through the same referee they meet.

The game is stored like any match, under the tournament ``play``; ``arena play --history``
lists a person's results against each bot.  What the screen shows and how to answer:
docs/PLAY.md.
"""

from __future__ import annotations

import contextlib
import getpass
import signal
import time
from pathlib import Path
from typing import Annotated

import trio
import typer
from tabulate import tabulate

from arena.cli._app import OptionPairs, app, user_errors
from arena.cli.play import probe_sandbox
from arena.deals import opaque_id
from arena.human.match import Played, Seating, person_clock, play_seated, sole_error, take_seats
from arena.human.record import (
    PLAY,
    Deal,
    PlayError,
    check_person,
    history,
    known_people,
    record,
)
from arena.human.table import seat_names
from arena.human.terminal import Terminal
from arena.referee import Abandon, TimeControl
from arena.rules import get_variant, parse_option_pairs
from arena.text import counted, printable
from arena.tournament.store import DEFAULT_DB, MatchRecord, Store

__all__ = ["play_command"]

LEAVING = {signal.SIGINT: "Ctrl+C", signal.SIGTERM: "stopped", signal.SIGHUP: "the terminal closed"}
"""Signals that abandon the match, and how the record says the person left."""


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "player"


@app.command("play")
@user_errors
def play_command(
    variant: Annotated[str | None, typer.Option("--variant", "-v", help="Variant to play (`arena variants`).")] = None,
    bot: Annotated[list[str] | None, typer.Option(
        "--bot", "-b", help="A bot for each other seat, in seat order after yours: a folder, a bundled bot's name "
                            "or a registered bot (repeat for each seat, 1 or more).")] = None,
    seat: Annotated[int, typer.Option(help="Your seat, 0 to the number of bots; seat 0 deals first.", min=0)] = 0,
    seed: Annotated[int | None, typer.Option(
        help="Deal from this public seed (anyone who knows it knows every card).", min=0, max=2**64 - 1)] = None,
    deal: Annotated[int | None, typer.Option(
        help="Play deal N of the play tournament's secret key again (each game says which deal it was).",
        min=0)] = None,
    option: OptionPairs = None,
    move_seconds: Annotated[float | None, typer.Option(
        help="Your time per decision, seconds; past it you are out of the match, as a bot would be. "
             "Default: no limit.", min=0.001)] = None,
    name: Annotated[str | None, typer.Option(help="Your name in the results (default: your login name).")] = None,
    db: Annotated[Path, typer.Option("--db", envvar="ARENA_DB", help="The results database (or set ARENA_DB).")]
    = DEFAULT_DB,
    show_history: Annotated[bool, typer.Option(
        "--history", help="Do not play: list your games and your record against each bot.")] = False,
) -> None:
    """Play against bots in the terminal: you take a seat, bots take the others.

    Your seat is one more player to the referee: the rules, the fault handling and the
    store are those bots meet; your clock has no limit unless --move-seconds sets one.
    Each of your turns shows the table, what everyone did since your last move and the
    legal actions, numbered: type a number, an action (`discard Qs`) or its cards (`Qs`);
    in Skat's auction a number is the bid (`20` bids 20) and `#3` is choice 3.
    Ctrl+C (or `quit`) leaves: the match is then recorded as abandoned.  Every game is
    stored under the tournament `play`: `arena show MATCH` replays one, `arena play
    --history` lists yours, `arena table -t play` ranks everyone who played there.
    """
    person = check_person(name or _login())
    if show_history:
        _print_history(db, person)
        return
    if variant is None or not bot:
        raise PlayError("give --variant and at least one --bot (or --history to list your games)")
    if seed is not None and deal is not None:
        raise PlayError("give --seed or --deal, not both")
    game = get_variant(variant)
    players = len(bot) + 1
    game.check_players(players)
    if seat >= players:
        raise PlayError(f"--seat {seat}: with {counted(len(bot), 'bot')} the seats are 0 to {players - 1}")
    options = parse_option_pairs(option or [])
    game.resolve(options)  # refuse bad options before anything starts
    table = take_seats(db, game, options, seat, person, bot, seed, deal)
    seating, versions, dealt = table.seating, table.versions, table.deal
    abandon = Abandon()
    try:
        played = trio.run(_play, seating, dealt, abandon, person_clock(move_seconds))
    except KeyboardInterrupt:
        raise PlayError("stopped before the match began; nothing was played") from None
    except BaseExceptionGroup as group:  # one error of the match, reported as itself
        raise sole_error(group) from None
    with Store(db) as store:
        stored = record(store, played.result, versions, dealt, played.bot_layers)
    with contextlib.suppress(OSError):  # the terminal may be gone (closed): the game is recorded all the same
        _report(played, stored, seating, dealt, db)


async def _play(seating: Seating, dealt: Deal, abandon: Abandon, clock: TimeControl) -> Played:
    """The match, with Ctrl+C (and the terminal closing) abandoning it."""
    def leave(how: str) -> None:
        abandon(f"{seating.person} left the match ({how})")

    with trio.open_signal_receiver(*LEAVING) as signals:
        async with trio.open_nursery() as nursery:
            async def watch() -> None:
                async for number in signals:
                    leave(LEAVING[signal.Signals(number)])

            nursery.start_soon(watch)
            sandbox = await probe_sandbox([])
            terminal = Terminal(leave)
            played = await play_seated(seating, terminal, seed=dealt.seed,
                                       match_id=opaque_id(dealt.seed, f"{PLAY}-{dealt.number}"),
                                       bot_clock=TimeControl(), clock=clock, sandbox=sandbox, abandon=abandon)
            nursery.cancel_scope.cancel()
    return played


def _report(played: Played, stored: MatchRecord, seating: Seating, dealt: Deal, db: Path) -> None:
    """After the match: what went wrong with a bot, where the game is stored, what next."""
    result = played.result
    names = seat_names(seating.players, seating.seat)
    for fault in result.faults:
        if fault.seat == seating.seat:
            typer.echo(f"Your seat faulted ({fault.kind}): {printable(fault.detail)}")
        else:
            typer.echo(f"{names[fault.seat]} ({seating.who[fault.seat]}) stopped playing: its bot faulted "
                       f"({fault.kind}: {printable(fault.detail)[:300]}).")
    if played.ending is None:  # the seat never saw the end: say how it came out
        typer.echo(f"The match ended: {result.outcome.reason}.")
    where = "" if db == DEFAULT_DB else f" --db {db}"
    again = f"--seed {dealt.public}" if dealt.number is None else f"--deal {dealt.number}"
    bots = " ".join(f"-b {b}" for i, b in enumerate(seating.who) if i != seating.seat)
    typer.echo(f"\nRecorded as match {stored.id} (tournament {PLAY}, {counted(stored.decisions, 'decision')}).")
    typer.echo(f"  replay it:          arena show {stored.id}{where}")
    typer.echo(f"  your games:         arena play --history --name {seating.person}{where}")
    typer.echo(f"  these cards again:  arena play -v {seating.variant.name} {bots} --seat {seating.seat} {again}"
               f"{where}")


def _print_history(db: Path, person: str) -> None:
    if not db.is_file():
        raise PlayError(f"no results database at {db}: nobody has played there yet")
    with Store(db) as store:
        meetings, games = history(store, person)
        people = list(known_people(store))
    if not games:
        others = ", ".join(people) or "nobody yet"
        typer.echo(f"no games of {person} in {db} (people who played there: {others})")
        return
    abandoned = sum(g.abandoned for g in games)
    typer.echo(f"{person}: {counted(len(games), 'game')} in {db}" + (f", {abandoned} abandoned" if abandoned else ""))
    rows = [[m.bot, m.variant, m.played, m.won, m.tied, m.lost, m.abandoned] for m in meetings]
    typer.echo(tabulate(rows, headers=["against", "variant", "met", "placed better", "same", "worse", "abandoned"]))
    typer.echo("\nlatest games:")
    rows = [[g.id, time.strftime("%Y-%m-%d %H:%M", time.localtime(g.finished)), g.variant, ", ".join(g.opponents),
             "-" if g.abandoned else f"{g.place} of {g.players}", g.reason] for g in games[-10:][::-1]]
    typer.echo(tabulate(rows, headers=["match", "played", "variant", "against", "place", "how it ended"]))
    typer.echo("\nreplay one: arena show MATCH" + ("" if db == DEFAULT_DB else f" --db {db}"))
