"""The match list and a match's page (its seats, faults and replay)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from arena.tournament.store import VersionRow
from arena.tournament.views import labels
from arena.web.overview import when
from arena.web.readonly import ReadOnlyStore
from arena.web.replay import replay_steps
from arena.web.site import bot_page, match_page

__all__ = ["match_rows", "match_view"]


def match_rows(store: ReadOnlyStore, only: Collection[str] | None = None,
               newest: int | None = None) -> list[dict[str, Any]]:
    """One row per stored match (of the competitions ``only``; the ``newest`` that finished
    last), in schedule order, for the list's filters: id, page, tournament, variant, seats
    (bot, label, placement, faults), reason, rounds, finished."""
    versions: dict[int, VersionRow] = {}
    rows = []
    for match in store.matches() if newest is None else store.newest(newest):
        if only is not None and match.tournament not in only:
            continue
        seats = []
        for seat in match.seats:
            version = versions.get(seat.version) or versions.setdefault(seat.version, store.version(seat.version))
            seats.append({"bot": version.bot, "label": version.label, "place": seat.placement,
                          "faults": seat.faults, "page": bot_page(version.bot)})
        rows.append({"id": match.id, "page": match_page(match.id), "t": match.tournament, "v": match.variant,
                     "seats": seats, "reason": match.reason, "rounds": match.rounds,
                     "finished": when(match.finished)})
    return rows


def match_view(store: ReadOnlyStore, match_id: str) -> dict[str, Any]:
    """The page's context: the ``match``, its ``seats`` (version, record, name shown),
    ``names``, and the ``replay`` data for the viewer."""
    match = store.match(match_id)
    versions = [store.version(s.version) for s in match.seats]
    names = labels(versions)
    seats = [{"seat": i, "version": v, "record": s, "name": names[v.id],
              "mean_ms": 1000 * s.think_s / s.decisions if s.decisions else None}
             for i, (v, s) in enumerate(zip(versions, match.seats))]
    replay = replay_steps(store, match)
    replay["seats"] = [{"name": names[v.id], "bot": v.bot} for v in versions]
    replay["outcome"] = [{"place": s.placement, "score": s.score} for s in match.seats]
    return {"match": match, "seats": seats, "finished": when(match.finished), "replay": replay}
