"""The league: continuous matches among the registered bots, rated as they go.

Tables are chosen in waves (as many as the workers play at once).  Each table starts with
the bot that has played least, then adds the opponents that make the fairest table by
TrueSkill's match quality, discounted for bots that have already played more.  A table
plays one deal in every seat rotation, so the deal's luck cancels out (the last table of
a run plays only the rotations that reach the number of matches asked for).  League
matches are stored under the tournament ``league``; a stopped league resumes where it
stopped.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Final

from arena.luck import no_estimate
from arena.referee import FaultPolicy, TimeControl
from arena.rules import get_variant
from arena.tournament.ratings import Rating, quality, rate, ratings
from arena.tournament.results import Results
from arena.tournament.runner import (
    Observer,
    RunError,
    RunSummary,
    lock,
    make_executor,
    play,
    run_tables,
    tournament_key,
)
from arena.tournament.scheduler import Table, plays, rotation_matches
from arena.tournament.settle import unsettled_pairs
from arena.tournament.spec import TournamentSpec, VariantPlan
from arena.tournament.stats import look_confidence
from arena.tournament.store import MatchRecord, Store, VersionRow

__all__ = ["LEAGUE", "LeagueSettings", "choose_table", "run_league"]

LEAGUE: Final = "league"
FAIRNESS_WEIGHT: Final = 0.5
"""How much match quality a bot's extra matches cost it (quality is 0..1)."""


@dataclass(frozen=True)
class LeagueSettings:
    """What the league plays and how long."""

    variant: str = "scat"
    players: int = 4
    matches: int = 100
    """Matches to play in this run (0: until stopped)."""
    options: dict[str, Any] | None = None
    time: TimeControl = TimeControl()
    policy: FaultPolicy = FaultPolicy()
    require: tuple[str, ...] = ()
    workers: int = 0
    concurrency: int = 4
    cluster: str | None = None
    """A Dask scheduler whose workers play the tables (None: local referee workers)."""
    settle: float | None = None
    """Stop before ``matches`` once every neighbour in the variant's ranking is ordered at
    this confidence (:mod:`arena.tournament.settle`)."""
    luck: bool = False
    """Judge that order on luck-adjusted comparisons (:mod:`arena.tournament.adjust`)."""

    def __post_init__(self) -> None:
        if self.luck and (why := no_estimate(self.variant)):
            raise RunError(f"{why}: settle the league without --luck")


LOOK_GROWTH: Final = 1.25
"""``--settle`` looks again once the league's matches have grown by this factor since its
last look: each look costs confidence (:func:`arena.tournament.stats.look_confidence`),
and looks spaced by a factor are few (about 21 from 100 matches to 10,000) where a look
after every wave of tables would be thousands."""


class _Looks:
    """When ``league --settle`` looks, and at what confidence each look is judged."""

    def __init__(self, end: int | None) -> None:
        self.end = end
        """League matches stored when this run's ``--matches`` are played (None: no end)."""
        self.last = 0
        self.taken = 0
        self.looks: int | None = None

    def due(self, stored: int) -> bool:
        """Whether a look is due at ``stored`` league matches (and count it as taken)."""
        if self.taken and stored < self.last * LOOK_GROWTH:
            return False
        if not self.taken and self.end is not None:  # the looks left from here to the end
            self.looks = 1 + int(math.log(max(self.end, stored) / max(stored, 1)) / math.log(LOOK_GROWTH))
        self.last, self.taken = stored, self.taken + 1
        return True

    def level(self, confidence: float) -> float:
        """The confidence the look just taken must reach."""
        return look_confidence(confidence, self.taken, self.looks)


def choose_table(pool: Sequence[VersionRow], current: dict[int, Rating], played: dict[int, int], size: int,
                 rng: random.Random) -> list[VersionRow]:
    """The least-played bot, then the opponents that make the fairest table."""
    new = Rating(25.0, 25.0 / 3, 0)
    table = [min(pool, key=lambda v: (played.get(v.id, 0), rng.random()))]
    while len(table) < size:
        rest = [v for v in pool if v not in table]
        counts = [played.get(v.id, 0) for v in rest]
        low, spread = min(counts), max(counts) - min(counts) + 1
        scores = [
            quality(current.get(v.id, new) for v in [*table, candidate])
            - FAIRNESS_WEIGHT * (count - low) / spread + rng.random() * 1e-6
            for candidate, count in zip(rest, counts)
        ]
        table.append(rest[scores.index(max(scores))])
    return table


def _spec(settings: LeagueSettings) -> TournamentSpec:
    plan = VariantPlan(get_variant(settings.variant), dict(settings.options or {}), (settings.players,))
    return TournamentSpec(name=LEAGUE, variants=(plan,), time=settings.time, policy=settings.policy,
                          require=settings.require, workers=settings.workers, concurrency=settings.concurrency,
                          cluster=settings.cluster, deals=1)


def _pool(store: Store, variant: str, players: int) -> list[VersionRow]:
    pool = [v for v in (store.latest(b) for b in sorted({v.bot for v in store.versions()}))
            if v is not None and plays(v, variant)]
    if len(pool) < players:
        raise RunError(f"the league needs at least {players} registered bots that play {variant}, it has "
                       f"{len(pool)}; `arena submit PATH` registers a bot, `arena bots` lists them")
    return pool


def run_league(store: Store, settings: LeagueSettings, observer: Observer) -> RunSummary:
    """Play league matches until ``settings.matches`` are stored (or Ctrl+C)."""
    spec = _spec(settings)
    get_variant(settings.variant).check_players(settings.players)
    with lock(store, LEAGUE), closing(make_executor(spec, observer)) as executor:
        pool = _pool(store, settings.variant, settings.players)
        current = rate(store.results(LEAGUE, settings.variant))
        played = {v: r.matches for v, r in current.items()}
        wave = executor.capacity()
        target = settings.matches or float("inf")
        summary = RunSummary(LEAGUE, int(min(target, 10**9)), 0)
        observer.started(summary.total if settings.matches else 0, 0, getattr(executor, "workers", 1), [])
        key = tournament_key(store, LEAGUE)
        looking = _Looks(store.count(LEAGUE) + settings.matches if settings.matches else None)
        rng = random.Random(key + store.next_seq(LEAGUE).to_bytes(8, "little"))

        class Rated:
            """Passes each stored match on, updating the ratings that choose the next tables."""

            def started(self, total: int, done: int, workers: int, sandbox: list[str]) -> None:
                """Already reported for the whole league run."""

            def played(self, match: MatchRecord) -> None:
                current.update(rate(Results.of([match]), current))
                for seat in match.seats:
                    played[seat.version] = played.get(seat.version, 0) + 1
                observer.played(match)

            def notice(self, message: str) -> None:
                observer.notice(message)

        while summary.played < target:
            seq = store.next_seq(LEAGUE)
            tables = []
            chosen: dict[int, int] = dict(played)
            budget = target - summary.played  # the last table of a run may play fewer rotations
            count = wave if budget == float("inf") else min(wave, -(-int(budget) // settings.players))
            for _ in range(count):
                group = choose_table(pool, current, chosen, settings.players, rng)
                rotations = int(min(settings.players, budget))
                budget -= rotations
                for v in group:
                    chosen[v.id] = chosen.get(v.id, 0) + rotations
                first = seq
                prefix = f"{LEAGUE}-{settings.variant}-{settings.players}p"
                matches = tuple(rotation_matches(key, prefix, settings.variant, settings.players, [first], first,
                                                 rotations))
                seq += rotations
                tables.append(Table(f"{LEAGUE}-{settings.variant}-t{first}", settings.variant, spec.variants[0].options,
                                    tuple(group), matches))
            play(run_tables, spec, store, tables, executor, Rated(), summary)
            if settings.settle is not None and looking.due(store.count(LEAGUE)) and unsettled_pairs(
                    store, LEAGUE, looking.level(settings.settle), settings.variant, luck=settings.luck) == []:
                summary.settled = True
                break
        ratings(store, LEAGUE)
        ratings(store, LEAGUE, settings.variant)
        summary.stored = summary.played
        return summary
