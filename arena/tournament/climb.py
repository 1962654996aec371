"""The strength ladder: reference bots of known order that a new bot climbs, one test a rung.

A bot author's first question is how strong a bot is, in words that mean something:
"better than the heuristic bot, not yet better than the search bot at 15 ms".  Each rung
is a bundled bot at a time control; climbing plays ``arena test`` against each rung in
order, from the weakest, and stops at the first that the new bot is not shown to beat.
The rungs are in the order of their measured strength (docs/STRENGTH.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from arena.botspec import ManifestError, find_bot
from arena.referee import TimeControl
from arena.tournament.sequential import TestPlan

__all__ = ["LADDER_TIME", "STRENGTH_LADDER", "Rung", "rung_plan", "rungs_for", "same_bot"]


@dataclass(frozen=True)
class Rung:
    """A reference bot at a time control (both seats of a test play under it)."""

    bot: str
    move_ms: int

    @property
    def label(self) -> str:
        return f"{self.bot} at {self.move_ms} ms"


STRENGTH_LADDER = (
    Rung("random", 200),
    Rung("threshold", 200),
    Rung("heuristic", 200),
    Rung("ismcts", 15),
    Rung("ismcts", 200),
)
"""From the weakest: a legal random move, the "knock at 25" baseline, the rule-of-thumb
heuristic bot, the search bot at 15 ms a decision (about ten deals: it searches 60% of
``move_ms``, less 5 ms) and at the full 200 ms (a few hundred).  A rung's time control
binds both seats: a bot that needs more than 15 ms a decision draws on its bank there."""


def rungs_for(variant: str) -> tuple[list[Rung], list[Rung]]:
    """The rungs whose bot plays ``variant``, and those skipped because theirs does not."""
    playing = [r for r in STRENGTH_LADDER if find_bot(r.bot).plays(variant)]
    return playing, [r for r in STRENGTH_LADDER if r not in playing]


def rung_plan(plan: TestPlan, rung: Rung) -> TestPlan:
    """``plan`` (NEW against nothing yet) aimed at ``rung``: its bot as BASE, its time
    control, and a name of its own, so that each rung's test is stored and resumed apart."""
    aimed = replace(plan, base=rung.bot, time=replace(plan.time, move_ms=rung.move_ms), name="")
    prefix = f"{plan.name}-{rung.bot}" if plan.name else "climb" + aimed.title.removeprefix("test")
    return replace(aimed, name=f"{prefix}-{rung.move_ms}ms")


LADDER_TIME = TimeControl(move_ms=200, bank_ms=2000, first_move_ms=1000)
"""The ladder's time control; each rung sets its own ``move_ms``."""


def same_bot(ref: str, rung_bot: str) -> bool:
    """Whether ``ref`` names the rung's own bot (its bundled folder): a test against itself
    would have nothing to compare."""
    try:
        return find_bot(ref).folder == find_bot(rung_bot).folder
    except ManifestError:
        return False
