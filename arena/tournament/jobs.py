"""What the runner and its referee workers say to each other, one JSON line each (msgspec).

A match has one name at each stage: a :class:`MatchSpec` is scheduled and sent in a
:class:`TableJob`; the referee plays it into a :class:`arena.referee.MatchResult`; the
worker reports it as :class:`Played`; the store keeps it as a
:class:`arena.tournament.store.MatchRecord`.  The time control, the fault policy, the
limits and the outcome cross the process boundary as the types the referee uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from arena.referee import FaultPolicy, TimeControl
from arena.rules import Outcome
from arena.sandbox import Limits

__all__ = ["BotRef", "FromWorker", "MatchSpec", "Played", "Ready", "TableDone", "TableJob", "ToWorker"]


@dataclass(frozen=True)
class MatchSpec:
    """One match to play: its id, place in the schedule, deal and seating."""

    id: str
    seq: int
    seed: bytes
    """The deal's secret key."""
    seats: tuple[int, ...]
    """For each seat, the index of its bot in :attr:`Table.versions`."""
    deal: int
    generation: int
    """Which generation of the table's bot processes plays it (its seat rotation)."""
    public_id: str
    """The id its bots are told."""



class BotRef(msgspec.Struct, frozen=True):
    """A registered bot version to launch."""

    name: str
    path: str | None
    time: TimeControl | None = None
    """The time control of its moves, where it has one of its own (else the table's; its
    start-up is the table's either way)."""


class TableJob(msgspec.Struct, frozen=True, tag="table"):
    """A table to play: its bots, variant, conditions and matches."""

    id: str
    variant: str
    options: dict[str, Any]
    bots: list[BotRef]
    matches: list[MatchSpec]
    time: TimeControl
    policy: FaultPolicy
    limits: Limits = Limits()


class Ready(msgspec.Struct, frozen=True, tag="ready"):
    """The worker is up; these sandbox layers are active for its bots."""

    sandbox: list[str]
    why_not: dict[str, str]


class Played(msgspec.Struct, frozen=True, tag="played"):
    """A finished match, seat by seat."""

    table: str
    id: str
    outcome: Outcome
    decisions: int
    faults: list[dict[str, Any]]
    sandbox: list[str]
    duration_s: float
    seat_decisions: list[int]
    seat_think_s: list[float]
    log: bytes


class TableDone(msgspec.Struct, frozen=True, tag="done"):
    """Every match of the table was played; its bots are gone."""

    table: str


ToWorker = TableJob
FromWorker = Ready | Played | TableDone
