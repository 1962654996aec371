"""What a match is played under and what it leaves behind: the time control, the fault
policy, faults, timings and the match's result."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any

from arena.cards import Seed
from arena.rules import Event, Outcome

__all__ = ["BotFault", "Clock", "Fault", "FaultKind", "FaultPolicy", "MatchResult", "Penalty", "PolicyMode",
           "SeatTiming", "TimeControl"]


class FaultKind(StrEnum):
    """What a bot did wrong (docs/PROTOCOL.md, "Faults")."""

    STARTUP = "startup"
    CRASH = "crash"
    TIMEOUT = "timeout"
    MALFORMED = "malformed"
    OVERSIZED = "oversized"
    WRONG_ID = "wrong_id"
    ILLEGAL_ACTION = "illegal_action"
    CLOSED_STDOUT = "closed_stdout"


class PolicyMode(StrEnum):
    """What the referee does with a bot that faults."""

    FORFEIT = "forfeit"
    """The bot is out of the match at once."""
    SUBSTITUTE = "substitute"
    """A random legal action is played for it, until its ``strikes``-th fault."""


class Clock(StrEnum):
    """What a decision's time is measured on."""

    CPU = "cpu"
    """The CPU time the bot's processes used (where the sandbox counts it)."""
    WALL = "wall"
    """The time from the request to the reply."""


class Penalty(StrEnum):
    """What a fault cost the bot."""

    FORFEIT = "forfeit"
    SUBSTITUTED = "substituted"
    DISQUALIFIED = "disqualified"
    NONE = "none"
    """A fault after the match ended (its ``match_end`` could not be sent): nothing to lose."""


@dataclass(frozen=True)
class TimeControl:
    """Per-decision time plus a bank for overruns; extra time for start-up and first moves."""

    move_ms: int = 1000
    """Time for one decision before the bank is drawn on."""
    bank_ms: int = 10_000
    """Overruns of ``move_ms`` are taken from this bank, once per match; empty bank: timeout."""
    first_move_ms: int = 5_000
    """Extra time for a bot's first decision of each match."""
    startup_ms: int = 10_000
    """Time from launch to the bot's ``hello``."""
    ponder: bool = False
    """Whether a bot may think while others decide.  Off (the default), its processes are
    frozen from each reply until its next request (the sandbox's ``freeze`` layer); on, the
    CPU time it uses meanwhile is taken from its time (the bank, then the next decision)."""
    min_turn_ms: int = 0
    """Every decision takes at least this long on the table's clock: the referee holds a
    quicker reply back.  A bot can then not signal the others through how long it thinks,
    as long as it answers within this time (see docs/SANDBOX.md, "Threat model")."""
    clock: Clock = Clock.CPU
    """What a decision is charged: ``cpu``, the CPU time its bot's processes used (where
    the sandbox counts it, the cgroup layer; else the wall clock), so a busy machine does
    not eat a bot's time, though the wall clock still ends a decision at 3 times its
    allowance; ``wall``, the time from the request to the reply."""

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "clock", Clock(self.clock))
        except ValueError:
            raise ValueError(f"clock must be 'cpu' or 'wall', not {self.clock!r}") from None

    def to_dict(self) -> dict[str, int | bool | str]:
        """The ``time`` field of ``match_start``."""
        return asdict(self)


@dataclass(frozen=True)
class FaultPolicy:
    """What happens to a bot that faults."""

    mode: PolicyMode = PolicyMode.FORFEIT
    """``forfeit``: the bot is out of the match at once; ``substitute``: a random legal action
    is played for it until its ``strikes``-th fault, which disqualifies it."""
    strikes: int = 3

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "mode", PolicyMode(self.mode))
        except ValueError:
            raise ValueError(f"fault policy must be 'forfeit' or 'substitute', not {self.mode!r}") from None
        if self.strikes < 1:
            raise ValueError("strikes must be at least 1")


class BotFault(Exception):
    """A bot broke the protocol or the clock (a :class:`FaultKind`).

    ``label`` names the bot where the fault stands in for it (a bot that did not start);
    ``fatal``: the bot cannot go on under any policy (it stopped reading its input)."""

    def __init__(self, kind: FaultKind, detail: str, label: str = "?", *, fatal: bool = False) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.label = label
        self.fatal = fatal or kind in (FaultKind.CRASH, FaultKind.CLOSED_STDOUT)


@dataclass(frozen=True)
class Fault:
    """A recorded fault: which seat and bot, what happened, and what the referee did."""

    seat: int
    bot: str
    kind: FaultKind
    detail: str
    decision: int
    """The match's decision number (from 1) at which it happened; 0 before the first."""
    penalty: Penalty


@dataclass
class SeatTiming:
    """Thinking time of one seat, measured by the referee's clock."""

    decisions: int = 0
    total_s: float = 0.0
    max_s: float = 0.0
    cpu_s: float = 0.0
    """CPU time the bot's whole process tree used in the match up to its last reply (the
    cgroup layer's accounting, read once per decision; 0 without it)."""
    max_cpu_s: float = 0.0
    """The most CPU one decision took, with what the bot did since its previous reply."""

    def add(self, spent_s: float, cpu_s: float) -> None:
        """Count one decision: ``spent_s`` on the referee's clock, ``cpu_s`` of the bot's CPU."""
        self.decisions += 1
        self.total_s += spent_s
        self.cpu_s += cpu_s
        if spent_s > self.max_s:
            self.max_s = spent_s
        if cpu_s > self.max_cpu_s:
            self.max_cpu_s = cpu_s


@dataclass
class MatchResult:
    """Everything a match produced: the outcome, faults, timings and the full log."""

    match_id: str
    variant: str
    options: dict[str, Any]
    seed: Seed
    """What dealt the cards: a public seed, or a secret key (never sent to a bot)."""
    bots: list[str]
    outcome: Outcome
    faults: list[Fault]
    timings: list[SeatTiming]
    sandbox: list[str]
    """Sandbox layers every bot of the match ran behind."""
    events: list[Event]
    """The rules engine's log: every event with its private parts."""
    duration_s: float
    decisions: int

    @property
    def log(self) -> list[dict[str, Any]]:
        """The full log, JSON-ready (built on demand: most callers only store it)."""
        return [e.full() for e in self.events]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the match record)."""
        record = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "events"}
        if isinstance(self.seed, bytes):  # the match is over: its key may be shown
            record["seed"], record["key"] = None, self.seed.hex()
        record["outcome"] = self.outcome.to_dict()
        record["faults"] = [asdict(f) for f in self.faults]
        record["timings"] = [asdict(t) for t in self.timings]
        record["log"] = self.log
        return record
