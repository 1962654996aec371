"""A tournament's page, overall or for one variant: the ranking with its intervals and
rank ranges, the head-to-head heat map, each entrant's rating as the matches accumulate,
and the faults.  Every number comes from :mod:`arena.tournament.views`, as ``arena table``
and ``arena crosstable`` print them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.tournament.adjust import VERSION as LUCK_VERSION
from arena.tournament.adjust import no_estimate, supported
from arena.tournament.ratings import environment
from arena.tournament.stats import MIN_GROUPS
from arena.tournament.views import (
    Standing,
    check_variant,
    crosstable,
    labels,
    pick_tournament,
    ranked,
    ranking_groups,
    score_share,
    variants_played,
)
from arena.web.botpage import FAULTS_SHOWN
from arena.web.charts import Bar, interval_bars, rating_history
from arena.web.overview import competition
from arena.web.readonly import ReadOnlyStore

__all__ = ["Cell", "FaultLine", "Line", "tournament_view"]


@dataclass(frozen=True)
class Line:
    """One line of the ranking."""

    standing: Standing
    name: str
    """The bot's name, or ``name:hash8`` where several versions of it play."""
    bar: Bar | None

    @property
    def ranks(self) -> str:
        """The rank range as the table prints it (``1-3``, ``2``, ``-``)."""
        if self.standing.ranks is None:
            return "-"
        best, worst = self.standing.ranks
        return str(best) if best == worst else f"{best}-{worst}"


@dataclass(frozen=True)
class Cell:
    """One cell of the head-to-head heat map: the row bot against the column bot."""

    record: tuple[int, int, int] | None
    """(placed better, level, worse); None if they never met (or on the diagonal)."""
    stronger: float | None
    """How likely the row bot is the stronger (None while too few deals say)."""

    @property
    def share(self) -> float:
        """Score share, a tie counting half."""
        return score_share(self.record) if self.record else 0.0

    @property
    def heat(self) -> int:
        """The colour step, 0 (always worse) to 10 (always better)."""
        return round(10 * self.share)


@dataclass(frozen=True)
class FaultLine:
    """A fault, with the match and bot it belongs to."""

    match: str
    bot: str
    fault: dict[str, Any]


def tournament_view(store: ReadOnlyStore, name: str, variant: str | None, luck: bool = False) -> dict[str, Any]:
    """The page's context: ``competition``, ``variant``, ``variants``, ``lines``, ``groups``,
    ``unsure`` pairs, ``matrix`` (names and cells), ``history`` and ``faults``; ``luck``
    (the intervals, ranks and odds on luck-adjusted comparisons, as ``arena table --luck``
    gives them) with ``luck_offered`` and the ``unmeasured`` matches that count raw."""
    name = pick_tournament(store, name)
    check_variant(store, name, variant)
    scope = [variant] if variant is not None else variants_played(store, name)
    offered = any(supported(v) for v in scope)
    luck = luck and offered
    standing, spread = ranked(store, name, variant, luck=luck)
    names = labels(s.version for s in standing)
    bars = interval_bars([(s.rating.mu, s.interval) for s in standing])
    lines = [Line(s, names[s.version.id], bar) for s, bar in zip(standing, bars)]
    table = crosstable(store, name, variant, (standing, spread))
    matrix = [[Cell(table.record(a.id, b.id) if a.id != b.id else None, table.stronger.get((a.id, b.id)))
               for b in table.versions] for a in table.versions]
    totals = [_total([c.record for c in row if c.record]) for row in matrix]
    fault_count, faults = _faults(store, name, variant)
    history = rating_history(store, name, variant, [s.version.id for s in standing],
                             [line.name for line in lines])
    return {
        "competition": competition(store, name), "variant": variant,
        "variants": variants_played(store, name), "lines": lines, "matches": store.count(name, variant),
        "groups": ranking_groups(store, name, variant), "min_groups": MIN_GROUPS,
        "unsure": [(a.name, b.name) for a, b in zip(lines, lines[1:]) if a.standing.separated is False],
        "matrix": {"names": [names[v.id] for v in table.versions], "bots": [v.bot for v in table.versions],
                   "cells": matrix, "totals": totals},
        "history": history, "faults": faults, "fault_count": fault_count,
        "environment": environment(store, name, variant) if standing else None,
        "spec": store.tournament_spec(name) or {},
        "published_key": (key := store.published_key(name)) and key.hex(),
        "luck": luck, "luck_offered": offered, "luck_version": LUCK_VERSION,
        "unmeasured": len(store.unmeasured(name, LUCK_VERSION, variant)) if luck else 0,
        "raw_variants": [why for v in scope if (why := no_estimate(v))] if luck else [],
    }


def _total(records: list[tuple[int, int, int]]) -> float | None:
    if not records:
        return None
    return score_share((sum(r[0] for r in records), sum(r[1] for r in records), sum(r[2] for r in records)))


def _faults(store: ReadOnlyStore, name: str, variant: str | None) -> tuple[int, list[FaultLine]]:
    """How many faults the ranking's matches had, and the newest :data:`FAULTS_SHOWN`."""
    count, found = store.faults_of(FAULTS_SHOWN, tournaments=[name], variant=variant)
    return count, [FaultLine(match, store.version(version).bot, fault) for match, version, fault in found]
