"""Commands about the rules: ``variants``, ``hand`` and ``replay``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from tabulate import tabulate

from arena.cards import parse_cards
from arena.cli._app import OptionPairs, app, fail, user_errors
from arena.lightjson import json_loads_bounded
from arena.rules import Variant, get_variant, parse_option_pairs, variants
from arena.rules.hands import HandValue, format_value
from arena.rules.scenario import MAX_DEPTH, Replay, Scenario, ScenarioError, replay
from arena.text import counted


@app.command("variants")
@user_errors
def list_variants(
    name: Annotated[str | None, typer.Argument(metavar="NAME", help="Show every option of this variant.")] = None,
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
    hands: Annotated[list[str], typer.Argument(metavar="HANDS", help='One or more hands, e.g. "Ah Kh Th" "9s 5s Jd".')],
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
    ranks = [1 + sum(v.loses_to(other) for other in values) for v in values]
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
            if not a.loses_to(b) and not b.loses_to(a):
                line = f"{na} ties {nb}"
                if a.loses_to(b, highest=True) or b.loses_to(a, highest=True):
                    winner = nb if a.loses_to(b, highest=True) else na
                    line += f" (when the highest hand is sought, {winner} wins the tie-break)"
            else:
                hi, lo = (na, nb) if b.loses_to(a) else (nb, na)
                line = f"{hi} beats {lo}"
            lines.append(line)
    return lines


@app.command("replay")
@user_errors
def replay_scenarios(
    files: Annotated[list[Path], typer.Argument(
        metavar="FILES", help="Scenario files (JSON; docs/RULES-NOTES.md, 'Scenario files').", exists=True,
        dir_okay=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per file.")] = False,
) -> None:
    """Play a match written down as a scenario file and print each round's result and the outcome.

    A scenario gives the variant, options, number of players, the deck of each deal (top
    card first) and every action in the protocol's text form, optionally with the results
    it expects: the way to check a ruling or to report a bug with a file.  Exit status 0
    when every expectation is met, 1 when one is not, 2 when a file cannot be played.
    """
    unmet = 0
    for path in files:
        try:
            data = json_loads_bounded(path.read_text(encoding="utf-8"), MAX_DEPTH)
        except (OSError, ValueError) as error:  # ValueError: UnicodeDecodeError too
            raise fail(f"{path}: not a readable JSON file ({error})") from None
        try:
            scenario = Scenario.from_dict(data)
            result = replay(scenario)
        except ScenarioError as error:
            raise fail(f"{path}: {error}") from None
        unmet += bool(result.mismatches)
        if as_json:
            typer.echo(json.dumps({"file": str(path), **result.to_dict()}))
        else:
            typer.echo(_replay_text(path, scenario, result))
    if unmet:
        raise typer.Exit(1)


def _replay_text(path: Path, scenario: Scenario, result: Replay) -> str:
    state = result.state
    title = f"{path}: {state.variant.name}, {state.players} players"
    lines = [title + (f" ({scenario.name})" if scenario.name else "")]
    for number, end in enumerate(result.rounds, 1):
        lines.append("")
        lines.append(_round_text(number, end, state.players))
    lines.append("")
    if result.outcome:
        o = result.outcome
        lines.append(f"match over after {counted(o.rounds, 'round')} ({o.reason}): placements {list(o.placements)}, "
                     f"scores {[format_value(s) for s in o.scores]}")
    else:
        legal = ", ".join(str(a) for a in state.legal_actions())
        lines.append(f"match not over: seat {state.to_move} to move (legal: {legal})")
    if result.mismatches:
        lines.extend(f"NOT AS EXPECTED: {m}" for m in result.mismatches)
    elif scenario.expect:
        lines.append("every expectation met")
    return "\n".join(lines)


def _round_text(number: int, end: Mapping[str, Any], players: int) -> str:
    """A round_end as a header of its scalar facts and a table of its per-seat ones."""
    header, columns = [f"round {number}"], {}
    for key, value in end.items():
        if isinstance(value, dict) and value and all(k.isdigit() for k in value):
            columns[key] = [value.get(str(s), "") for s in range(players)]
        elif isinstance(value, list) and len(value) == players and key not in ("specials", "eliminated"):
            columns[key] = value
        elif value not in (None, [], False):
            header.append(f"{key}: {value}")
    rows = [[s, *(_cell(columns[k][s]) for k in columns)] for s in range(players)]
    return "  ".join(header) + "\n" + tabulate(rows, headers=["seat", *columns])


def _cell(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(map(str, value))
    return format_value(value) if isinstance(value, float) else str(value)
