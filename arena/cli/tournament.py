"""Commands that run competitions: ``run``, ``demo``, ``league``, ``submit``, ``bots``, ``withdraw``,
``key``."""

from __future__ import annotations

import dataclasses
import datetime
import os
import shlex
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager, nullcontext
from pathlib import Path
from typing import Annotated, Final

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from tabulate import tabulate

from arena.cli._app import OptionPairs, app, fail, user_errors
from arena.cli.results import print_table
from arena.deals import parse_key
from arena.referee import TimeControl
from arena.rules import parse_option_pairs, variants
from arena.text import counted
from arena.tournament.league import LEAGUE, LeagueSettings, run_league
from arena.tournament.runner import RunError, RunSummary, entrant_problem, make_executor, run_tournament
from arena.tournament.settle import Settled, run_settled
from arena.tournament.spec import SpecError, check_cluster, load_spec
from arena.tournament.store import DEFAULT_DB, TIMEOUT_ENV, MatchRecord, Store, StoreError
from arena.tournament.submit import submit

__all__ = ["Cluster", "ProgressView"]

DbOption = Annotated[
    Path, typer.Option("--db", envvar="ARENA_DB", help="The results database (created if missing); "
                       f"${TIMEOUT_ENV} sets the seconds to wait while another process holds it locked "
                       "(default 10).")
]
INTERRUPTED: Final = 130


class ProgressView:
    """A progress bar with ETA and live counts on stderr (silent with ``quiet``)."""

    def __init__(self, title: str, *, quiet: bool = False) -> None:
        self.console = Console(stderr=True)
        self.quiet = quiet
        self.plain = not quiet and not sys.stderr.isatty()  # rich counts FORCE_COLOR as a terminal
        """stderr is no terminal (a pipe, a log file): plain lines at every tenth of the run
        instead of a bar, which rich squeezed to 80 columns (``16/… 0:… eta 0:00…``)."""
        self._progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
            console=self.console, disable=quiet or self.plain, transient=False,
        )
        self._total: int | None = None
        self._done = 0
        self._title = title
        self._task: TaskID | None = None
        self._faults = 0
        self._decisions = 0
        self._begun = time.perf_counter()

    def started(self, total: int, done: int, workers: int, sandbox: list[str]) -> None:
        """Draw the bar, already advanced by the matches a previous run stored; a run that
        grows (``arena test``, a tournament played until settled) extends the same bar."""
        self._total, self._done = total or None, done
        if self._task is not None:
            self._progress.update(self._task, total=total or None, completed=done)
            return
        if done and not self.quiet:
            self.console.print(f"resuming: {done} of {counted(total, 'match')} already stored")
        self._progress.start()
        self._task = self._progress.add_task(self._title, total=total or None, completed=done, counts="")
        self._begun = time.perf_counter()

    def played(self, match: MatchRecord) -> None:
        """One more match stored."""
        self._faults += len(match.faults)
        self._decisions += match.decisions
        elapsed = time.perf_counter() - self._begun
        rate = self._decisions / max(elapsed, 1e-9)
        counts = f"{counted(self._faults, 'fault')}, {rate:,.0f} decisions/s"
        if self._task is not None:
            self._progress.update(self._task, advance=1, counts=counts)
        self._done += 1
        total = self._total
        if self.plain and (self._done * 10 // total > (self._done - 1) * 10 // total if total
                           else self._done % 100 == 0):
            of = f"/{total}" if total else ""
            self.console.print(f"{self._title}: {self._done}{of} matches, {counts}, "
                               f"{datetime.timedelta(seconds=round(elapsed))} elapsed", highlight=False,
                               soft_wrap=True)

    def notice(self, message: str) -> None:
        """A warning above the bar."""
        self.console.print(f"[yellow]warning:[/yellow] {message}", highlight=False)

    def info(self, message: str) -> None:
        """A line of information above the bar (where a cluster's dashboard is)."""
        self.console.print(message, highlight=False, soft_wrap=True)  # a link stays on one line

    @property
    def running(self) -> bool:
        """The run got as far as playing (so stopping it keeps what it finished)."""
        return self._task is not None

    def close(self) -> None:
        """Leave the final state of the bar on screen."""
        if self.running:
            self._progress.stop()

    @contextmanager
    def closing(self, stopped: Callable[[], str], kept: str = "") -> Iterator[None]:
        """Run bots under the bar and close it however the run ends, as every command that
        plays matches must: Ctrl+C says ``stopped()`` (asked only then: what was kept) and
        exits 130; a run or store error fails with it, adding ``kept`` once play had begun."""
        try:
            yield
        except KeyboardInterrupt:
            self.close()
            typer.echo(f"\nstopped: every bot was killed; {stopped()}", err=True)
            raise typer.Exit(INTERRUPTED) from None
        except (RunError, StoreError) as error:
            self.close()
            raise fail(f"{error}; {kept}" if kept and self.running else str(error)) from None
        self.close()


def _summary_line(summary: RunSummary, seconds: float) -> str:
    state = "complete" if summary.complete else "incomplete"
    return (f"{summary.tournament}: {counted(summary.played, 'match')} played in {seconds:.1f} s, "
            f"{summary.stored}/{summary.total} scheduled matches stored ({state}); "
            f"{counted(summary.faults, 'fault')} in this run; sandbox: {', '.join(summary.sandbox) or '-'}")


def _settled_line(settled: Settled, confidence: float, limit: int) -> str:
    level = f"{100 * confidence:g}%"
    looks = (f" (each of up to {counted(settled.looks, 'look')} judged at {100 * settled.look_level:.4g}%, "
             f"so that all looks together keep {level})" if settled.looks > 1 else "")
    if settled.settled:
        return (f"settled: every bot is ahead of the next at {level}{looks}, after "
                f"{counted(settled.deals, 'deal')} per table")
    pairs = ", ".join(f"{a} / {b}" for a, b in settled.unsure) or "too few deals to judge"
    return (f"not settled at {level}{looks} after {counted(settled.deals, 'deal')} per table (the limit is "
            f"{counted(limit, 'match')}); still unsure: {pairs}")


def run_and_report(tournament: str, db: Path, *, workers: int | None, concurrency: int | None, quiet: bool,
                   key_file: Path | None = None, cluster: str | None = None) -> None:
    """Run (or resume) a tournament with a progress bar; Ctrl+C stops it keeping what finished."""
    spec = load_spec(tournament, entrant_problem(db))
    if cluster is not None:
        spec = dataclasses.replace(spec, cluster=cluster)
    key = _read_key(key_file) if key_file is not None else None
    view = ProgressView(spec.name, quiet=quiet)
    again = _again(tournament, db, cluster)
    begun = time.perf_counter()
    # one cluster connection for every round of a run (a [settle] tournament plays several)
    executor = make_executor(spec, view) if spec.cluster else None
    with Store(db) as store, closing(executor) if executor else nullcontext():
        settled = None
        with view.closing(lambda: f"{store.count(spec.name)} finished matches are kept in {db}. "
                                  f"Run `{again}` again to resume.",
                          f"finished matches are kept in {db}; `{again}` resumes"):
            if spec.settle is None:
                summary = run_tournament(spec, store, view, workers=workers, concurrency=concurrency, key=key,
                                         executor=executor)
            else:
                settled = run_settled(spec, store, view, workers=workers, concurrency=concurrency, key=key,
                                      executor=executor)
                summary = settled.summary
    typer.echo(_summary_line(summary, time.perf_counter() - begun))
    if settled is not None and spec.settle is not None:
        typer.echo(_settled_line(settled, spec.settle.confidence, spec.settle.max_matches))
    typer.echo("")
    print_table(db, spec.name, luck=spec.settle is not None and spec.settle.luck)
    typer.echo(f"\nmore: arena table -t {spec.name} --variant V, arena crosstable -t {spec.name}, "
               f"arena show MATCH (ids: arena export -t {spec.name})")
    if summary.given_up:
        lost = sum(summary.given_up.values())
        raise fail(f"{lost} matches of {len(summary.given_up)} table(s) were not played: "
                   + ("their tasks failed on the cluster" if spec.cluster else "referee workers kept dying while "
                      "playing them") + f" (above); `{again}` again retries them")


def _again(tournament: str, db: Path, cluster: str | None) -> str:
    """The command that resumes this run, with the database and cluster it used (without
    them, followed to the letter, it would start afresh in the default database)."""
    words = ["arena", "run", tournament, "--db", str(db), *(["--cluster", cluster] if cluster else [])]
    return shlex.join(words)


Workers = Annotated[int | None, typer.Option(help="Referee worker processes (default: the tournament "
                                             "file's `workers`, 0 = one per core).", min=0)]
Concurrency = Annotated[int | None, typer.Option(help="Tables played at once by each worker (default: "
                                                 "the file's `concurrency`).", min=1)]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


def _cluster_address(value: str | None) -> str | None:
    try:
        return None if value is None else check_cluster(value)
    except SpecError as error:
        raise typer.BadParameter(str(error)) from None


Cluster = Annotated[str | None, typer.Option(
    help="Play the tables on the Dask cluster whose scheduler is at this address (tcp://HOST:PORT, as `dask "
         "scheduler` prints it) instead of on local referee workers; --workers and --concurrency are then unused. "
         "docs/CLUSTER.md explains.", callback=_cluster_address)]
KeyFile = Annotated[Path | None, typer.Option(
    help="For a tournament's first run: deal from the secret key in this file (hex, as `arena key` writes it) "
         "instead of a fresh one, to play the same deals as another database.", dir_okay=False)]


def _read_key(path: Path) -> bytes:
    try:
        return parse_key(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise fail(f"cannot read the key file {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise fail(f"the key file {path} is not text: a key is 64 hexadecimal digits (arena key)") from None


@app.command("run")
@user_errors
def run(
    tournament: Annotated[str, typer.Argument(
        metavar="TOURNAMENT", help="A tournament file, or the name of a bundled one (tournaments/NAME.toml).")],
    db: DbOption = DEFAULT_DB,
    workers: Workers = None,
    concurrency: Concurrency = None,
    quiet: Quiet = False,
    key_file: KeyFile = None,
    cluster: Cluster = None,
) -> None:
    """Run a tournament, or resume it: matches already stored are never played again.

    Matches run on one referee worker process per core, several at a time, each bot in
    its own sandboxed process (or, with --cluster or the file's `cluster`, on the workers
    of a Dask cluster; this machine keeps the results).  Ctrl+C stops cleanly (all bots
    killed, finished matches kept); `arena run` again resumes.  `arena table` shows the
    ranking.

    The cards are dealt from a secret key drawn at the tournament's first run and kept in
    the database; no bot ever sees it (`arena key` exports it).
    """
    run_and_report(tournament, db, workers=workers, concurrency=concurrency, quiet=quiet, key_file=key_file,
                   cluster=cluster)


@app.command("demo")
@user_errors
def demo(
    db: DbOption = DEFAULT_DB,
    tournament: Annotated[str, typer.Option(help="The tournament to run.")] = "demo",
    quiet: Quiet = False,
) -> None:
    """The main job on its embedded default: the bundled bots play the bundled `demo`
    tournament over several variants, then the ranking table is printed, and the command
    that shows the results in a browser."""
    run_and_report(tournament, db, workers=None, concurrency=None, quiet=quiet)
    typer.echo(f"\nin the browser: arena serve --db {shlex.quote(str(db))}   (then open http://127.0.0.1:8000/)")


def _bots_rows(store: Store, withdrawn: bool) -> list[list[str]]:
    rows = []
    home = store.path.resolve().parent
    for v in store.versions(withdrawn=withdrawn):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(v.created))
        copy = Path(v.path) if v.path else None
        shown = "(installed package)" if copy is None else str(copy.relative_to(home) if copy.is_relative_to(home)
                                                                else copy)
        rows.append([v.bot, v.hash[:8], v.manifest.get("version", ""), _variants_text(v.manifest.get("variants", [])),
                     when, "withdrawn" if v.withdrawn else "active", shown])
    return rows


VARIANTS_WIDTH: Final = 26
"""The widest the variants column of ``arena bots`` grows before it wraps (between names):
a bot that lists most variants by name made the table some 230 columns wide."""


def _variants_text(claimed: list[str]) -> str:
    """A bot's variants as ``arena bots`` shows them: ``*`` (every variant, new ones too),
    every variant there is, or the list."""
    if "*" in claimed:
        return "* (every variant)"
    if set(variants()) <= set(claimed):
        return f"all {len(variants())} by name"
    return textwrap.fill(", ".join(claimed), VARIANTS_WIDTH, break_on_hyphens=False, break_long_words=False)


@app.command("bots")
@user_errors
def bots(
    db: DbOption = DEFAULT_DB,
    withdrawn: Annotated[bool, typer.Option("--withdrawn", help="Include withdrawn versions.")] = False,
) -> None:
    """List the registered bots and their versions (content hashes)."""
    with Store(db) as store:
        rows = _bots_rows(store, withdrawn)
    if not rows:
        typer.echo(f"no bots registered in {db}; `arena submit PATH` registers one")
        return
    typer.echo(tabulate(rows, headers=["bot", "hash", "version", "variants", "registered", "status", "copy"]))
    if any(not Path(row[-1]).is_absolute() and not row[-1].startswith("(") for row in rows):
        typer.echo(f"\n(each copy's folder is relative to {db.resolve().parent}/)")


@app.command("submit")
@user_errors
def submit_command(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="The bot's folder (with its bot.toml).")],
    name: Annotated[str | None, typer.Option(help="Register it under this name instead of its manifest's.")] = None,
    tournament: Annotated[str | None, typer.Option(help="Enter it in this tournament (a file or bundled name; "
                                                   "the file must say `open = true`).")] = None,
    db: DbOption = DEFAULT_DB,
    smoke: Annotated[int, typer.Option(help="Smoke matches against random per variant it claims.", min=1)] = 2,
    to: Annotated[str | None, typer.Option(
        "--to", help="Submit to the arena host at this address (https://HOST) instead of this machine's database: "
                     "the token is read from $ARENA_TOKEN or ~/.config/arena/token (mode 600), never from the "
                     "command line.")] = None,
) -> None:
    """Validate a bot and register an immutable copy of it, optionally entering a tournament.

    The bot runs behind every sandbox layer: its manifest is checked, it must answer the
    handshake and finish smoke matches against `random` without a fault in each variant
    it claims.  Its version is the hash of its files: unchanged code is recognised,
    changed code becomes a new version.  With --to, the folder is packed and uploaded to a
    host, which validates it the same way; the command follows it to its end
    (docs/HOSTING.md).
    """
    if to is not None:
        if name is not None:
            raise fail("--name does not go with --to: a host registers the name in the bot's bot.toml")
        _submit_remote(path, to, tournament)
        return
    with Store(db) as store:
        result = submit(store, path, name=name, tournament=tournament, matches=smoke,
                        progress=lambda step: typer.echo(step, err=True))
    v = result.version
    what = "registered new version" if result.new else "unchanged: already registered as"
    typer.echo(f"{what} {v.bot}:{v.hash[:8]} ({v.label})")
    if result.checked:
        typer.echo(f"smoke-tested against random in: {', '.join(result.checked)}")
    if result.entered:
        where = "" if db == DEFAULT_DB else f" --db {shlex.quote(str(db))}"
        typer.echo(f"entered in tournament {result.entered}: `arena run {shlex.quote(str(tournament))}{where}` "
                   f"plays its matches")


def _submit_remote(path: Path, to: str, tournament: str | None) -> None:
    """``arena submit --to``: upload, then show each step until the host's verdict."""
    from arena.host.client import submit_remote

    shown = 0

    def progress(state: dict[str, object]) -> None:
        nonlocal shown
        log = str(state.get("log", ""))
        for line in log[shown:].splitlines():
            typer.echo(f"  {line}", err=True)
        shown = len(log)
        if not state.get("final"):
            typer.echo(f"submission {state['id']}: {state['status']}", err=True)

    outcome = submit_remote(path, to, tournament=tournament, progress=progress)
    if outcome.status != "accepted":
        raise fail(f"submission {outcome.id} refused: {outcome.reason}")
    entered = f", entered in {tournament}" if tournament else ""
    typer.echo(f"submission {outcome.id} accepted: {outcome.bot}{entered}")


@app.command("withdraw")
@user_errors
def withdraw(
    bot: Annotated[str, typer.Argument(metavar="BOT", help="The registered bot's name.")],
    version: Annotated[str | None, typer.Option(help="Only the version whose hash starts with this.")] = None,
    db: DbOption = DEFAULT_DB,
    to: Annotated[str | None, typer.Option(
        "--to", help="Withdraw your bot from the arena host at this address (every version; the token as for "
                     "`arena submit --to`).")] = None,
) -> None:
    """Take a bot (or one version) out: it is no longer scheduled; its results stay."""
    if to is not None:
        from arena.host.client import withdraw_remote

        if version is not None:
            raise fail("--version does not go with --to: a host withdraws every version of the bot")
        remote = withdraw_remote(bot, to)
        typer.echo(f"withdrew {', '.join(remote) or 'no active version'} from {to}")
        return
    with Store(db) as store:
        gone = store.withdraw(bot, version)
    if not gone:
        raise fail(f"no registered version of {bot!r}" + (f" with hash {version}..." if version else "")
                   + "; `arena bots` lists them")
    typer.echo(f"withdrew {', '.join(v.short for v in gone)}")


@app.command("ladder")
@user_errors
def ladder(
    tournament: Annotated[str, typer.Argument(
        metavar="TOURNAMENT", help="A tournament file with `mode = \"ladder\"` (or a bundled one's name).")],
    matches: Annotated[int, typer.Option(help="Matches to play now (0: until Ctrl+C).", min=0)] = 0,
    db: DbOption = DEFAULT_DB,
    wait: Annotated[bool, typer.Option("--wait/--no-wait", help="While too few bots (of enough authors) can fill a "
                                       "table, wait for more to be submitted instead of stopping.")] = False,
    quiet: Quiet = False,
) -> None:
    """Play a ladder: rated matches without end among the ladder's bots, each new version
    joining as it is registered.

    Each table is seeded by the most uncertain, longest-waiting version and filled with
    the opponents nearest in rating, never two bots of one author; it plays one deal in
    every seat rotation.  A version replaced by a newer one of its bot stops playing.
    Stop with Ctrl+C (or kill it: only the matches being played are lost) and run again
    to go on; `arena table -t NAME` shows the ranking.  docs/HOSTING.md describes it.
    """
    from arena.tournament.ladder import run_ladder

    spec = load_spec(tournament)
    view = ProgressView(f"ladder {spec.name}", quiet=quiet)
    begun = time.perf_counter()
    with Store(db) as store, view.closing(lambda: f"{store.count(spec.name)} ladder matches are kept in {db}.",
                                          f"finished ladder matches are kept in {db}"):
        summary = run_ladder(spec, store, view, matches=matches, wait=wait)
    typer.echo(_summary_line(summary, time.perf_counter() - begun))
    typer.echo("")
    print_table(db, spec.name)


@app.command("league")
@user_errors
def league(
    variant: Annotated[str, typer.Option("--variant", "-v", help="Variant the league plays.")] = "scat",
    matches: Annotated[int, typer.Option(help="Matches to play now (0: until Ctrl+C).", min=0)] = 100,
    players: Annotated[int, typer.Option(help="Bots at each table.", min=2, max=9)] = 4,
    option: OptionPairs = None,
    db: DbOption = DEFAULT_DB,
    workers: Workers = None,
    concurrency: Concurrency = None,
    cluster: Cluster = None,
    move_ms: Annotated[int, typer.Option(help="Time per decision, ms.", min=1)] = 1000,
    require: Annotated[str, typer.Option(help="Sandbox layers that must be active, comma-separated.")] = "",
    settle: Annotated[float | None, typer.Option(help="Stop before --matches once every bot is ahead of the "
                                                 "next in the ranking at this confidence (e.g. 0.95).",
                                                 min=0.5, max=0.999)] = None,
    luck: Annotated[bool, typer.Option("--luck", help="Judge --settle on luck-adjusted comparisons: the same "
                                       "confidence, sooner where the cards' luck is much of the noise.")] = False,
    quiet: Quiet = False,
) -> None:
    """Play continuous league matches among the registered bots, rating them as it goes.

    Each table starts with the bot that has played least and adds the opponents that make
    the fairest table by TrueSkill match quality.  Stop with Ctrl+C and run again to go on;
    `arena table --tournament league` shows the ranking.
    """
    if luck and settle is None:
        raise fail("--luck judges --settle: give --settle too (or see arena table --luck for the ranking)")
    settings = LeagueSettings(
        variant=variant, players=players, matches=matches, options=parse_option_pairs(option or []),
        time=TimeControl(move_ms=move_ms), require=tuple(r.strip() for r in require.split(",") if r.strip()),
        workers=workers or 0, concurrency=concurrency or 4, cluster=cluster, settle=settle, luck=luck,
    )
    view = ProgressView(f"league {variant}", quiet=quiet)
    begun = time.perf_counter()
    with Store(db) as store, view.closing(lambda: f"{store.count(LEAGUE)} league matches are kept in {db}.",
                                          f"finished league matches are kept in {db}"):
        summary = run_league(store, settings, view)
    typer.echo(_summary_line(summary, time.perf_counter() - begun))
    if settle is not None:
        typer.echo(f"settled at {100 * settle:g}%: stopped early" if summary.settled
                   else f"not settled at {100 * settle:g}% within {counted(matches, 'match')}")
    typer.echo("")
    print_table(db, LEAGUE, variant, luck=luck)


@app.command("key")
@user_errors
def key(
    tournament: Annotated[str, typer.Argument(metavar="TOURNAMENT",
                                              help="The tournament (its name; `league` for the league).")],
    db: DbOption = DEFAULT_DB,
    out: Annotated[Path | None, typer.Option(help="Write the key to this file (mode 600) instead of stdout.",
                                             dir_okay=False)] = None,
) -> None:
    """Export the secret key a tournament deals from.

    Whoever holds the key can deal every card of the tournament: keep it private while the
    tournament may still be played on.  `arena run FILE --key-file F` on another database
    plays the same deals (to reproduce a tournament, or to check its results).
    """
    with Store(db) as store:
        found = store.deal_key(tournament)
    if found is None:
        raise fail(f"tournament {tournament!r} has no key in {db}: it has not run there")
    if out is None:
        typer.echo(found.hex())
        return
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with open(fd, "w", encoding="utf-8") as file:
        file.write(found.hex() + "\n")
    typer.echo(f"the key of {tournament!r} is in {out}", err=True)
