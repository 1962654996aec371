"""What an author sees of their own bots at ``/my/``: each version and whether the ladder
seats it, their latest matches (with links to the replays) and their faults with every
detail the referee kept, which the public pages need not show."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.tournament.ladder import paused
from arena.tournament.spec import TournamentSpec
from arena.web.readonly import RatingsMemo, ReadOnlyStore, SeatRow

__all__ = ["BotView", "author_view"]

RECENT = 20
"""Matches and faults shown per bot."""


@dataclass(frozen=True)
class BotView:
    """One of the author's bots."""

    name: str
    versions: list[dict[str, Any]] = field(default_factory=list)
    matches: list[SeatRow] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)


def author_view(db: Path, memo: RatingsMemo, bots: list[str], ladder: TournamentSpec | None) -> list[BotView]:
    """The author's ``bots`` as the store holds them now."""
    views = []
    with ReadOnlyStore(db, memo) as store:
        for bot in bots:
            versions = store.versions(bot, withdrawn=True)
            latest = store.latest(bot)
            rows = []
            for version in versions:
                state = "withdrawn" if version.withdrawn else "replaced" if latest and version.id != latest.id \
                    else "active"
                if state == "active" and ladder is not None:
                    state = paused(ladder, store, version) or f"playing on the ladder {ladder.name!r}"
                rows.append({"short": version.short, "label": version.label, "created": version.created,
                             "state": state})
            ids = {v.id for v in versions}
            recent = store.seats_of(sorted(ids), newest=RECENT) if ids else []
            faults = store.faults_of(RECENT, versions=sorted(ids))[1] if ids else []
            mine = [{"match": match, **fault} for match, _, fault in faults][:RECENT]
            views.append(BotView(bot, rows, recent, mine))
    return views
