"""Tournaments that stop when the order is settled (``[settle]`` in a tournament file).

The tournament is played with its file's ``deals``; then, while some pair of neighbours in
the overall ranking is not ordered at the chosen confidence (:mod:`arena.tournament.stats`)
and fewer than ``max_matches`` are stored, another ``deals`` deals are added and played.
The deals grown so far are kept with the tournament, so a resumed run goes on from there.

Each step is a look, and a run that stops at the first look that says "ordered" would
settle two equal bots far more often than the confidence says; so each look must reach a
stricter confidence (:func:`arena.tournament.stats.look_confidence`), the confidence spread
evenly over the looks ``max_matches`` allows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from arena.tournament.runner import Executor, Observer, RunSummary, run_tournament
from arena.tournament.spec import TournamentSpec
from arena.tournament.stats import ahead, look_confidence
from arena.tournament.store import Store
from arena.tournament.views import standings

__all__ = ["Settled", "run_settled", "unsettled_pairs"]


@dataclass(frozen=True)
class Settled:
    """How a settle-run ended."""

    summary: RunSummary
    deals: int
    settled: bool
    unsure: list[tuple[str, str]]
    """Neighbours the data still cannot order."""
    looks: int
    """How many looks ``max_matches`` allows: each is judged at :attr:`look_level`."""
    look_level: float


def unsettled_pairs(store: Store, tournament: str, confidence: float,
                    variant: str | None = None, *, luck: bool = False) -> list[tuple[str, str]] | None:
    """Neighbours in the ranking (of one variant, if given) not ordered at ``confidence``
    (on luck-adjusted comparisons with ``luck``); None while too few deals were played to
    judge."""
    rows = standings(store, tournament, variant, level=confidence, luck=luck)
    if any(r.ahead_of_next is None for r in rows[:-1]):
        return None
    return [(a.version.short, b.version.short) for a, b in zip(rows, rows[1:])
            if a.ahead_of_next is not None and not ahead(a.ahead_of_next, confidence)]


def run_settled(spec: TournamentSpec, store: Store, observer: Observer, *, workers: int | None = None,
                concurrency: int | None = None, executor: Executor | None = None,
                key: bytes | None = None) -> Settled:
    """Run ``spec`` (which has a ``settle`` table) until settled or at its match limit."""
    assert spec.settle is not None
    step = spec.deals
    deals = max(step, int((store.tournament_spec(spec.name) or {}).get("deals", 0)))
    while True:
        summary = run_tournament(dataclasses.replace(spec, deals=deals), store, observer, workers=workers,
                                 concurrency=concurrency, executor=executor, key=key)
        stored = store.count(spec.name)
        looks = max(1, spec.settle.max_matches * deals // max(stored * step, 1))
        level = look_confidence(spec.settle.confidence, deals // step, looks)
        unsure = unsettled_pairs(store, spec.name, level, luck=spec.settle.luck)
        settled = unsure == []
        more = stored * (deals + step) // max(deals, 1)
        if settled or not summary.complete or more > spec.settle.max_matches:
            return Settled(summary, deals, settled, unsure or [], looks, level)
        deals += step
