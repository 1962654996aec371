"""``arena test NEW BASE``: does one bot version beat another?  Played until a sequential
test decides (:func:`arena.tournament.stats.sprt`).

The two play the same deals in every seat rotation, heads-up or at tables filled with
chosen field bots.  The test is an ordinary tournament in the results database (named
``test-NEW-BASE-VARIANT-Np`` unless named otherwise), grown a batch of deals at a time:
stored, resumable after Ctrl+C or a crash, and rankable with ``arena table``.  Each
complete deal gives one number, NEW's mean comparison score against BASE over the deal's
rotations (1: always placed better, 0.5: level); the test's settings are kept with the
tournament, so ``arena test --show`` reports the same verdict later.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.luck import no_estimate
from arena.referee import TimeControl
from arena.rules import get_variant
from arena.text import counted
from arena.tournament.adjust import LuckBook, spread
from arena.tournament.runner import Executor, Observer, RunError, run_tournament
from arena.tournament.spec import TournamentSpec, VariantPlan
from arena.tournament.stats import SequentialTest, sequential_test
from arena.tournament.store import MatchRecord, Store

__all__ = ["TestPlan", "deal_scores", "run_test", "verdict"]


@dataclass(frozen=True)
class TestPlan:
    """What to test and how sure to be."""

    new: str
    base: str
    variant: str = "scat"
    players: int = 2
    field_bots: tuple[str, ...] = ()
    """Bots filling the other seats (``players - 2`` of them)."""
    options: dict[str, Any] = field(default_factory=dict)
    margin: float = 0.05
    """H1: NEW's comparison score against BASE is at least 0.5 + margin."""
    alpha: float = 0.05
    """The chance of a "better" verdict when NEW is no better."""
    beta: float = 0.05
    """The chance of missing a real gain of the margin."""
    max_deals: int = 400
    batch: int = 8
    """Deals added at a time (the verdict is taken at the first deal that crosses a bound)."""
    time: TimeControl = TimeControl()
    name: str = ""
    luck: bool = False
    """Score each deal with the luck of the cards taken out (:mod:`arena.tournament.adjust`)."""
    base_time: TimeControl | None = None
    """BASE's own time control (None: ``time``, as every other seat): a bot against a
    weaker budget of another, say, with NEW at its own."""

    def __post_init__(self) -> None:
        if self.players - 2 != len(self.field_bots):
            raise RunError(f"a {self.players}-player test needs {counted(self.players - 2, 'field bot')} "
                           f"(--field), not {len(self.field_bots)}")
        if not 0 < self.margin < 0.5 or not 0 < self.alpha < 0.5 or not 0 < self.beta < 0.5:
            raise RunError("margin, alpha and beta must each be between 0 and 0.5")
        rules = get_variant(self.variant)
        rules.check_players(self.players)
        rules.resolve(self.options)  # a bad option fails here, not in every referee worker
        if self.luck and (why := no_estimate(self.variant)):
            raise RunError(f"{why}: test it without --luck")

    @property
    def title(self) -> str:
        """The tournament's name in the results database."""
        if self.name:
            return self.name
        raw = f"test-{_called(self.new)}-{_called(self.base)}-{self.variant}-{self.players}p"
        if self.base_time is not None:
            raw += f"-base{self.base_time.move_ms}ms"
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", raw)

    def spec(self, deals: int) -> TournamentSpec:
        """The tournament that plays ``deals`` deals (one table: NEW, BASE and the field).

        Authors are not kept apart: the test's one table seats every bot it names on purpose
        (two versions of one bot, or bundled bots of one author in the field)."""
        plan = VariantPlan(get_variant(self.variant), dict(self.options), (self.players,))
        return TournamentSpec(self.title, (plan,), entrants=(self.new, self.base, *self.field_bots), deals=deals,
                              time=self.time, entrant_time={self.base: self.base_time} if self.base_time else {},
                              description=f"arena test {self.new} {self.base}", authors_apart=False)

    def settings(self) -> dict[str, Any]:
        """What the store keeps so that the verdict can be shown again."""
        kept = asdict(self)
        kept["time"] = self.time.to_dict()
        kept["base_time"] = None if self.base_time is None else self.base_time.to_dict()
        kept["field_bots"] = list(self.field_bots)
        return kept

    @classmethod
    def from_settings(cls, kept: dict[str, Any]) -> TestPlan:
        """The plan :meth:`settings` kept (TypeError or ValueError for settings that do not
        read; settings from before a field existed take its default)."""
        base_time = kept.get("base_time")
        return cls(**{**kept, "time": TimeControl(**kept.get("time", {})),
                      "base_time": None if base_time is None else TimeControl(**base_time),
                      "field_bots": tuple(kept.get("field_bots", ()))})


def _called(ref: str) -> str:
    """A bot reference as a test's name shows it: a folder by its own name and a short hash
    of where it is (``./rust-scat`` named the test ``test-._rust-scat-...``; two folders of
    one name, ``../v2/mybot`` and ``../v3/mybot``, are two tests), a name or ``NAME:HASH``
    as written."""
    if "/" in ref or ref.startswith("."):
        where = Path(ref).resolve()
        return f"{where.name}.{hashlib.blake2b(str(where).encode(), digest_size=3).hexdigest()}"
    return ref


def deal_scores(matches: Iterable[MatchRecord], new: int, base: int, rotations: int,
                book: LuckBook | None = None) -> list[float]:
    """NEW's mean comparison score against BASE per complete deal, in deal order (with the
    luck taken out where a ``book`` holds it)."""
    by_deal: dict[int, list[float]] = {}
    for match in matches:
        seats = {s.version: k for k, s in enumerate(match.seats)}
        if match.deal is None or new not in seats or base not in seats:
            continue
        i, j = seats[new], seats[base]
        if book is not None:
            score = book.pair_score(match, i, j)
        else:
            a, b = match.seats[i].placement, match.seats[j].placement
            score = 1.0 if a < b else 0.5 if a == b else 0.0
        by_deal.setdefault(match.deal, []).append(score)
    return [sum(s) / len(s) for _, s in sorted(by_deal.items()) if len(s) == rotations]


def verdict(store: Store, plan: TestPlan, book: LuckBook | None = None) -> SequentialTest | None:
    """The test's state from the stored matches (None before its first run); a ``book``
    keeps the matches' luck between calls."""
    stored = store.tournament_spec(plan.title)
    if not stored or not store.count(plan.title):
        return None
    pinned = stored.get("pinned", {})
    new, base = pinned.get(f"entrant:{plan.new}"), pinned.get(f"entrant:{plan.base}")
    if new is None or base is None:
        return None
    rotations = plan.players  # the test's one table plays each deal in every rotation of its seats
    if not plan.luck:
        return sequential_test(deal_scores(store.matches(plan.title), new, base, rotations), plan.margin, plan.alpha,
                               plan.beta)
    book = book if book is not None else LuckBook(store, plan.title)
    book.refresh()
    wide = spread(plan.players)
    return sequential_test(deal_scores(store.matches(plan.title), new, base, rotations, book),
                           plan.margin, plan.alpha, plan.beta, low=-wide, high=1 + wide)


def run_test(plan: TestPlan, store: Store, observer: Observer, report: Callable[[SequentialTest], None], *,
             workers: int | None = None, concurrency: int | None = None,
             executor: Executor | None = None) -> SequentialTest:
    """Play batches of deals until the test decides or ``max_deals`` are played."""
    stored = store.tournament_spec(plan.title) or {}
    played_with = stored.get("test", {}).get("luck", False)
    if stored.get("test") and played_with != plan.luck:  # one test, one scoring: else two tries at alpha
        raise RunError(f"{plan.title} was played {'with' if played_with else 'without'} --luck: go on "
                       f"{'with' if played_with else 'without'} it, or start another test (--name)")
    deals = max(int(stored.get("deals", 0)), plan.batch)
    book = LuckBook(store, plan.title)
    while True:
        summary = run_tournament(plan.spec(deals), store, observer, workers=workers, concurrency=concurrency,
                                 executor=executor)
        kept = store.tournament_spec(plan.title) or {}
        if kept.get("pinned", {}).get(f"entrant:{plan.new}") == kept.get("pinned", {}).get(f"entrant:{plan.base}"):
            raise RunError(f"{plan.new} and {plan.base} are the same version: there is nothing to test")
        store.save_tournament(plan.title, {**kept, "test": plan.settings(), "scheduled": summary.total})
        result = verdict(store, plan, book)
        assert result is not None
        report(result)
        if result.verdict != "undecided" or deals >= plan.max_deals or not summary.complete:
            return result
        deals = min(deals + plan.batch, plan.max_deals)
