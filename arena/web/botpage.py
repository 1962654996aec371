"""A bot's page: its versions (content hashes, manifests), its results per competition and
variant, its faults with their details, and how long it thinks.

The arena stores each seat's thinking time and decisions per match, not per decision, so
the distribution shown is of each match's mean time per decision.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from arena.tournament.views import ResultsError
from arena.web.charts import histogram
from arena.web.overview import when
from arena.web.readonly import ReadOnlyStore, Tally

__all__ = ["FAULTS_SHOWN", "Results", "VersionView", "bot_view", "bot_names"]

FAULTS_SHOWN: Final = 50
"""A page lists this many faults at most, the newest (and says how many there were)."""


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
        played = {t.version for t in store.tallies([v.id for v in versions], only)}
        versions = [v for v in versions if v.id in played]
    return sorted({v.bot for v in versions})


def bot_view(store: ReadOnlyStore, bot: str, only: Collection[str] | None = None) -> dict[str, Any]:
    """The page's context: ``bot``, ``versions`` (newest first), the latest ``manifest``,
    ``results``, ``faults`` (the newest :data:`FAULTS_SHOWN`: match id, fault; ``fault_count``
    in all) and ``thinking`` (a histogram in ms); with ``only``, the results of those
    competitions alone.  Counted by the database: a bot of a long ladder has played many."""
    rows = store.versions(bot, withdrawn=True)
    if not rows:
        raise ResultsError(f"no bot {bot!r} in {store.path}")
    versions = [VersionView(v.id, v.hash, v.label, v.manifest, json.dumps(v.manifest, indent=2, ensure_ascii=False),
                            when(v.created), None if v.withdrawn is None else when(v.withdrawn), v.path is not None)
                for v in reversed(rows)]
    short = {v.id: v.hash[:8] for v in rows}
    ids = [v.id for v in rows]
    tallies = store.tallies(ids, only)
    fault_count, faults = store.faults_of(FAULTS_SHOWN, versions=ids, tournaments=only)
    return {
        "bot": bot, "versions": versions, "manifest": versions[0].manifest,
        "results": _results(tallies, short), "faults": [(match, fault) for match, _, fault in faults],
        "fault_count": fault_count, "thinking": histogram([1000 * s for s in store.thinking(ids, only)]),
        "decisions": sum(t.decisions for t in tallies),
    }


def _results(tallies: Sequence[Tally], short: dict[int, str]) -> list[Results]:
    found: dict[tuple[str, str], Results] = {}
    for tally in tallies:
        line = found.setdefault((tally.tournament, tally.variant), Results(tally.tournament, tally.variant))
        line.matches += tally.matches
        line.wins += tally.wins
        line.placements += tally.placements
        line.faults += tally.faults
        line.versions.add(short[tally.version])
    return list(found.values())
