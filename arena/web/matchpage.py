"""The match list and a match's page (its seats, faults and replay)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final

from arena.tournament.store import MatchRecord, VersionRow
from arena.tournament.views import ResultsError, labels
from arena.web.botpage import bot_names
from arena.web.overview import when
from arena.web.readonly import ReadOnlyStore, Wanted
from arena.web.replay import replay_steps
from arena.web.site import bot_page, match_page

__all__ = ["LISTED", "choices", "listing", "match_rows", "match_view"]

LISTED: Final = 200
"""Matches on one page of the server's list."""


def match_rows(store: ReadOnlyStore, only: Collection[str] | None = None) -> list[dict[str, Any]]:
    """One row per stored match (of the competitions ``only``), in schedule order, for the
    report's list, which filters them itself: id, page, tournament, variant, seats (bot,
    label, placement, faults), reason, rounds, finished."""
    versions: dict[int, VersionRow] = {}
    return [_row(store, match, versions) for match in store.matches()
            if only is None or match.tournament in only]


def listing(store: ReadOnlyStore, wanted: Wanted, page: int,
            offered: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The server's list: page ``page`` (from 1) of the stored matches ``wanted`` keeps, the
    newest first, filtered and counted by the database (a ladder stores too many to send).
    ``rows`` as :func:`match_rows`, ``total``, ``page``, ``pages``, ``wanted`` and the
    ``choices`` of each filter (``offered``, or read)."""
    total, found = store.listed(wanted, (page - 1) * LISTED, LISTED)
    pages = max(1, -(-total // LISTED))
    if page > pages:
        raise ResultsError(f"no page {page} of the match list: it has {pages}")
    versions: dict[int, VersionRow] = {}
    return {"rows": [_row(store, match, versions) for match in found], "total": total, "page": page,
            "pages": pages, "wanted": wanted, "choices": offered or choices(store)}


def choices(store: ReadOnlyStore) -> dict[str, list[str]]:
    """What each filter of the list offers: competitions (``t``), variants (``v``), bots."""
    return {"t": sorted(store.played()), "v": store.variants(), "bot": bot_names(store)}


def _row(store: ReadOnlyStore, match: MatchRecord, versions: dict[int, VersionRow]) -> dict[str, Any]:
    seats = []
    for seat in match.seats:
        version = versions.get(seat.version) or versions.setdefault(seat.version, store.version(seat.version))
        seats.append({"bot": version.bot, "label": version.label, "place": seat.placement,
                      "faults": seat.faults, "page": bot_page(version.bot)})
    return {"id": match.id, "page": match_page(match.id), "t": match.tournament, "v": match.variant,
            "seats": seats, "reason": match.reason, "rounds": match.rounds, "finished": when(match.finished)}


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
