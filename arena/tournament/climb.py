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
from arena.tournament.registry import content_hash
from arena.tournament.sequential import TestPlan

__all__ = ["LADDER_TIME", "STRENGTH_LADDER", "Rung", "rung_plan", "rungs_for", "same_bot"]


@dataclass(frozen=True)
class Rung:
    """A reference bot at a time control of its own (the climber plays at the ladder's)."""

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
``move_ms``, less 5 ms) and at the full 200 ms (a few hundred).  The climber plays at
:data:`LADDER_TIME` on every rung."""


def rungs_for(variant: str) -> tuple[list[Rung], list[Rung]]:
    """The rungs whose bot plays ``variant``, and those skipped because theirs does not."""
    playing = [r for r in STRENGTH_LADDER if find_bot(r.bot).plays(variant)]
    return playing, [r for r in STRENGTH_LADDER if r not in playing]


def rung_plan(template: TestPlan, rung: Rung) -> TestPlan:
    """``template`` (NEW's test at its time control, its BASE still to fill) aimed at
    ``rung``: its bot as BASE at the rung's own ``move_ms`` where that differs from NEW's,
    and a name of its own, so that each rung's test is stored and resumed apart.  The
    default name ends with NEW's content hash where NEW is a folder or a bundled bot: a
    changed bot climbs afresh rather than meeting its earlier version's verdicts."""
    own = None if rung.move_ms == template.time.move_ms else replace(template.time, move_ms=rung.move_ms)
    aimed = replace(template, base=rung.bot, base_time=own, name="")
    where = f"{template.variant}-{template.players}p-{rung.move_ms}ms"
    if own is not None:  # the climber at another time: a test of its own
        where += f"-vs{template.time.move_ms}ms"
    if template.luck:  # one test, one scoring
        where += "-luck"
    if template.name:
        return replace(aimed, name=f"{template.name}-{rung.bot}-{where}")
    version = _short_hash(template.new)
    pair = replace(aimed, base_time=None).title.removeprefix("test-").removesuffix(
        f"-{template.variant}-{template.players}p")
    return replace(aimed, name=f"climb-{pair}-{where}" + (f"-{version}" if version else ""))


def _short_hash(ref: str) -> str:
    """The first 8 hex digits of the content hash of the folder ``ref`` names ('' for a
    registered ``NAME:HASH`` or an installed bot, whose version its name fixes)."""
    try:
        folder = find_bot(ref).folder
        return content_hash(folder)[:8] if folder is not None else ""
    except ManifestError:
        return ""


LADDER_TIME = TimeControl(move_ms=200, bank_ms=2000, first_move_ms=1000)
"""The climber's time control on every rung; each rung's bot plays at its own ``move_ms``
with the same bank."""


def same_bot(ref: str, rung_bot: str) -> bool:
    """Whether ``ref`` names the rung's own bot (its bundled folder): a test's table seats
    each bot once, and a bot tested against itself would have nothing to compare."""
    try:
        return find_bot(ref).folder == find_bot(rung_bot).folder
    except ManifestError:
        return False
