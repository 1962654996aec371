"""Commands that play: ``match`` (one match between bot processes), ``doctor`` and ``new-bot``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import trio
import typer
from tabulate import tabulate

from arena.botspec import find_bot
from arena.cards import Seed
from arena.cli._app import OptionPairs, app, user_errors
from arena.deals import new_key, opaque_id, parse_key
from arena.referee import Clock, FaultPolicy, MatchResult, PolicyMode, TimeControl, open_bots, play_match
from arena.rules import RulesError, get_variant, parse_option_pairs
from arena.rules.hands import format_value
from arena.sandbox import LAYERS, Sandbox, report_rows
from arena.scaffold import new_bot
from arena.text import counted, printable
from arena.tournament.build import build


@app.command("match")
@user_errors
def match(
    variant: Annotated[str, typer.Option("--variant", "-v", help="Variant to play (`arena variants`).")],
    bot: Annotated[
        list[str],
        typer.Option("--bot", "-b", help="A bot per seat, in seat order: a folder, or a bundled or installed "
                     "bot's name (repeat for each seat, 2 or more)."),
    ],
    seed: Annotated[int | None, typer.Option(
        help="Deal from this public seed: the match can be replayed, and anyone who knows the seed knows "
             "every card (for examples and bug reports).", min=0, max=2**64 - 1)] = None,
    key: Annotated[str | None, typer.Option(
        help="Deal from this secret key (hex, at least 32 digits), as printed after an earlier match, to play "
             "its deals again.  Default: a fresh key from the operating system.")] = None,
    option: OptionPairs = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    log: Annotated[Path | None, typer.Option(help="Write the full match record (with its log) to this file.")] = None,
    move_ms: Annotated[int, typer.Option(help="Time per decision, ms.", min=1)] = 1000,
    bank_ms: Annotated[int, typer.Option(help="Time bank for overruns, ms.", min=0)] = 10_000,
    policy: Annotated[str, typer.Option(help="Fault policy: forfeit, or substitute (random legal actions, "
                                        "disqualified after --strikes faults).")] = "forfeit",
    strikes: Annotated[int, typer.Option(help="Faults before disqualification under substitute.", min=1)] = 3,
    ponder: Annotated[bool, typer.Option(help="Let bots think on others' turns (charged to their clock) "
                                         "instead of freezing them.")] = False,
    min_turn_ms: Annotated[int, typer.Option(help="Hold quicker replies back so that every decision takes at "
                                             "least this long: no bot can signal through its thinking time.",
                                             min=0)] = 0,
    clock: Annotated[Clock, typer.Option(help="What a decision is charged: cpu, the CPU time the bot used (where "
                                          "the sandbox counts it; the wall clock still stops it at 3x), or wall, "
                                          "the time from request to reply.")] = Clock.CPU,
    require: Annotated[str, typer.Option(help="Sandbox layers that must be active, comma-separated "
                                         f"({', '.join(LAYERS)}); see `arena doctor`.")] = "",
) -> None:
    """Play one match between bots, each in its own process, and show the result.

    The cards are dealt from a secret key that no bot sees (printed after the match, to
    replay it with `--key`), or from a public `--seed`."""
    game = get_variant(variant)
    if len(bot) < 2:
        raise RulesError("a match needs at least two --bot options, one per seat")
    game.check_players(len(bot))
    options = parse_option_pairs(option or [])
    game.resolve(options)  # refuse bad options before any bot starts
    manifests = [find_bot(ref) for ref in bot]
    for manifest in manifests:
        if not manifest.plays(game.name):
            plays = ", ".join(manifest.variants)
            raise RulesError(f"bot {manifest.label} does not play {game.name} (it plays: {plays})")
    try:
        rules = FaultPolicy(PolicyMode(policy), strikes)
    except ValueError:
        raise RulesError(f"--policy must be forfeit or substitute (and --strikes at least 1), not {policy!r} "
                         f"and {strikes}") from None
    if seed is not None and key is not None:
        raise RulesError("give --seed or --key, not both")
    deal: Seed = seed if seed is not None else parse_key(key) if key is not None else new_key()
    time_control = TimeControl(move_ms=move_ms, bank_ms=bank_ms, ponder=ponder, min_turn_ms=min_turn_ms, clock=clock)

    required = [name.strip() for name in require.split(",") if name.strip()]

    async def run() -> MatchResult:
        sandbox = await probe_sandbox(required)
        ready = []
        for manifest in manifests:  # a compiled bot is built first, in the sandbox
            if manifest.build:
                typer.echo(f"building {manifest.label}: {' '.join(manifest.build)}", err=True)
            ready.append(await build(manifest, sandbox))
        async with open_bots(ready, time_control=time_control, sandbox=sandbox) as bots:
            return await play_match(game, bots, seed=deal, options=options, match_id=opaque_id(deal, "match"),
                                    time_control=time_control, policy=rules)

    result = trio.run(run)
    record = result.to_dict()
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(json.dumps(record) + "\n", encoding="utf-8")
    if as_json:
        record.pop("log")
        record["placements"] = list(result.outcome.placements)
        typer.echo(json.dumps(record))
        return
    _print_match(result)


async def probe_sandbox(required: list[str]) -> Sandbox:
    """Every isolation layer that works here; refuse if a required one does not, warn once
    about the rest."""
    sandbox = await Sandbox.probe()
    sandbox.require(required)
    missing = sandbox.missing(LAYERS)
    if missing:
        names = ", ".join(s.name for s in missing)
        typer.echo(f"warning: bots run without sandbox layer(s) {names}; `arena doctor` says why", err=True)
    return sandbox


@app.command("doctor")
@user_errors
def doctor(
    require: Annotated[str, typer.Option(help="Exit with status 1 unless these layers (comma-separated) "
                                         "are active.")] = "",
) -> None:
    """Probe the sandbox: which isolation layers work on this machine, and why not the others."""
    sandbox = trio.run(Sandbox.probe)
    typer.echo(tabulate(report_rows(sandbox), headers=["layer", "active", "stops / why not"]))
    typer.echo(f"\nbots run with: {sandbox.python} (Python bots), layers: {', '.join(sandbox.active)}")
    missing = sandbox.missing([n.strip() for n in require.split(",") if n.strip()])
    if missing:
        typer.echo(f"missing required layer(s): {', '.join(s.name for s in missing)}", err=True)
        raise typer.Exit(1)


def _print_match(result: MatchResult) -> None:
    outcome = result.outcome
    dealt = f"key {result.seed.hex()}" if isinstance(result.seed, bytes) else f"seed {result.seed}"
    typer.echo(f"{result.variant}, {dealt}: {outcome.reason} after {counted(outcome.rounds, 'round')}, "
               f"{counted(result.decisions, 'decision')} in {result.duration_s:.2f} s; "
               f"sandbox: {', '.join(result.sandbox)}")
    rows = []
    for seat, label in enumerate(result.bots):
        timing = result.timings[seat]
        mean = timing.total_s / timing.decisions * 1000 if timing.decisions else 0.0
        rows.append([outcome.placements[seat], seat, label, format_value(outcome.scores[seat]),
                     timing.decisions, f"{mean:.2f}", f"{timing.max_s * 1000:.1f}"])
    rows.sort()
    typer.echo(tabulate(rows, headers=["place", "seat", "bot", "score", "decisions", "mean ms", "max ms"]))
    if result.faults:
        typer.echo("\nfaults:")
        rows = [[f.seat, f.bot, f.kind, f.penalty, f.decision, printable(f.detail)] for f in result.faults]
        typer.echo(tabulate(rows, headers=["seat", "bot", "fault", "penalty", "decision", "detail"]))


@app.command("new-bot")
@user_errors
def new_bot_command(
    name: Annotated[str, typer.Argument(metavar="NAME",
                                        help="The bot's name: lower-case letters, digits, '-', '_', '.'.")],
    lang: Annotated[str, typer.Option("--lang", "-l", help="python, c, js, rust or go.")] = "python",
    folder: Annotated[Path | None, typer.Option("--dir", help="Where to write it (default: ./NAME).")] = None,
    author: Annotated[str, typer.Option("--author", help="The manifest's author.")] = "",
) -> None:
    """Write a new bot folder that plays every variant legally: the fastest way into a tournament.

    The folder holds the manifest, the source (a Python module with the SDK's hooks, or a
    C or JavaScript program that speaks the protocol itself), the build step where there is
    one, and a README with the next commands: play a match, submit, enter a tournament.
    """
    target = folder or Path(name)
    new_bot(target, name, lang.lower(), author)
    ref = target.as_posix() if target.is_absolute() else f"./{target.as_posix()}"
    typer.echo(f"wrote {ref}/ ({', '.join(sorted(p.name for p in target.iterdir()))})")
    typer.echo(f"next: arena match -v scat -b {ref} -b random -b threshold   (then read {ref}/README.md)")
