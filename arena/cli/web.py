"""Commands that show the results in a browser: ``serve`` (a live, read-only web app) and
``report`` (the same pages as static files).  The web package is imported inside the
commands, so the other commands never load the web framework."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from arena.cli._app import app, fail, user_errors
from arena.cli.results import Db
from arena.tournament.store import DEFAULT_DB

ReportTournament = Annotated[
    str | None, typer.Option("--tournament", "-t", help="Only this competition (default: every one in the database).")
]


@app.command("serve")
@user_errors
def serve(
    db: Db = DEFAULT_DB,
    host: Annotated[str, typer.Option(help="The address to listen on. The default answers this machine only; "
                                      "the pages have no log-in, so another address shows the results (every "
                                      "hand of every stored match) to whoever reaches it.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on (0: any free port, printed).", min=0,
                                      max=65535)] = 8000,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", help="Another name this server answers to (repeatable), where --host is not a loopback "
                               "address: requests under any other name are refused (a page of another site "
                               "could otherwise make its own name lead here and read the pages). A loopback "
                               "server answers loopback names only.")] = None,
    play: Annotated[bool | None, typer.Option(
        "--play/--no-play", help="Let visitors play the bots at /play/ (each game starts bot processes on this "
                                 "machine and is recorded in the database, as `arena play` records it). Default: on "
                                 "when --host is a loopback address, off otherwise, since any visitor could then "
                                 "start processes here.")] = None,
    seat_seconds: Annotated[int, typer.Option(
        help="A visitor's longest time per decision at /play/, seconds (the form may ask for less); past it the "
             "visitor's seat is out of the match, as a bot would be, so an idle visitor frees the table.",
        min=1)] = 600,
) -> None:
    """Show the results in a browser: a local, read-only web app over the results database.

    Pages: the competitions with their state and progress; each tournament's ranking
    (overall and per variant) with intervals and rank ranges, head-to-head heat map,
    rating history and faults; each bot's versions, results, faults and thinking time;
    the match list with filters; and every match's replay, step by step, as any seat
    saw it or as a spectator.  Pages of a running tournament follow it as matches
    finish.  The database is opened read-only: it can be served while `arena run`
    plays.  At /play/ a visitor plays the bots in the browser, as with `arena play`:
    on by default on a loopback address only (--play, --no-play).  Ctrl+C stops.
    docs/WEB.md describes it.
    """
    from arena.web.app import serve as serve_app
    from arena.web.hosts import is_loopback
    from arena.web.readonly import ReadOnlyStore

    with ReadOnlyStore(db):  # a missing or foreign database is reported now, not per page
        pass
    if not is_loopback(host):
        typer.echo(f"warning: listening on {host}: the pages have no log-in; anyone who reaches this address "
                   "sees every result and every hand", err=True)
    if play is None:
        play = is_loopback(host)
    elif play and not is_loopback(host):
        typer.echo(f"warning: --play on {host}: anyone who reaches this address can start bot processes on this "
                   "machine", err=True)

    def announce(address: str) -> None:
        typer.echo(f"serving {db} (read-only) at {address}  (Ctrl+C stops)")
        if play:
            typer.echo(f"play the bots at {address}play/")

    try:
        serve_app(db, host, port, announce, play, allowed_host or (), seat_seconds)
    except OSError as error:
        raise fail(f"cannot listen on {host}:{port}: {error.strerror or error}; choose another --port "
                   "(0 picks a free one)") from None
    except BaseExceptionGroup as group:
        listening, _ = group.split(OSError)
        if listening is None:
            raise
        raise fail(f"cannot listen on {host}:{port}: {_first(listening)}; choose another --port "
                   "(0 picks a free one)") from None


def _first(group: BaseExceptionGroup[OSError]) -> str:
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return str(getattr(error, "strerror", None) or error)


@app.command("report")
@user_errors
def report(
    out: Annotated[Path, typer.Option("--out", "-o", help="The folder to write the pages to (created if missing; "
                                      "pages already there are replaced).", file_okay=False)],
    db: Db = DEFAULT_DB,
    tournament: ReportTournament = None,
) -> None:
    """Write the web pages as static files: they open from disk (file://) or from any
    static host, with no server.

    Without --tournament, every competition in the database; with it, that one alone
    (its ranking, its bots' results in it, its matches and their replays).  The pages
    show the results as they are now; write the report again to bring it up to date.
    """
    from arena.web.report import write_report

    written = write_report(db, out, tournament, progress=lambda step: typer.echo(step, err=True))
    typer.echo(f"wrote {written.pages} pages of {', '.join(written.competitions) or 'no competition'} to {out}")
    typer.echo(f"open: {shlex.quote(written.index.as_uri())}")
