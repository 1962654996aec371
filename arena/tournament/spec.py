"""Tournament files: TOML in, a validated :class:`TournamentSpec` out.

The format is documented in ``docs/TOURNAMENTS.md``; bundled examples are in
``tournaments/``.  msgspec checks the shape and types (unknown keys are refused);
this module checks the meaning (variants, options, table sizes, sandbox layers).  Every
error names the file, the line and what is wrong::

    tournaments/bad.toml:7: variant 'scta' is unknown; known variants: scat, ...
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Final, Literal

import msgspec

from arena.errors import ArenaError
from arena.luck import no_estimate
from arena.referee import Clock, FaultPolicy, PolicyMode, TimeControl
from arena.rules import RulesError, Variant, get_variant
from arena.sandbox import LAYERS, Limits
from arena.tomldepth import too_deep

__all__ = ["EntrantProblem", "Settle", "SpecError", "TournamentSpec", "VariantPlan", "check_cluster", "load_spec",
           "parse_spec"]

TOURNAMENTS_DIR: Final = Path(__file__).resolve().parents[2] / "tournaments"
"""The bundled tournament files."""

CLUSTER_ADDRESS: Final = re.compile(r"(tcp|tls)://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}")
"""A Dask scheduler's address: ``tcp://HOST:PORT`` or ``tls://HOST:PORT``."""

Positive = Annotated[int, msgspec.Meta(ge=1)]
NonNegative = Annotated[int, msgspec.Meta(ge=0)]


class SpecError(ArenaError, ValueError):
    """A tournament file that cannot be run; the message names the file and line."""


class _Time(msgspec.Struct, forbid_unknown_fields=True):
    move_ms: Positive = TimeControl.move_ms
    bank_ms: NonNegative = TimeControl.bank_ms
    first_move_ms: NonNegative = TimeControl.first_move_ms
    startup_ms: Positive = TimeControl.startup_ms
    ponder: bool = TimeControl.ponder
    min_turn_ms: NonNegative = TimeControl.min_turn_ms
    clock: Clock = TimeControl.clock


class _Limits(msgspec.Struct, forbid_unknown_fields=True):
    scratch_mb: Positive = Limits.scratch_mb
    scratch_files: Annotated[int, msgspec.Meta(ge=16)] = Limits.scratch_files


class _Faults(msgspec.Struct, forbid_unknown_fields=True):
    policy: Literal["forfeit", "substitute"] = "forfeit"
    strikes: Positive = 3


class _Pause(msgspec.Struct, forbid_unknown_fields=True):
    faulted: Positive = 5
    of: Positive = 20


class _Settle(msgspec.Struct, forbid_unknown_fields=True):
    confidence: Annotated[float, msgspec.Meta(gt=0.5, lt=1)] = 0.95
    max_matches: Positive = 5000
    luck: bool = False


class _Variant(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    tables: list[Annotated[int, msgspec.Meta(ge=2)]] = msgspec.field(default_factory=lambda: [4])
    options: dict[str, Any] = msgspec.field(default_factory=dict)


class _File(msgspec.Struct, forbid_unknown_fields=True):
    variant: list[_Variant]
    name: str | None = None
    description: str = ""
    entrants: list[str] = msgspec.field(default_factory=list)
    open: bool = False
    mode: Literal["round-robin", "gauntlet", "ladder"] = "round-robin"
    challenger: str | None = None
    authors_apart: bool | msgspec.UnsetType = msgspec.UNSET  # not None: an error would offer `null`, which TOML lacks
    deals: Positive = 2
    seed: NonNegative | None = None
    workers: NonNegative = 0
    concurrency: Positive = 4
    cluster: str | None = None
    require: list[str] = msgspec.field(default_factory=list)
    time: _Time = msgspec.field(default_factory=_Time)
    faults: _Faults = msgspec.field(default_factory=_Faults)
    limits: _Limits = msgspec.field(default_factory=_Limits)
    settle: _Settle | None = None
    pause: _Pause = msgspec.field(default_factory=_Pause)
    deadline: datetime.datetime | None = None


@dataclass(frozen=True)
class Pause:
    """A ladder pauses a version that faulted in ``faulted`` of its last ``of`` matches
    (it plays again once replaced by a new version of its bot)."""

    faulted: int = 5
    of: int = 20


@dataclass(frozen=True)
class Settle:
    """Keep adding deals until every pair of neighbours in the ranking is ordered at
    ``confidence`` (two-sided), or ``max_matches`` are stored."""

    confidence: float = 0.95
    max_matches: int = 5000
    luck: bool = False
    """Judge the order on luck-adjusted comparisons (:mod:`arena.tournament.adjust`)."""


@dataclass(frozen=True)
class VariantPlan:
    """One variant of a tournament: its rules, option overrides and table sizes."""

    variant: Variant
    options: dict[str, Any]
    tables: tuple[int, ...]


@dataclass(frozen=True)
class TournamentSpec:
    """A validated tournament: who plays, what, how often, and under which conditions."""

    name: str
    variants: tuple[VariantPlan, ...]
    entrants: tuple[str, ...] = ()
    """Bots named in the file (folders, bundled, installed or registered names)."""
    open: bool = False
    """Bots entered with ``arena submit --tournament NAME`` play too."""
    mode: str = "round-robin"
    challenger: str | None = None
    """Gauntlet mode: the bot that meets the field at every table."""
    authors_apart: bool | None = None
    """No table seats two bots of one author (they could collude); None: on unless every
    entrant has the same author (:func:`arena.tournament.scheduler.authors_apart`)."""
    deals: int = 2
    """Distinct deals per table of entrants; each is replayed in every seat rotation."""
    seed: int | None = None
    """Ignored (deals come from the tournament's secret key); kept so older files still load."""
    workers: int = 0
    """Referee worker processes; 0: one per core."""
    concurrency: int = 4
    """Matches played at once by each worker."""
    cluster: str | None = None
    """The Dask scheduler whose workers play the tables (``docs/CLUSTER.md``); None: local
    referee workers."""
    require: tuple[str, ...] = ()
    """Sandbox layers that must be active."""
    time: TimeControl = TimeControl()
    entrant_time: dict[str, TimeControl] = field(default_factory=dict)
    """Entrants (as named in ``entrants``) that play under a time control of their own:
    ``arena test``'s BASE at another budget (a strength ladder's rung), never a tournament's
    fairness."""
    policy: FaultPolicy = FaultPolicy()
    limits: Limits = Limits()
    """Each bot's resources (its scratch space's size and files)."""
    settle: Settle | None = None
    """Play on until the order is settled (``[settle]``), growing ``deals`` a step at a time
    (a competition, with a ``deadline``, always: at the defaults without ``[settle]``)."""
    pause: Pause = Pause()
    """When a ladder pauses a faulting version (``[pause]``)."""
    deadline: float | None = None
    """A competition: ``arena host`` takes entries until this moment (seconds since the
    epoch), then plays the tournament as its final and publishes the key that dealt it."""
    description: str = ""
    source: Path | None = None
    """The file it came from (relative bot folders are resolved against its folder)."""
    text: str = field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        if stray := [ref for ref in self.entrant_time if ref not in self.entrants]:
            raise SpecError(f"a time control of its own for {', '.join(stray)}: not among the entrants")

    def locate(self, *path: str | int) -> str:
        """``file:line`` of a key path such as ``("entrants", 2)``, for error messages."""
        return _where(self.source, self.text, list(path))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as the store records it."""
        return {
            "name": self.name, "description": self.description, "mode": self.mode, "challenger": self.challenger,
            "authors_apart": self.authors_apart, "entrants": list(self.entrants), "open": self.open,
            "deals": self.deals, "seed": self.seed,
            "variants": [{"name": p.variant.name, "options": p.options, "tables": list(p.tables)}
                         for p in self.variants],
            "time": self.time.to_dict(),
            "entrant_time": {ref: control.to_dict() for ref, control in self.entrant_time.items()},
            "faults": {"policy": self.policy.mode, "strikes": self.policy.strikes},
            "limits": {"scratch_mb": self.limits.scratch_mb, "scratch_files": self.limits.scratch_files},
            "require": list(self.require), "source": str(self.source) if self.source else None,
            "settle": None if self.settle is None else {"confidence": self.settle.confidence,
                                                         "max_matches": self.settle.max_matches,
                                                         "luck": self.settle.luck},
            "pause": {"faulted": self.pause.faulted, "of": self.pause.of}, "deadline": self.deadline,
        }


EntrantProblem = Callable[[str, str, Path | None], str | None]
"""What is wrong with an entrant's name in a tournament (its name, the entrant's name, the
file's folder); None for nothing."""


def load_spec(ref: str | Path, entrant_problem: EntrantProblem | None = None) -> TournamentSpec:
    """Read a tournament file: a path, or the name of a bundled one (``demo``); with
    ``entrant_problem``, each entrant's name is checked too (:func:`parse_spec`)."""
    path = Path(ref)
    if not path.is_file():
        bundled = TOURNAMENTS_DIR / f"{ref}.toml"
        if not bundled.is_file():
            known = ", ".join(sorted(p.stem for p in TOURNAMENTS_DIR.glob("*.toml")))
            raise SpecError(f"no tournament file {str(ref)!r} (bundled tournaments: {known})")
        path = bundled
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError(f"{path}: cannot read: {error}") from None
    return parse_spec(text, path, entrant_problem)


def parse_spec(text: str, source: Path | None = None,
               entrant_problem: EntrantProblem | None = None) -> TournamentSpec:
    """Validate a tournament file's text; :class:`SpecError` with file and line of every
    problem found, one a line (``entrant_problem`` says what is wrong with an entrant's or
    the challenger's name, given the file's folder, if anything: the file's author fixes
    every mistake in one go)."""
    _check_nesting(text, source)
    try:
        raw = msgspec.toml.decode(text, type=_File)
    except msgspec.ValidationError as error:
        message = str(error)
        path = re.search(r" - at `\$([^`]*)`$", message)
        keys = _parse_path(path.group(1)) if path else []
        unknown = re.search(r"unknown field `([^`]*)`", message)
        if unknown:
            keys.append(unknown.group(1))
        what = message[: path.start()] if path else message
        raise SpecError(f"{_where(source, text, keys)}: {_explain(what, keys)}") from None
    except msgspec.DecodeError as error:
        line = re.search(r"at line (\d+)", str(error))
        where = f"{source or '<tournament>'}:{line.group(1)}" if line else str(source or "<tournament>")
        raise SpecError(f"{where}: not valid TOML: {error}") from None
    except ValueError as error:  # an int of more digits than Python converts; its advice is for programmers
        raise SpecError(f"{source or '<tournament>'}: not valid TOML: {str(error).split('; use sys.')[0]}") from None

    problems: list[str] = []
    folder = source.parent if source else None

    def fail(message: str, *keys: str | int) -> None:
        problems.append(f"{_where(source, text, list(keys))}: {message}")

    if not raw.variant:
        fail("a tournament needs at least one [[variant]] table")
    plans = []
    games: list[tuple[str, dict[str, Any]]] = []
    for i, entry in enumerate(raw.variant):
        try:
            variant = get_variant(entry.name)
        except RulesError as error:
            fail(str(error), "variant", i, "name")
            continue
        try:
            game = (variant.name, variant.resolve(entry.options))
        except RulesError as error:
            fail(str(error), "variant", i, "options", *_culprit(variant, entry.options))
            continue
        if game in games:  # its matches would repeat the other's, under the same ids
            fail(f"variant {entry.name!r} with these options is already [[variant]] number "
                 f"{games.index(game) + 1}; list all its table sizes there", "variant", i, "name")
        games.append(game)
        for size in entry.tables:
            try:
                variant.check_players(size)
            except RulesError as error:
                fail(f"table size {size}: {error}", "variant", i, "tables")
        plans.append(VariantPlan(variant, dict(entry.options), tuple(sorted(set(entry.tables)))))
    named: list[tuple[str, tuple[str | int, ...]]] = [(e, ("entrants", i)) for i, e in enumerate(raw.entrants)]
    for i, name in enumerate(raw.entrants):
        if name in raw.entrants[:i]:
            fail(f"entrant {name!r} is listed twice", "entrants", i)
    name = raw.name or (source.stem if source else "tournament")
    for entrant, at in [*named, *([(raw.challenger, ("challenger",))] if raw.challenger else [])]:
        problem = None if entrant_problem is None else entrant_problem(name, entrant, folder)
        if problem is not None:
            fail(problem, *at)
    if raw.settle is not None and raw.settle.luck:
        for plan in plans:
            if why := no_estimate(plan.variant.name):
                fail(f"{why}: settle without luck", "settle", "luck")
    unknown_layers = [layer for layer in raw.require if layer not in LAYERS]
    if unknown_layers:
        fail(f"unknown sandbox layer(s) {', '.join(unknown_layers)}; layers: {', '.join(LAYERS)}", "require")
    if raw.mode == "gauntlet" and not raw.challenger:
        fail("gauntlet mode needs challenger = \"BOT\" (the bot that meets the field)", "mode")
    if raw.mode == "round-robin" and raw.challenger:
        fail("challenger is only for mode = \"gauntlet\"", "challenger")
    if raw.cluster is not None:
        try:
            check_cluster(raw.cluster)
        except SpecError as error:
            fail(str(error), "cluster")
    if raw.deadline is not None and raw.deadline.tzinfo is None:
        fail("give the deadline with its time zone, e.g. 2026-12-24T18:00:00Z or 2026-12-24T19:00:00+01:00",
             "deadline")
    if raw.deadline is not None and (raw.mode == "ladder" or not raw.open):
        fail("a deadline is for a competition authors enter: `open = true`, not a ladder", "deadline")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", name):
        fail(f"tournament name {name!r}: use letters, digits, '.', '_' and '-'", "name")
    if problems:
        raise SpecError("\n".join(problems))
    return TournamentSpec(
        name=name, variants=tuple(plans), entrants=tuple(raw.entrants), open=raw.open, mode=raw.mode,
        challenger=raw.challenger, authors_apart=None if raw.authors_apart is msgspec.UNSET else raw.authors_apart,
        deals=raw.deals, seed=raw.seed, workers=raw.workers, concurrency=raw.concurrency,
        cluster=raw.cluster, require=tuple(raw.require),
        time=TimeControl(raw.time.move_ms, raw.time.bank_ms, raw.time.first_move_ms, raw.time.startup_ms,
                         raw.time.ponder, raw.time.min_turn_ms, raw.time.clock),
        policy=FaultPolicy(PolicyMode(raw.faults.policy), raw.faults.strikes), description=raw.description,
        limits=Limits(scratch_mb=raw.limits.scratch_mb, scratch_files=raw.limits.scratch_files),
        # a competition's final plays to a settled stop: without [settle], at the defaults
        settle=Settle(raw.settle.confidence, raw.settle.max_matches, raw.settle.luck) if raw.settle is not None
        else Settle() if raw.deadline is not None else None,
        pause=Pause(raw.pause.faulted, raw.pause.of),
        deadline=None if raw.deadline is None else raw.deadline.timestamp(),
        source=source, text=text,
    )


def _check_nesting(text: str, source: Path | None) -> None:
    """SpecError at the line where ``text`` nests deeper than a tournament file may, before
    tomllib recurses into it (:mod:`arena.tomldepth`)."""
    if found := too_deep(text):
        line, how = found
        raise SpecError(f"{source or '<tournament>'}:{line}: not valid TOML: {how} (a tournament file needs four)")


def check_cluster(address: str) -> str:
    """``address`` if it is a Dask scheduler's address; :class:`SpecError` saying the form if not."""
    if not CLUSTER_ADDRESS.fullmatch(address):
        raise SpecError(f"cluster {address!r} is not a Dask scheduler's address: use tcp://HOST:PORT "
                        "(or tls://HOST:PORT), as `dask scheduler` prints it")
    return address


def _culprit(variant: Variant, options: dict[str, Any]) -> list[str]:
    """The first option that is wrong on its own (to point at its line), if one is."""
    for key, value in options.items():
        try:
            variant.resolve({key: value})
        except RulesError:
            return [key]
    return []


def _parse_path(path: str) -> list[str | int]:
    """``.variant[1].tables[0]`` as ``["variant", 1, "tables", 0]``."""
    return [int(index) if index else key for key, index in re.findall(r"\.([A-Za-z0-9_]+)|\[(\d+)\]", path)]


def _explain(what: str, keys: list[str | int]) -> str:
    """msgspec's message, led by the key it is about."""
    named = ".".join(str(k) for k in keys if isinstance(k, str))
    return f"{named}: {what}" if named and "unknown field" not in what else what


_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?")


def _where(source: Path | None, text: str, keys: list[str | int]) -> str:
    """``file:line`` of the deepest part of ``keys`` found in ``text`` (line 1 if none).

    Walks down the path: a key with a ``[key]`` / ``[[key]]`` header (or a dotted header such
    as ``[variant.options]`` below its parent) narrows the search to that table, the n-th one
    for an index; any other key is looked for as ``key =`` in the current table's body."""
    lines = text.splitlines()
    headers = [(n, m.group(1)) for n, line in enumerate(lines) if (m := _HEADER.match(line))]
    start, end, found, prefix = 0, len(lines), 0, ""
    at_top = True
    for i, key in enumerate(keys):
        if isinstance(key, int):
            continue
        following = keys[i + 1] if i + 1 < len(keys) else None
        index = following if isinstance(following, int) else 0
        name = prefix + key
        tables = [n for n, header in headers if header == name and start <= n < end]
        if index < len(tables):
            found = start = tables[index]
            end = next((n for n, header in headers if n > start and not header.startswith(name + ".")), len(lines))
            prefix, at_top = name + ".", False
            continue
        body_start = start + (0 if at_top else 1)
        body_end = next((n for n, _ in headers if body_start <= n < end), end)
        assignment = re.compile(rf"^\s*{re.escape(key)}\s*=")
        hits = [n for n in range(body_start, body_end) if assignment.match(lines[n])]
        hits = hits or [n for n in range(start, end) if re.search(rf"\b{re.escape(key)}\b", lines[n])]
        if hits:
            found = hits[0]
        break
    return f"{source or '<tournament>'}:{found + 1}"
