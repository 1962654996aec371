"""Every competition in the database with its kind, state and progress (the index page),
and the small status the live pages poll.

Three kinds share the store: tournaments (``arena run``: a fixed schedule, so a progress
of stored / scheduled matches), the league (``arena league``: open-ended), and strength
tests (``arena test``: grown a batch of deals at a time until the sequential test decides).
A competition is *running* while a process holds its run lock
(:meth:`arena.tournament.store.Store.held`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from arena.errors import ArenaError
from arena.rules import UnknownVariantError, get_variant
from arena.tournament.league import LEAGUE
from arena.tournament.ratings import ratings
from arena.tournament.scheduler import schedule
from arena.tournament.sequential import TestPlan, verdict
from arena.tournament.spec import SpecError, TournamentSpec, VariantPlan
from arena.tournament.stats import SequentialTest
from arena.web.readonly import ReadOnlyStore

__all__ = ["Competition", "competition", "competitions", "scheduled", "status", "when"]


@dataclass(frozen=True)
class Competition:
    """One line of the index."""

    name: str
    kind: str
    """``tournament``, ``league`` or ``strength test``."""
    description: str
    matches: int
    scheduled: int | None
    """Matches its last run scheduled (None for the league: it has no end)."""
    running: bool
    updated: str
    variants: list[str]
    entrants: int
    leaders: list[str]
    """The best three by rating, best first."""
    test: SequentialTest | None
    """A strength test's sequential test, as ``arena test --show`` reports it."""

    @property
    def state(self) -> str:
        """``running``, or what a stopped competition is."""
        if self.running:
            return "running"
        if self.kind in ("league", "ladder"):
            return "stopped"
        if self.test is not None:
            return self.test.verdict
        if self.scheduled is not None and self.matches >= self.scheduled:
            return "complete"
        return "incomplete"

    @property
    def progress(self) -> float | None:
        """Stored share of the scheduled matches (0..1), None when nothing is scheduled."""
        if not self.scheduled:
            return None
        return min(self.matches / self.scheduled, 1.0)


def when(timestamp: float) -> str:
    """A time as the pages show it: UTC, to the second."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def competitions(store: ReadOnlyStore) -> list[Competition]:
    """Every competition with a stored spec or stored matches, most recently updated first."""
    played = store.played()
    known = {name: updated for name, _, updated in store.tournaments()}
    for name, done in played.items():
        known[name] = max(known.get(name, 0.0), done.last)
    order = sorted(known.items(), key=lambda item: (-item[1], item[0]))
    return [_competition(store, name, played[name].matches if name in played else 0, updated)
            for name, updated in order]


def competition(store: ReadOnlyStore, name: str) -> Competition:
    """One competition (as the index lists it)."""
    played = store.played().get(name)
    updated = max([u for n, _, u in store.tournaments() if n == name] + [played.last if played else 0.0])
    return _competition(store, name, played.matches if played else 0, updated)


def _competition(store: ReadOnlyStore, name: str, stored: int, updated: float) -> Competition:
    spec = store.tournament_spec(name) or {}
    kind = "league" if name == LEAGUE else "ladder" if spec.get("mode") == "ladder" else \
        "strength test" if "test" in spec else "tournament"
    return Competition(
        name=name, kind=kind, description=str(spec.get("description", "")), matches=stored,
        scheduled=None if kind in ("league", "ladder") else scheduled(store, spec), running=store.held(name),
        updated=when(updated), variants=_variants(store, name, spec), entrants=len(spec.get("versions", [])),
        leaders=_leaders(store, name) if stored else [],
        test=_test(store, spec) if kind == "strength test" else None,
    )


def scheduled(store: ReadOnlyStore, spec: dict[str, Any]) -> int | None:
    """How many matches the spec's last run scheduled, as the scheduler
    (:func:`arena.tournament.scheduler.schedule`) makes its tables from the stored spec
    and versions: every deal of a table in every seat rotation.  A spec stored before
    ``authors_apart`` existed was scheduled with every combination, as it is counted;
    None if the spec cannot be scheduled now (a variant this arena no longer has)."""
    if isinstance(spec.get("scheduled"), int):
        return int(spec["scheduled"])  # a strength test records its own
    if "versions" not in spec or "variants" not in spec:
        return None
    versions = [store.version(v) for v in spec["versions"]]
    pinned = spec.get("pinned", {})
    challenger_id = next((v for k, v in pinned.items() if k.startswith("challenger:")), None)
    challenger = next((v for v in versions if v.id == challenger_id), None)
    try:
        plans = tuple(VariantPlan(get_variant(plan["name"]), dict(plan.get("options", {})), tuple(plan["tables"]))
                      for plan in spec["variants"])
        one_deal = TournamentSpec(name=str(spec.get("name", "")), variants=plans, deals=1,
                                  authors_apart=spec.get("authors_apart", False))
        # every deal of a table is played in the same rotations; the key does not change the count
        tables = schedule(one_deal, versions, bytes(32), challenger)
    except (UnknownVariantError, SpecError):
        return None
    return sum(len(table.matches) for table in tables) * int(spec.get("deals", 1))


def _variants(store: ReadOnlyStore, name: str, spec: dict[str, Any]) -> list[str]:
    named = [str(plan["name"]) for plan in spec.get("variants", [])]
    return named or store.variants(name)


def _leaders(store: ReadOnlyStore, name: str) -> list[str]:
    rated = ratings(store, name)
    best = sorted(rated.items(), key=lambda item: -item[1].conservative)[:3]
    return [store.version(v).bot for v, _ in best]


def _test(store: ReadOnlyStore, spec: dict[str, Any]) -> SequentialTest | None:
    """The strength test's state from the settings it stored (None if they do not read)."""
    settings = spec.get("test")
    if not isinstance(settings, dict):
        return None
    try:
        return verdict(store, TestPlan.from_settings(settings))
    except (TypeError, ValueError, ArenaError):
        return None


def status(store: ReadOnlyStore) -> dict[str, Any]:
    """What live pages poll: per competition ``"matches:running"``, and all of it in one
    string (``all``).  A page compares the one it watches with the one it was drawn at."""
    played = store.played()
    names = sorted(set(played) | {name for name, _, _ in store.tournaments()})
    each = {name: f"{played[name].matches if name in played else 0}:{int(store.held(name))}"
            for name in names}
    return {"all": ";".join(f"{name}={mark}" for name, mark in each.items()), "tournaments": each}
