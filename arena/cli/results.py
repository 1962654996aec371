"""Commands that read the results store: ``table``, ``crosstable``, ``show``, ``export`` and
``rerate``.  They only print; what they print is computed in :mod:`arena.tournament.views`.

Longer than most modules: five commands, each a short function with the printing helpers
only it uses; splitting them would scatter one screenful of output code over files.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from tabulate import tabulate, tabulate_formats

from arena.cli._app import app, fail, user_errors
from arena.rules.hands import format_value
from arena.text import counted, printable
from arena.tournament.adjust import measure_luck, no_estimate
from arena.tournament.ratings import Environment, environment
from arena.tournament.stats import MIN_GROUPS
from arena.tournament.store import DEFAULT_DB
from arena.tournament.views import (
    EXPORT_FIELDS,
    STANDING_FIELDS,
    Crosstable,
    Replay,
    Standing,
    check_variant,
    crosstable,
    export_rows,
    labels,
    open_store,
    pick_tournament,
    ranking_groups,
    replay,
    rerate,
    score_share,
    standings,
)

Db = Annotated[
    Path, typer.Option("--db", envvar="ARENA_DB", help="The results database (or set ARENA_DB).")
]
Tournament = Annotated[
    str | None, typer.Option("--tournament", "-t", help="Tournament name (default: the most recently updated one).")
]
VariantFilter = Annotated[
    str | None, typer.Option("--variant", "-v", help="Only this variant's matches, rated on their own.")
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
Csv = Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")]


def _machine_output(as_json: bool, as_csv: bool) -> None:
    if as_json and as_csv:
        raise fail("--json and --csv exclude each other: choose one")


def _write_csv(out: TextIO, fields: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> int:
    """CSV with a header line; returns the number of rows written."""
    writer = csv.DictWriter(out, fieldnames=list(fields), lineterminator="\n")
    writer.writeheader()
    count = 0
    for row in rows:
        writer.writerow(row)
        count += 1
    return count


def _scope_line(tournament: str, variant: str | None, matches: int) -> str:
    scope = f"variant {variant}" if variant else "all variants"
    return f"tournament {tournament}, {scope}: {counted(matches, 'match')}"


# -- table --------------------------------------------------------------------------------

TABLE_HEADERS = ("rank", "bot", "version", "rating", "mu", "95% interval", "ranks", "ahead of next", "matches",
                 "wins", "avg place", "faults")


@app.command("table")
@user_errors
def table(
    tournament: Tournament = None,
    variant: VariantFilter = None,
    db: Db = DEFAULT_DB,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Table style: any tabulate format "
                                     "(github, rounded_outline, simple, ...).")] = "simple",
    as_json: Json = False,
    as_csv: Csv = False,
    luck: Annotated[bool, typer.Option("--luck", help="Intervals, ranks and odds from luck-adjusted comparisons "
                                       "(measured once per match and stored; they gain most in the three-card "
                                       "games). Ratings and placements stay as played.")] = False,
) -> None:
    """Rank a tournament's bots by conservative TrueSkill rating (mu - 3 sigma), with how sure the order is.

    One line per bot version: its rating and mu; the 95% interval of mu and the ranks it
    could hold, from resampling whole deals; how sure the data are that it is stronger
    than the next line (`?`: not yet separated); matches played, wins (first places,
    shared ones included), average placement and faults.  Ratings share a rank when equal
    to two decimals.  With --variant, only that variant's matches count and are rated.
    docs/RANKING.md explains every number.
    """
    _machine_output(as_json, as_csv)
    if fmt not in tabulate_formats:
        raise fail(f"unknown table format {fmt!r}; choose one of: {', '.join(tabulate_formats)}")
    if not (as_json or as_csv):
        print_table(db, tournament, variant, fmt, luck=luck)
        return
    name, rows, matches, groups, fitted = _ranking(db, tournament, variant, luck)
    if as_json:
        typer.echo(json.dumps({"tournament": name, "variant": variant, "matches": matches, "deal_groups": groups,
                               "luck_adjusted": luck,
                               "environment": fitted.to_dict() if rows else None,
                               "standings": [r.to_dict() for r in rows]}, indent=2))
    else:
        _write_csv(sys.stdout, STANDING_FIELDS, (r.to_dict() for r in rows))


def print_table(db: Path, tournament: str | None = None, variant: str | None = None, fmt: str = "simple", *,
                luck: bool = False) -> None:
    """Print a tournament's ranking (default: the latest) as `arena table` does, with the
    line naming it; the tournament commands end with it."""
    name, rows, matches, groups, fitted = _ranking(db, tournament, variant, luck)
    typer.echo(_scope_line(name, variant, matches))
    if not rows:
        typer.echo("no matches stored yet")
        return
    typer.echo(tabulate([_table_row(r) for r in rows], headers=TABLE_HEADERS, tablefmt=fmt, floatfmt=".2f",
                        disable_numparse=[1, 2, 5, 6, 7]))
    for line in _uncertainty_notes(rows, groups, luck):
        typer.echo(line)
    if luck:
        with open_store(db) as store:
            raw = [why for v in store.variants(name) if (variant in (None, v)) and (why := no_estimate(v))]
        for why in raw:
            typer.echo(f"{why}: its matches count with their raw scores.")
    typer.echo(fitted.describe() + ".")


def _uncertainty_notes(rows: list[Standing], groups: int, luck: bool = False) -> list[str]:
    """What the intervals rest on, and which neighbours the data cannot yet order."""
    names = [r.version.bot for r in rows]
    unsure = [f"{names[k]} / {names[k + 1]}" for k, r in enumerate(rows) if r.separated is False]
    independent = counted(groups, "independent deal group")
    if groups < MIN_GROUPS:
        return ["", f"only {independent}: too few to say how sure this order is (at least {MIN_GROUPS} needed); "
                    "play more deals."]
    adjusted = ", the cards' luck taken out" if luck else ""
    lines = ["", f"intervals and ranks: 95%, resampling whole deals ({independent}){adjusted}."]
    if len(rows) < 2:
        return lines
    if unsure:
        lines.append(f"not yet separated (? above): {', '.join(unsure)}; more deals would tell.")
    else:
        lines.append("every line is ahead of the next at 95%.")
    return lines


def _ranking(db: Path, tournament: str | None, variant: str | None,
             luck: bool = False) -> tuple[str, list[Standing], int, int, Environment]:
    """The tournament's name, its standings, how many matches and deal groups they rest on,
    and the TrueSkill settings fitted to them."""
    with open_store(db) as store:
        name = pick_tournament(store, tournament)
        if luck:
            measure_luck(store, name, variant, _luck_progress)
        return (name, standings(store, name, variant, luck=luck), store.count(name, variant),
                ranking_groups(store, name, variant), environment(store, name, variant))


def _luck_progress(looked: int, of: int) -> None:
    """A line on stderr as the luck of matches not yet measured is measured, and one per
    batch of them: the first look at a large tournament replays every match (it is
    stored, so the next look is quick)."""
    if of:
        typer.echo(f"measuring the cards' luck once (it is stored): {looked} of {counted(of, 'match')} done",
                   err=True)


def _table_row(row: Standing) -> list[object]:
    version = row.version
    return [
        row.rank, version.bot, f"{version.manifest.get('version', '?')} {version.hash[:8]}",
        row.rating.conservative, row.rating.mu,
        row.interval_text,
        _rank_text(row.ranks), _ahead_text(row), row.matches, row.wins, row.average_placement, row.faults,
    ]


def _rank_text(ranks: tuple[int, int] | None) -> str:
    if ranks is None:
        return "-"
    return str(ranks[0]) if ranks[0] == ranks[1] else f"{ranks[0]}-{ranks[1]}"


def _ahead_text(row: Standing) -> str:
    if row.ahead_of_next is None:
        return ""
    return f"{_percent(row.ahead_of_next)}{'' if row.separated else ' ?'}"


# -- crosstable ---------------------------------------------------------------------------

CROSSTABLE_FIELDS = ("bot", "opponent", "wins", "ties", "losses", "share", "stronger")


@app.command("crosstable")
@user_errors
def crosstable_command(
    tournament: Tournament = None,
    variant: VariantFilter = None,
    db: Db = DEFAULT_DB,
    share: Annotated[bool, typer.Option("--share", help="Cells show the row bot's score share in percent "
                                        "(a tie counts half) instead of wins-ties-losses.")] = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Head-to-head results: how often each bot placed better than, level with, or worse
    than each other bot it sat at a table with, and how likely it is the stronger.

    Every pair of seats at a table is one meeting, so a four-player match counts for each
    of the six pairs in it.  Rows and columns follow the ranking of `arena table`.
    """
    _machine_output(as_json, as_csv)
    with open_store(db) as store:
        name = pick_tournament(store, tournament)
        result = crosstable(store, name, variant)
        matches = store.count(name, variant)
        groups = ranking_groups(store, name, variant)
    pairs = list(_pairs(result))
    if as_json:
        typer.echo(json.dumps({"tournament": name, "variant": variant, "matches": matches,
                               "bots": list(labels(result.versions).values()), "pairs": pairs}, indent=2))
    elif as_csv:
        _write_csv(sys.stdout, CROSSTABLE_FIELDS, pairs)
    else:
        typer.echo(_scope_line(name, variant, matches))
        typer.echo(tabulate(_matrix(result, share), headers=_matrix_headers(result), disable_numparse=True))
        typer.echo("\ncell: the row bot's " + ("score share against the column bot (a tie counts half)" if share
                   else "wins-ties-losses against the column bot (placed better, same, worse)")
                   + ("; (in brackets) how likely the row bot is the stronger, resampling whole deals"
                      if result.stronger else f"; how likely either is the stronger shows from {MIN_GROUPS} "
                      f"independent deals on ({groups} so far)")
                   + "; total: its share against everyone; . = never met")


def _pairs(result: Crosstable) -> Iterator[dict[str, Any]]:
    names = labels(result.versions)
    for a in result.versions:
        for b in result.versions:
            record = result.record(a.id, b.id)
            if record is not None:
                yield {"bot": names[a.id], "opponent": names[b.id], "wins": record[0], "ties": record[1],
                       "losses": record[2], "share": round(score_share(record), 4),
                       "stronger": _rounded(result.stronger.get((a.id, b.id)))}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _matrix_headers(result: Crosstable) -> list[str]:
    return ["#", "bot", *(str(i) for i in range(1, len(result.versions) + 1)), "total"]


def _matrix(result: Crosstable, share: bool) -> list[list[object]]:
    names = labels(result.versions)
    rows: list[list[object]] = []
    for i, a in enumerate(result.versions, 1):
        cells: list[object] = [i, names[a.id]]
        wins = ties = losses = 0
        for b in result.versions:
            record = result.record(a.id, b.id)
            if a.id == b.id:
                cells.append("-")
            elif record is None:
                cells.append(".")
            else:
                wins, ties, losses = wins + record[0], ties + record[1], losses + record[2]
                shown = _percent(score_share(record)) if share else "-".join(map(str, record))
                odds = result.stronger.get((a.id, b.id))
                cells.append(shown if odds is None else f"{shown} ({_percent(odds)})")
        cells.append(_percent(score_share((wins, ties, losses))) if wins + ties + losses else ".")
        rows.append(cells)
    return rows


def _percent(share: float) -> str:
    return f"{100 * share:.0f}%"


# -- show ---------------------------------------------------------------------------------

SEAT_FIELDS = frozenset({"dealer", "knocker", "stopper", "caller", "winner"})
"""Event fields holding one seat number, printed as that seat and its bot."""
SEAT_LIST_FIELDS = frozenset({"eliminated", "blitz", "winners", "losers"})
"""Event fields holding a list of seat numbers."""


@app.command("show")
@user_errors
def show(
    match_id: Annotated[str, typer.Argument(metavar="MATCH", help="A match id (`arena export` lists them).")],
    db: Db = DEFAULT_DB,
    seat: Annotated[int | None, typer.Option("--seat", "-s", help="Show only what this seat saw during play.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the match and its log as JSON.")] = False,
) -> None:
    """Replay a stored match round by round: the deal, every action, each round's end and
    the final placements and faults.

    After the match a spectator sees everything, every hand included; --seat N shows the
    match as seat N saw it while playing (its own cards, everyone's public moves).
    """
    with open_store(db) as store:
        shown = replay(store, match_id, seat)
    if as_json:
        typer.echo(json.dumps(_replay_dict(shown), indent=2))
        return
    for line in _replay_lines(shown):
        typer.echo(line)


def _replay_dict(shown: Replay) -> dict[str, Any]:
    match = shown.match
    return {
        "id": match.id, "tournament": match.tournament, "variant": match.variant, "options": match.options,
        "seed": match.seed if match.deal is None else None, "deal": match.deal, "reason": match.reason,
        "rounds": match.rounds, "decisions": match.decisions,
        "sandbox": match.sandbox, "duration_s": match.duration_s, "finished": _when(match.finished),
        "seats": [{"seat": i, "bot": v.bot, "hash": v.hash, "label": v.label, "placement": s.placement,
                   "score": s.score, "faults": s.faults, "decisions": s.decisions, "think_s": s.think_s}
                  for i, (v, s) in enumerate(zip(shown.versions, match.seats))],
        "faults": match.faults, "viewer": shown.viewer, "log": shown.events,
    }


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def _replay_lines(shown: Replay) -> Iterator[str]:
    match = shown.match
    names = labels(shown.versions)

    def who(seat: int) -> str:
        return f"seat {seat} ({names[shown.versions[seat].id]})"

    options = ", ".join(f"{k}={_text(v)}" for k, v in match.options.items()) or "the variant's defaults"
    yield f"match {match.id}"
    dealt = f"seed {match.seed}" if match.deal is None else f"deal {match.deal} of the tournament's secret key"
    yield f"tournament {match.tournament}, variant {match.variant} ({options}), {dealt}"
    yield f"played {_when(match.finished)} in {match.duration_s:.2f} s, sandbox: {', '.join(match.sandbox) or 'none'}"
    for i, version in enumerate(shown.versions):
        yield f"  {who(i)}: {version.label} {version.hash[:8]}"
    yield ("as a spectator sees it after the match" if shown.viewer is None
           else f"as {who(shown.viewer)} saw it during play")
    for event in shown.events:
        yield from _event_lines(event, who)
    yield ""
    yield f"result: {match.reason} after {counted(match.rounds, 'round')}, {counted(match.decisions, 'decision')}"
    placed = sorted(enumerate(match.seats), key=lambda item: (item[1].placement, item[0]))
    rows = [[s.placement, i, names[shown.versions[i].id], format_value(s.score), s.faults, s.decisions,
             1000 * s.think_s / s.decisions if s.decisions else None] for i, s in placed]
    yield tabulate(rows, floatfmt=".2f", missingval="-", disable_numparse=[2],
                   headers=["place", "seat", "bot", "score", "faults", "decisions", "mean ms"])
    if match.faults:
        yield "\nfaults:"
        rows = [[f.get("seat"), f.get("kind"), f.get("penalty"), f.get("decision"), printable(f.get("detail", ""))]
                for f in match.faults]
        yield tabulate(rows, headers=["seat", "fault", "penalty", "decision", "detail"])


def _event_lines(event: Mapping[str, Any], who: Callable[[int], str]) -> Iterator[str]:
    """An event as text: the kinds every family shares in their own form, any other kind
    as ``kind: key value · ...`` so new families print without changes here."""
    kind = str(event.get("event", "?"))
    seat = event.get("seat")
    fields = {k: v for k, v in event.items() if k not in ("event", "seat", "private")}
    private: Mapping[str, Mapping[str, Any]] = event.get("private", {})
    subject = who(seat) if isinstance(seat, int) else ""
    if kind == "round_start":
        yield ""
        yield f"Round {fields.pop('round', '?')}: {_fields(fields, who)}"
    elif kind == "action":
        text = fields.pop("action", "?")
        extra = _fields(fields, who)
        own = {int(s): p for s, p in private.items()}.get(seat if isinstance(seat, int) else -1, {})
        if "action" in own:  # what only the actor saw of its own action (Skat's discard): said as its action
            text = f"{own['action']} (the others saw: {text})"
            private = {s: {k: v for k, v in p.items() if k != "action"} for s, p in private.items()}
        hidden = [("" if int(s) == seat else f"{who(int(s))} ") + _fields(p, who) for s, p in private.items() if p]
        yield (f"  {subject}: {text}" + (f" · {extra}" if extra else "")
               + "".join(f" [{h}]" for h in hidden))
    elif kind == "round_end":
        hands = fields.pop("hands", {})
        values = fields.pop("values", {})
        end = fields.pop("end", None)
        yield f"round end{f' ({end})' if end else ''}: {_fields(fields, who)}"
        for s, cards in hands.items():
            value = f" = {_text(values[s])}" if s in values else ""
            yield f"  {who(int(s))} shows {_text(cards)}{value}"
    elif kind == "match_end":
        yield ""
        rounds = fields.get("rounds")
        played = counted(rounds, "round") if isinstance(rounds, int) else "? rounds"
        yield f"match end: {fields.get('reason', '?')} after {played}"
    else:
        heading = f"{kind} {subject}".rstrip()
        yield f"{heading}: {_fields(fields, who)}" if fields else heading
    if kind != "action":
        for s, part in private.items():
            yield f"  {who(int(s))}: {_fields(part, who)}"


def _fields(fields: Mapping[str, Any], who: Callable[[int], str]) -> str:
    """``key value · key value``, seat numbers named with their bot."""
    parts = []
    for key, value in fields.items():
        if key in SEAT_FIELDS and isinstance(value, int):
            text = who(value)
        elif key in SEAT_LIST_FIELDS and isinstance(value, list):
            text = ", ".join(who(s) for s in value) or "none"
        else:
            text = _text(value)
        parts.append(f"{key.replace('_', ' ')} {text}")
    return " · ".join(parts)


def _text(value: Any) -> str:
    """A log value as text: lists space-separated (cards, per-seat numbers), numbers as the
    rules write them."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format_value(value)
    if value is None:
        return "-"
    if isinstance(value, list):
        return " ".join(_text(v) for v in value) or "-"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_text(v)}" for k, v in value.items()) or "-"
    return str(value)


# -- export -------------------------------------------------------------------------------


@app.command("export")
@user_errors
def export(
    tournament: Annotated[str | None, typer.Option("--tournament", "-t", help="Only this tournament "
                                                   "(default: every tournament).")] = None,
    variant: VariantFilter = None,
    db: Db = DEFAULT_DB,
    fmt: Annotated[str, typer.Option("--format", "-f", help="jsonl (one JSON object a line) or csv.")] = "jsonl",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file "
                                                "(default: standard output).")] = None,
    logs: Annotated[bool, typer.Option("--logs", help="jsonl only: add each match's full event log to its "
                                       "seat 0 row.")] = False,
) -> None:
    """Write the results for other tools: one row per seat of every stored match.

    Columns: match, tournament, variant, seed, seat, bot, hash (the version), label
    (bot@version), placement, score, faults, decisions, think_s, reason, rounds, finished
    (UTC).  Rows come in schedule order.
    """
    if fmt not in ("jsonl", "csv"):
        raise fail(f"unknown export format {fmt!r}; choose jsonl or csv")
    if logs and fmt != "jsonl":
        raise fail("--logs needs --format jsonl (a CSV cell cannot hold a log)")
    with open_store(db) as store:
        name = None if tournament is None else pick_tournament(store, tournament)
        if name is not None:
            check_variant(store, name, variant)
        with _destination(output) as out:
            rows = export_rows(store, name, variant, logs=logs)
            count = _write_csv(out, EXPORT_FIELDS, rows) if fmt == "csv" else _write_jsonl(out, rows)
    if output is not None:
        typer.echo(f"wrote {count} rows to {output}", err=True)


@contextmanager
def _destination(output: Path | None) -> Iterator[TextIO]:
    if output is None:
        yield sys.stdout
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("w", encoding="utf-8", newline="") as out:
        yield out


def _write_jsonl(out: TextIO, rows: Iterable[Mapping[str, Any]]) -> int:
    count = 0
    for row in rows:
        out.write(json.dumps(row, separators=(",", ":")) + "\n")
        count += 1
    return count


# -- rerate -------------------------------------------------------------------------------


@app.command("rerate")
@user_errors
def rerate_command(
    tournament: Annotated[str | None, typer.Option("--tournament", "-t", help="Only this tournament "
                                                   "(default: every tournament).")] = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Recompute every rating from the stored matches, overall and per variant.

    Ratings are a cache of the matches, updated as they are played; this rebuilds the
    cache from scratch (after a TrueSkill environment change, or to check it).
    """
    with open_store(db) as store:
        names = [pick_tournament(store, tournament)] if tournament else [t for t, _, _ in store.tournaments()]
        if not names:
            typer.echo(f"no tournaments in {db}: nothing to rate")
        for name in names:
            rated = rerate(store, name)
            per_variant = ", ".join(f"{v} {n}" for v, n in rated.items() if v is not None)
            typer.echo(f"{name}: {rated[None]} matches rated" + (f" ({per_variant})" if per_variant else ""))
