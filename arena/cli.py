"""The ``arena`` command line."""

from __future__ import annotations

import json
import random
import secrets
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import trio
import typer
from tabulate import tabulate

from arena import __version__
from arena.botspec import ManifestError, find_bot
from arena.cards import CardError, parse_cards
from arena.referee import FaultPolicy, MatchResult, TimeControl, open_bots, play_match
from arena.rules import RulesError, Variant, get_variant, parse_option_pairs, variants
from arena.rules.game import rank_placements
from arena.rules.hands import HandValue, format_value
from arena.sandbox import LAYERS, Sandbox, SandboxError, report_rows

app = typer.Typer(
    help="Thirty-One Arena: referee, sandbox and tournaments for Thirty-One card game bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

P = ParamSpec("P")
R = TypeVar("R")

OptionPairs = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help="Override a rules option, NAME=VALUE (repeatable); see `arena variants V`."),
]


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn the arena's own errors into one clear line on stderr and exit status 2."""

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except (RulesError, CardError, ManifestError, SandboxError) as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None

    return wrapper


def _version(value: bool) -> None:
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Thirty-One Arena."""


@app.command("variants")
@user_errors
def list_variants(
    name: Annotated[str | None, typer.Argument(help="Show every option of this variant.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """List the variants: players, description and options with their defaults."""
    chosen = [get_variant(name)] if name else list(variants().values())
    if as_json:
        typer.echo(json.dumps([_variant_dict(v) for v in chosen], indent=2))
        return
    if name is None:
        rows = [
            [v.name, f"{v.min_players}-{v.max_players}", _preset_text(v), v.description] for v in chosen
        ]
        typer.echo(tabulate(rows, headers=["variant", "players", "options set", "description"]))
        typer.echo("\n`arena variants NAME` lists every option of a variant with its default.")
        return
    variant = chosen[0]
    typer.echo(f"{variant.name} ({variant.min_players}-{variant.max_players} players, "
               f"{variant.family.name} family): {variant.description}\n")
    defaults = variant.defaults()
    rows = [
        [spec.name, spec.format(defaults[spec.name]), spec.describe_values(), spec.doc]
        for spec in variant.family.options
    ]
    typer.echo(tabulate(rows, headers=["option", "default", "values", "meaning"]))


def _preset_text(variant: Variant) -> str:
    specs = {s.name: s for s in variant.family.options}
    return ", ".join(f"{k}={specs[k].format(v)}" for k, v in variant.resolve(variant.preset).items()
                     if k in variant.preset) or "-"


def _variant_dict(variant: Variant) -> dict[str, Any]:
    specs = variant.family.options
    defaults = variant.defaults()
    return {
        "name": variant.name,
        "family": variant.family.name,
        "players": [variant.min_players, variant.max_players],
        "description": variant.description,
        "options": {s.name: {"default": defaults[s.name], "values": s.describe_values(), "doc": s.doc}
                    for s in specs},
    }


@app.command("hand")
@user_errors
def hand(
    hands: Annotated[list[str], typer.Argument(help='One or more hands, e.g. "Ah Kh Th" "9s 5s Jd".')],
    variant: Annotated[str, typer.Option("--variant", "-v", help="Variant whose values apply.")] = "scat",
    option: OptionPairs = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object.")] = False,
) -> None:
    """Value hands under a variant's rules and, for several, say which beats which.

    Hands are ranked by the comparison that decides who loses a round (in the scat
    family: value alone); where the highest-hand tie-break would split equal values,
    that is shown too.
    """
    game = get_variant(variant)
    options = parse_option_pairs(option or [])
    values = [game.evaluate(parse_cards(text), options) for text in hands]
    ranks = rank_placements([v.low_key for v in values])
    if as_json:
        items = [{"hand": _names(parse_cards(t)), **v.to_dict()} for t, v in zip(hands, values)]
        if len(values) == 1:
            typer.echo(json.dumps({"variant": game.name, **items[0]}))
        else:
            for item, rank in zip(items, ranks):
                item["rank"] = rank
            typer.echo(json.dumps({"variant": game.name, "hands": items}))
        return
    if len(values) == 1:
        v = values[0]
        typer.echo(f"{format_value(v.value)}  {v.label}: {' '.join(map(str, v.cards))}")
        return
    rows = [[rank, " ".join(_names(parse_cards(t))), format_value(v.value), v.label, " ".join(map(str, v.cards))]
            for t, v, rank in sorted(zip(hands, values, ranks), key=lambda x: x[2])]
    typer.echo(tabulate(rows, headers=["rank", "hand", "value", "kind", "made by"]))
    typer.echo("")
    for line in _comparisons(hands, values):
        typer.echo(line)


def _names(cards: list[Any]) -> list[str]:
    return [str(c) for c in cards]


def _comparisons(hands: list[str], values: list[HandValue]) -> list[str]:
    lines = []
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            a, b = values[i], values[j]
            na, nb = (" ".join(_names(parse_cards(h))) for h in (hands[i], hands[j]))
            if a.low_key == b.low_key:
                line = f"{na} ties {nb}"
                if a.high_key != b.high_key:
                    winner = na if a.high_key > b.high_key else nb
                    line += f" (when the highest hand is sought, {winner} wins the tie-break)"
            else:
                hi, lo = (na, nb) if a.low_key > b.low_key else (nb, na)
                line = f"{hi} beats {lo}"
            lines.append(line)
    return lines


@app.command("demo")
@user_errors
def demo(
    matches: Annotated[int, typer.Option(help="Matches per variant.", min=1)] = 20,
    players: Annotated[int, typer.Option(help="Players at each table.", min=2, max=9)] = 4,
    seed: Annotated[int, typer.Option(help="Base seed; match i uses seed + i.")] = 1,
) -> None:
    """Play seeded in-process matches of every variant with random players and summarise them."""
    rows = []
    for game in variants().values():
        start = time.perf_counter()
        decisions = rounds = 0
        wins = [0] * players
        for i in range(matches):
            rng = random.Random(seed + i)
            state = game.new_match(players, seed=seed + i)
            while not state.is_over:
                state.apply(rng.choice(state.legal_actions()))
                decisions += 1
            assert state.outcome is not None
            rounds += state.outcome.rounds
            for s in state.outcome.winners:
                wins[s] += 1
        elapsed = time.perf_counter() - start
        rows.append([game.name, matches, f"{rounds / matches:.1f}", f"{decisions / matches:.0f}",
                     " ".join(map(str, wins)), f"{decisions / elapsed:,.0f}"])
    typer.echo(f"{matches} random-play matches per variant, {players} players, seeds {seed}..{seed + matches - 1}")
    typer.echo(tabulate(rows, headers=["variant", "matches", "rounds/match", "decisions/match",
                                       "wins by seat", "decisions/s"]))


@app.command("match")
@user_errors
def match(
    variant: Annotated[str, typer.Option("--variant", "-v", help="Variant to play (`arena variants`).")],
    bot: Annotated[
        list[str],
        typer.Option("--bot", "-b", help="A bot per seat, in seat order: a folder, or a bundled or installed "
                     "bot's name (repeat for each seat, 2 or more)."),
    ],
    seed: Annotated[int | None, typer.Option(help="Match seed (default: a random one, printed).")] = None,
    option: OptionPairs = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    log: Annotated[Path | None, typer.Option(help="Write the full match record (with its log) to this file.")] = None,
    move_ms: Annotated[int, typer.Option(help="Time per decision, ms.", min=1)] = 1000,
    bank_ms: Annotated[int, typer.Option(help="Time bank for overruns, ms.", min=0)] = 10_000,
    policy: Annotated[str, typer.Option(help="Fault policy: forfeit, or substitute (random legal actions, "
                                        "disqualified after --strikes faults).")] = "forfeit",
    strikes: Annotated[int, typer.Option(help="Faults before disqualification under substitute.", min=1)] = 3,
    require: Annotated[str, typer.Option(help="Sandbox layers that must be active, comma-separated "
                                         f"({', '.join(LAYERS)}); see `arena doctor`.")] = "",
) -> None:
    """Play one match between bots, each in its own process, and show the result."""
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
        rules = FaultPolicy(policy, strikes)
    except ValueError as error:
        raise RulesError(str(error)) from None
    seed = secrets.randbits(63) if seed is None else seed
    time_control = TimeControl(move_ms=move_ms, bank_ms=bank_ms)

    required = [name.strip() for name in require.split(",") if name.strip()]

    async def run() -> MatchResult:
        sandbox = await probe_sandbox(required)
        async with open_bots(manifests, time_control=time_control, sandbox=sandbox) as bots:
            return await play_match(game, bots, seed=seed, options=options, match_id=f"{game.name}-{seed}",
                                    time_control=time_control, policy=rules)

    result = trio.run(run)
    record = result.to_dict()
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(json.dumps(record) + "\n", encoding="utf-8")
    if as_json:
        record.pop("log")
        record["placements"] = result.outcome["placements"]
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
    typer.echo(f"{result.variant}, seed {result.seed}: {outcome['reason']} after {outcome['rounds']} rounds, "
               f"{result.decisions} decisions in {result.duration_s:.2f} s; sandbox: {', '.join(result.sandbox)}")
    rows = []
    for seat, label in enumerate(result.bots):
        timing = result.timings[seat]
        mean = timing.total_s / timing.decisions * 1000 if timing.decisions else 0.0
        rows.append([outcome["placements"][seat], seat, label, format_value(outcome["scores"][seat]),
                     timing.decisions, f"{mean:.2f}", f"{timing.max_s * 1000:.1f}"])
    rows.sort()
    typer.echo(tabulate(rows, headers=["place", "seat", "bot", "score", "decisions", "mean ms", "max ms"]))
    if result.faults:
        typer.echo("\nfaults:")
        typer.echo(tabulate([[f.seat, f.bot, f.kind, f.penalty, f.decision, f.detail] for f in result.faults],
                            headers=["seat", "bot", "fault", "penalty", "decision", "detail"]))


if __name__ == "__main__":  # pragma: no cover
    app(prog_name="arena")
