"""The ladder: a tournament file with ``mode = "ladder"``, played without end
(``arena ladder FILE``, or by ``arena host --ladder FILE``).

Where a round-robin plays a schedule fixed at its start, the ladder chooses each table
from what the store holds now, wave after wave (as many tables as the workers play at
once), so a version submitted while it runs plays within a wave or two and a version
replaced by a newer one of its bot stops playing (its matches stay):

* **who seeds a table**: the version with the highest TrueSkill sigma plus the share of
  the ladder's matches stored since it last played, so an unrated version comes first,
  uncertain versions play more, and nobody waits long (Halite's coordinator chooses by
  the same two things);
* **who fills it**: the opponents that make the fairest table by TrueSkill's match
  quality (nearby ratings), never two bots of one author where the authors are kept
  apart (the host's accounts are the authors of their bots);
* **what is played**: one deal in every seat rotation, as the league plays it, dealt
  from the ladder's secret key; the variants and table sizes of the file take turns;
* **who sits out**: a version that faulted in too many of its last matches (``[pause]``:
  5 of 20 by default) is paused until its bot has a new version (:func:`paused`).

Every match is stored in one transaction as it ends and the ladder's state is the store
(ratings, last matches, the next sequence number): killed at any moment, it resumes with
nothing lost or doubled but the matches that were being played.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Sequence
from contextlib import ExitStack, closing
from typing import Final

from arena.tournament.ratings import Rating, quality, rate, ratings
from arena.tournament.results import Results
from arena.tournament.runner import (
    Executor,
    Observer,
    RunError,
    RunSummary,
    entrants,
    lock,
    make_executor,
    play,
    run_tables,
    tournament_key,
)
from arena.tournament.scheduler import Table, authors_apart, camp, plays, rotation_matches
from arena.tournament.spec import TournamentSpec, VariantPlan
from arena.tournament.store import MatchRecord, Store, VersionRow

__all__ = ["WAIT_WEIGHT", "choose_table", "paused", "run_ladder"]

WAIT_WEIGHT: Final = 25.0 / 3
"""Seed priority a version gains as the ladder's matches pass it by: having waited while
as many matches were stored as there are versions on the ladder counts as much as an
unrated version's whole sigma."""
NEW: Final = Rating(25.0, 25.0 / 3, 0)
IDLE_S: Final = 5.0
"""How often a waiting ladder looks for new bots."""


def choose_table(pool: Sequence[VersionRow], current: dict[int, Rating], waited: dict[int, int], size: int,
                 apart: bool, rng: random.Random) -> list[VersionRow] | None:
    """The seed (most uncertain and longest waiting), then the fairest opponents; None
    when the pool cannot fill a table of ``size`` (too few bots, or too few authors)."""
    def priority(v: VersionRow) -> float:
        return current.get(v.id, NEW).sigma + WAIT_WEIGHT * waited.get(v.id, len(pool)) / len(pool)

    for seed in sorted(pool, key=lambda v: (-priority(v), rng.random())):
        table = [seed]
        while len(table) < size:
            taken = {camp(v) for v in table}
            rest = [v for v in pool if v not in table and (not apart or camp(v) not in taken)]
            if not rest:
                break
            scores = [quality(current.get(v.id, NEW) for v in [*table, candidate]) + rng.random() * 1e-6
                      for candidate in rest]
            table.append(rest[scores.index(max(scores))])
        if len(table) == size:
            return table
    return None


def _field(spec: TournamentSpec, store: Store, names: Sequence[str]) -> list[VersionRow]:
    """The latest active version of each bot on the ladder (the file's entrants and those
    entered since: ``arena submit --tournament``, the host), but those paused."""
    bots = dict.fromkeys([*names, *(store.entries(spec.name) if spec.open else [])])
    return [v for v in (store.latest(bot) for bot in bots) if v is not None and paused(spec, store, v) is None]


def paused(spec: TournamentSpec, store: Store, version: VersionRow) -> str | None:
    """Why the ladder no longer seats ``version`` (it keeps faulting), or None.  A new
    version of its bot plays again: it is a new version, with no faults yet."""
    faulted, of = store.recent_faults(spec.name, version.id, spec.pause.of)
    if faulted < spec.pause.faulted:
        return None
    return (f"paused on the ladder {spec.name!r}: it faulted in {faulted} of its last {of} matches (the limit is "
            f"{spec.pause.faulted} of {spec.pause.of}); submit a new version to play again")


def run_ladder(spec: TournamentSpec, store: Store, observer: Observer, *, matches: int = 0,
               wait: bool = False, executor: Executor | None = None) -> RunSummary:
    """Play the ladder ``spec`` until ``matches`` more are stored (0: until stopped);
    ``wait``: while no table can be filled, wait for bots to arrive (a host's ladder)
    instead of stopping with a RunError.  ``executor``: where the tables are played (by
    default the file's: local workers, or its cluster); the caller's is not closed."""
    if spec.mode != "ladder":
        raise RunError(f"{spec.locate('mode')}: {spec.name!r} is not a ladder (`mode = \"ladder\"`); "
                       "`arena run` plays it")
    with lock(store, spec.name), ExitStack() as owned:
        if executor is None:
            executor = owned.enter_context(closing(make_executor(spec, observer)))
        names = [v.bot for v in entrants(spec, store, observer.notice).versions] if spec.entrants else []
        store.save_tournament(spec.name, spec.to_dict())
        current = {plan.variant.name: rate(store.results(spec.name, plan.variant.name)) for plan in spec.variants}
        last = _last_played(list(store.matches(spec.name)))
        target = matches or float("inf")
        summary = RunSummary(spec.name, int(min(target, 10**9)), 0)
        observer.started(matches, 0, getattr(executor, "workers", 1), [])
        key = tournament_key(store, spec.name)
        rng = random.Random(key + store.next_seq(spec.name).to_bytes(8, "little"))
        turns = itertools.cycle([(plan, size) for plan in spec.variants for size in plan.tables])

        class Rated:
            """Passes each stored match on, updating what chooses the next tables."""

            def started(self, total: int, done: int, workers: int, sandbox: list[str]) -> None:
                """Reported once for the whole run."""

            def played(self, match: MatchRecord) -> None:
                current[match.variant].update(rate(Results.of([match]), current[match.variant]))
                for seat in match.seats:
                    last[seat.version] = match.seq
                observer.played(match)

            def notice(self, message: str) -> None:
                observer.notice(message)

        idle = 0
        while summary.played < target:
            tables = _wave(spec, store, names, current, last, next(turns), executor.capacity(),
                           target - summary.played, key, rng)
            if tables:
                idle = 0
                play(run_tables, spec, store, tables, executor, Rated(), summary)
                continue
            idle += 1
            if idle < len(spec.variants) * max(len(p.tables) for p in spec.variants):
                continue  # another variant or table size may fill
            if not wait:
                raise RunError(f"the ladder {spec.name!r} cannot fill a table: it needs bots of enough authors that "
                               "play its variants (`arena bots` lists them)")
            if idle == len(spec.variants) * max(len(p.tables) for p in spec.variants):
                observer.notice(f"the ladder {spec.name!r} waits for bots: too few of enough authors play its "
                                "variants yet")
            time.sleep(IDLE_S)
        ratings(store, spec.name)
        for plan in spec.variants:
            ratings(store, spec.name, plan.variant.name)
        summary.stored = summary.played
        return summary


def _wave(spec: TournamentSpec, store: Store, names: Sequence[str], current: dict[str, dict[int, Rating]],
          last: dict[int, int], turn: tuple[VariantPlan, int], count: int, budget: float, key: bytes,
          rng: random.Random) -> list[Table]:
    """Up to ``count`` tables of one variant and size, chosen from the store as it is now."""
    plan, size = turn
    variant = plan.variant.name
    pool = [v for v in _field(spec, store, names) if plays(v, variant)]
    apart = authors_apart(spec, pool)
    seq = store.next_seq(spec.name)
    chosen: dict[int, int] = {}
    tables: list[Table] = []
    while len(tables) < count and budget > 0:
        waited = {v.id: seq - last[v.id] if v.id in last else len(pool) * 10 for v in pool}
        waited.update(chosen)  # a version already seated in this wave waits no more
        group = choose_table(pool, current[variant], waited, size, apart, rng)
        if group is None:
            break
        rotations = int(min(size, budget))
        budget -= rotations
        for v in group:
            chosen[v.id] = -len(pool) * 10
        matches = tuple(rotation_matches(key, f"{spec.name}-{variant}-{size}p", variant, size, [seq], seq, rotations))
        tables.append(Table(f"{spec.name}-{variant}-t{seq}", variant, plan.options, tuple(group), matches))
        seq += rotations
    return tables


def _last_played(matches: Sequence[MatchRecord]) -> dict[int, int]:
    """Each version's last match's sequence number."""
    last: dict[int, int] = {}
    for match in matches:
        for seat in match.seats:
            last[seat.version] = max(last.get(seat.version, -1), match.seq)
    return last
