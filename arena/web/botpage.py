"""A bot's page: its versions (content hashes, manifests), its results per competition and
variant, its faults with their details, and how long it thinks.

The arena stores each seat's thinking time and decisions per match, not per decision, so
the distribution shown is of each match's mean time per decision.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.tournament.views import ResultsError
from arena.web.charts import Histogram, histogram
from arena.web.overview import when
from arena.web.readonly import ReadOnlyStore, SeatRow

__all__ = ["Results", "VersionView", "bot_view", "bot_names"]


@dataclass(frozen=True)
class VersionView:
    """One registered version, as the page lists it."""

    id: int
    hash: str
    label: str
    manifest: dict[str, Any]
    manifest_text: str
    created: str
    withdrawn: str | None
    registered: bool
    """Run from the arena's registry copy (else from an installed package); where the copy
    lies on the operator's machine is no visitor's business."""


@dataclass
class Results:
    """A bot's results in one competition and variant."""

    tournament: str
    variant: str
    matches: int = 0
    wins: int = 0
    placements: int = 0
    faults: int = 0
    versions: set[str] = field(default_factory=set)

    @property
    def average_placement(self) -> float:
        """Mean placement (1 = first)."""
        return self.placements / self.matches if self.matches else 0.0


def bot_names(store: ReadOnlyStore, only: Collection[str] | None = None) -> list[str]:
    """Every registered bot, withdrawn ones included (or those that played in ``only``)."""
    versions = store.versions(withdrawn=True)
    if only is not None:
        played = {s.version for s in store.seats_of([v.id for v in versions]) if s.tournament in only}
        versions = [v for v in versions if v.id in played]
    return sorted({v.bot for v in versions})


def bot_view(store: ReadOnlyStore, bot: str, only: Collection[str] | None = None) -> dict[str, Any]:
    """The page's context: ``bot``, ``versions`` (newest first), the latest ``manifest``,
    ``results``, ``faults`` (match id, fault) and ``thinking`` (a histogram in ms); with
    ``only``, the results of those competitions alone."""
    rows = store.versions(bot, withdrawn=True)
    if not rows:
        raise ResultsError(f"no bot {bot!r} in {store.path}")
    versions = [VersionView(v.id, v.hash, v.label, v.manifest, json.dumps(v.manifest, indent=2, ensure_ascii=False),
                            when(v.created), None if v.withdrawn is None else when(v.withdrawn), v.path is not None)
                for v in reversed(rows)]
    short = {v.id: v.hash[:8] for v in rows}
    seats = [s for s in store.seats_of([v.id for v in rows]) if only is None or s.tournament in only]
    return {
        "bot": bot, "versions": versions, "manifest": versions[0].manifest,
        "results": _results(seats, short), "faults": _faults(store, seats),
        "thinking": _thinking(seats), "decisions": sum(s.decisions for s in seats),
    }


def _results(seats: Sequence[SeatRow], short: dict[int, str]) -> list[Results]:
    found: dict[tuple[str, str], Results] = {}
    for seat in seats:
        line = found.setdefault((seat.tournament, seat.variant), Results(seat.tournament, seat.variant))
        line.matches += 1
        line.wins += seat.placement == 1
        line.placements += seat.placement
        line.faults += seat.faults
        line.versions.add(short[seat.version])
    return list(found.values())


def _faults(store: ReadOnlyStore, seats: Sequence[SeatRow]) -> list[tuple[str, dict[str, Any]]]:
    """Each fault of the bot's seats, with its match id."""
    faulty = {(s.match, s.seat) for s in seats if s.faults}
    found = []
    for match in sorted({m for m, _ in faulty}):
        for fault in store.match(match).faults:
            if (match, fault.get("seat")) in faulty:
                found.append((match, fault))
    return found


def _thinking(seats: Sequence[SeatRow]) -> Histogram | None:
    """Mean milliseconds per decision of every match it decided in."""
    return histogram([1000 * s.think_s / s.decisions for s in seats if s.decisions])
