"""``arena test``: is one bot version stronger than another?  A sequential test, stored and
resumable like a tournament (:mod:`arena.tournament.sequential`).  ``arena climb``: such a
test against each rung of the strength ladder (:mod:`arena.tournament.climb`)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing, nullcontext
from typing import Annotated

import typer
from tabulate import tabulate

from arena.cli._app import OptionPairs, app, fail, user_errors
from arena.cli.tournament import Cluster, Concurrency, DbOption, ProgressView, Quiet, Workers
from arena.errors import ArenaError
from arena.referee import TimeControl
from arena.rules import get_variant, parse_option_pairs
from arena.tournament.climb import LADDER_TIME, STRENGTH_LADDER, Rung, rung_plan, rungs_for, same_bot
from arena.tournament.runner import cluster_executor
from arena.tournament.sequential import TestPlan, run_test, verdict
from arena.tournament.stats import SequentialTest
from arena.tournament.store import DEFAULT_DB, Store


def _line(result: SequentialTest) -> str:
    low, high = result.interval
    return (f"deals {result.deals} ({result.tied} level): score {result.score:.3f} "
            f"({100 * result.level:g}%: {low:.3f} to {high:.3f}), "
            f"evidence better x{result.better:.1f}, not better x{result.not_better:.1f} "
            f"(verdicts at x{result.better_at:.0f}, x{result.not_better_at:.0f}): {result.verdict}")


def _printer(view: ProgressView) -> Callable[[SequentialTest], None]:
    """Prints each batch's state of a test above the progress bar."""
    return lambda result: view.console.print(_line(result), highlight=False)


def _alike(result: SequentialTest) -> str | None:
    """A plain sentence when most deals were level: over their seatings neither bot placed
    ahead of the other more often (they played alike, or each won the seating the cards
    favoured)."""
    if result.deals and result.tied == result.deals:
        return (f"every deal ended level ({result.deals}): over each deal's seatings neither placed ahead more "
                "often (two versions that play alike do this)")
    if result.deals and result.tied * 2 > result.deals:
        return (f"{result.tied} of {result.deals} deals ended level (over their seatings neither placed ahead more "
                f"often): only the other {result.deals - result.tied} tell them apart")
    return None


@app.command("test")
@user_errors
def test(
    new: Annotated[str, typer.Argument(metavar="NEW",
                                       help="The version under test: a folder, a bot name, or NAME:HASH.")],
    base: Annotated[str, typer.Argument(metavar="BASE", help="The version it must beat (same forms).")],
    variant: Annotated[str, typer.Option("--variant", "-v", help="Variant to play.")] = "scat",
    players: Annotated[int, typer.Option(help="Seats per table: 2 is heads-up; more need --field bots.",
                                         min=2, max=9)] = 2,
    field: Annotated[list[str] | None, typer.Option("--field", help="A bot for the other seats (repeat: "
                                                    "players - 2 of them).")] = None,
    option: OptionPairs = None,
    margin: Annotated[float, typer.Option(help="The gain worth finding: NEW's comparison score against BASE "
                                          "of 0.5 + margin (0.05: placing better 55% of the time).")] = 0.05,
    alpha: Annotated[float, typer.Option(help="Chance of calling NEW better when it is not.")] = 0.05,
    beta: Annotated[float, typer.Option(help="Chance of missing a real gain of the margin.")] = 0.05,
    max_deals: Annotated[int, typer.Option(help="Stop undecided after this many deals.", min=8)] = 400,
    batch: Annotated[int, typer.Option(help="Deals added at a time.", min=1)] = 8,
    move_ms: Annotated[int, typer.Option(help="Time per decision, ms.", min=1)] = 1000,
    base_move_ms: Annotated[int | None, typer.Option(help="BASE's own time per decision, ms (default: --move-ms): "
                                                     "NEW against a bot at another budget.", min=1)] = None,
    name: Annotated[str, typer.Option(help="The test's name in the database (default: "
                                      "test-NEW-BASE-VARIANT-Np, and -baseMSms with --base-move-ms).")] = "",
    luck: Annotated[bool, typer.Option("--luck", help="Score each deal with the luck of the cards taken out: "
                                       "the same verdicts with their error rates, from fewer deals where the "
                                       "cards' luck is a large part of the noise. Give it with --show too.")] = False,
    show: Annotated[bool, typer.Option("--show", help="Report the stored result; play nothing.")] = False,
    db: DbOption = DEFAULT_DB,
    workers: Workers = None,
    concurrency: Concurrency = None,
    cluster: Cluster = None,
    quiet: Quiet = False,
) -> None:
    """Test whether NEW is stronger than BASE, playing deals until a sequential test decides.

    NEW and BASE play the same deals in every seat rotation.  After each complete deal two
    bets are settled, one that NEW scores above 0.5 against BASE and one that it scores
    below 0.5 + margin; the test stops when either has multiplied its stake by 1/alpha (or
    1/beta): **better** or **not better**, with the chosen error rates whatever the bots
    (deterministic ones and mostly-level deals included), or **undecided** at --max-deals.
    The score's interval (at 1 - alpha - beta: 90% at the defaults, so each end is a
    one-sided 95% bound) holds at whatever deal the test stopped.  It is stored like a
    tournament: Ctrl+C and run again to resume, --show to report it later, `arena table -t
    NAME` for its ranking.  docs/RANKING.md explains it.
    """
    try:
        plan = TestPlan(new, base, variant, players, tuple(field or ()), parse_option_pairs(option or []), margin,
                        alpha, beta, max_deals, batch, TimeControl(move_ms=move_ms), name, luck,
                        None if base_move_ms in (None, move_ms) else TimeControl(move_ms=base_move_ms))
    except ArenaError as error:
        raise fail(str(error)) from None
    with Store(db) as store:
        if show:
            result = verdict(store, plan)
            if result is None:
                raise fail(f"no test {plan.title!r} in {db}: run it first (without --show)")
            typer.echo(f"{plan.title}: {_line(result)}")
            played_with = (store.tournament_spec(plan.title) or {}).get("test", {}).get("luck", False)
            if played_with != plan.luck:
                typer.echo(f"(scored {'with' if luck else 'without'} the luck taken out, as asked: the test was "
                           f"played {'with' if played_with else 'without'} --luck, and its verdict is that one)")
            if alike := _alike(result):
                typer.echo(alike)
            return
        view = ProgressView(plan.title, quiet=quiet)
        executor = cluster_executor(cluster, (), view) if cluster else None  # one connection for every batch
        with closing(executor) if executor else nullcontext(), \
                view.closing(lambda: f"finished matches are kept in {db}. Run the same command again to resume."):
            result = run_test(plan, store, view, _printer(view),
                              workers=workers, concurrency=concurrency, executor=executor)
    verdicts = {"better": f"{new} is better than {base}: its score against it is above 0.5 (the interval says "
                          f"by how much)",
                "not better": f"{new} is not better than {base} by the margin {margin}: its score against it is "
                              f"below {0.5 + margin:g}",
                "undecided": f"undecided after {result.deals} deals: the data cannot yet tell"}
    typer.echo(f"{plan.title}: {_line(result)}\n{verdicts[result.verdict]}")
    if alike := _alike(result):
        typer.echo(alike)


@app.command("climb")
@user_errors
def climb(
    new: Annotated[str, typer.Argument(metavar="NEW",
                                       help="The bot that climbs: a folder, a bot name, or NAME:HASH.")],
    variant: Annotated[str, typer.Option("--variant", "-v", help="Variant to play.")] = "scat",
    players: Annotated[int | None, typer.Option(help="Seats per table (default: 2, heads-up, or the variant's "
                                                "fewest); more than 2 need --field bots.", min=2, max=9)] = None,
    field: Annotated[list[str] | None, typer.Option("--field", help="A bot for the other seats (repeat: "
                                                    "players - 2 of them).")] = None,
    option: OptionPairs = None,
    margin: Annotated[float, typer.Option(help="The gain each rung's test looks for (as arena test).")] = 0.05,
    alpha: Annotated[float, typer.Option(help="Chance of calling NEW better than a rung when it is not.")] = 0.05,
    beta: Annotated[float, typer.Option(help="Chance of missing a real gain of the margin.")] = 0.05,
    max_deals: Annotated[int, typer.Option(help="Stop a rung's test undecided after this many deals.", min=8)] = 400,
    batch: Annotated[int, typer.Option(help="Deals added at a time.", min=1)] = 8,
    name: Annotated[str, typer.Option(help="Prefix of the tests' names in the database (default: "
                                      "climb-NEW-RUNG-VARIANT-Np-MSms).")] = "",
    luck: Annotated[bool, typer.Option("--luck", help="Score each rung's deals with the cards' luck taken out "
                                       "(as arena test --luck; these tests are stored apart, ending -luck).")] = False,
    db: DbOption = DEFAULT_DB,
    workers: Workers = None,
    concurrency: Concurrency = None,
    cluster: Cluster = None,
    quiet: Quiet = False,
) -> None:
    """Climb the strength ladder: test NEW against each reference bot, from the weakest,
    until a test does not call it better.

    The rungs, from the bottom: random, threshold, heuristic, ismcts at 15 ms a decision,
    ismcts at 200 ms (NEW plays at 200 ms on every rung; rungs whose bot does not play the
    variant are skipped).  Each rung is one `arena test` with its error rates,
    stored under its own name: Ctrl+C and run again to resume where it stopped.  The
    answer is the highest rung NEW is shown to beat.  docs/STRENGTH.md has the ladder's
    measured order.
    """
    try:
        rules = get_variant(variant)
        template = TestPlan(new, STRENGTH_LADDER[0].bot, variant, players or rules.min_players, tuple(field or ()),
                            parse_option_pairs(option or []), margin, alpha, beta, max_deals, batch, LADDER_TIME, name,
                            luck)
        rungs, skipped = rungs_for(variant)
    except ArenaError as error:
        raise fail(str(error)) from None
    for seat in field or ():
        if clash := next((r for r in rungs if same_bot(seat, r.bot)), None):
            raise fail(f"--field {seat} is the bot of the rung '{clash.label}', and a test's table seats each bot "
                       f"once: register a copy under another name (arena submit bots/{clash.bot} --name "
                       f"{clash.bot}-field) and give that")
    if skipped:
        typer.echo(f"skipped (they do not play {variant}): {', '.join(r.label for r in skipped)}")
    rows: list[list[str]] = []
    beaten: Rung | None = None
    stop = ""
    failure: ArenaError | None = None
    with Store(db) as store:
        for rung in rungs:
            if same_bot(new, rung.bot):
                rows.append([rung.label, "-", "-", "-", "the climber itself"])
                stop = f"the next rung, {rung.label}, is {new} itself"
                break
            plan = rung_plan(template, rung)
            view = ProgressView(plan.title, quiet=quiet)
            executor = cluster_executor(cluster, (), view) if cluster else None
            with closing(executor) if executor else nullcontext(), \
                    view.closing(lambda: f"finished matches are kept in {db}. Run the same command again to resume."):
                try:
                    result = run_test(plan, store, view, _printer(view), workers=workers, concurrency=concurrency,
                                      executor=executor)
                except ArenaError as failed:  # the rungs climbed so far are still shown
                    failure = failed
            if failure is not None:
                rows.append([rung.label, "-", "-", "-", "error"])
                break
            low, high = result.interval
            rows.append([rung.label, str(result.deals), f"{result.score:.3f}", f"{low:.3f} to {high:.3f}",
                         result.verdict])
            if result.verdict != "better":
                stop = (f"not better than {rung.label} by the margin {margin:g}" if result.verdict == "not better"
                        else f"undecided against {rung.label} after {result.deals} deals (--max-deals)")
                break
            beaten = rung
    typer.echo(tabulate(rows, headers=["rung", "deals", "score", "interval", "verdict"]))
    if failure is not None:
        raise fail(f"{rows[-1][0]}: {failure}")
    reached = f"better than {beaten.label}" if beaten else "not shown better than any rung"
    if beaten is not None and beaten == rungs[-1]:
        typer.echo(f"{new} is better than every rung: the top is {beaten.label}")
    else:
        typer.echo(f"{new} is {reached}; {stop}")
