"""Every page of the site: what it is called, where it lives, its template and its data.

The server (:mod:`arena.web.app`) builds one page per request, the report
(:mod:`arena.web.report`) every page at once; both render them with
:func:`arena.web.render.render`.  A new kind of page is a function here returning a
:class:`Page`, a template extending ``base.html``, and one route in the app.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from arena.tournament.views import ResultsError
from arena.web import site
from arena.web.botpage import bot_names, bot_view
from arena.web.matchpage import listing, match_rows, match_view
from arena.web.overview import competitions
from arena.web.ranking import tournament_view
from arena.web.readonly import ReadOnlyStore, Wanted

__all__ = ["Page", "bot", "index", "listed", "match", "matches", "tournament"]


@dataclass(frozen=True)
class Page:
    """A page to render: its path in the site, template, title and data."""

    path: str
    template: str
    title: str
    context: dict[str, Any] = field(default_factory=dict)
    watch: str | None = None
    """What makes it change: a competition's name, ``*`` for anything, None for nothing
    (a stored match never changes)."""


def index(store: ReadOnlyStore, only: Collection[str] | None = None) -> Page:
    """Every competition (or those in ``only``) with its state and progress, and the bots."""
    shown = [c for c in competitions(store) if only is None or c.name in only]
    matches = store.count() if only is None else sum(c.matches for c in shown)
    return Page(site.INDEX, "index.html", "Thirty-One Arena",
                {"competitions": shown, "bots": _bots(store, only), "matches": matches}, "*")


def tournament(store: ReadOnlyStore, name: str, variant: str | None = None, luck: bool = False) -> Page:
    """A competition's ranking, overall or for one variant; with ``luck``, its intervals,
    ranks and odds with the cards' luck taken out."""
    view = tournament_view(store, name, variant, luck)
    title = f"{name} · {variant}" if variant else name
    return Page(site.tournament_page(name, variant), "tournament.html", title, view, name)


def bot(store: ReadOnlyStore, name: str, only: Collection[str] | None = None) -> Page:
    """A bot's versions, results, faults and thinking time (in the competitions ``only``)."""
    return Page(site.bot_page(name), "bot.html", f"bot {name}", bot_view(store, name, only), "*")


def matches(store: ReadOnlyStore, only: Collection[str] | None = None) -> Page:
    """The report's match list: every match (of the competitions ``only``), filtered in
    the browser."""
    return Page(site.matches_page(), "matches.html", "matches", {"rows": match_rows(store, only), "listing": None},
                "*")


def listed(store: ReadOnlyStore, wanted: Wanted, page: int = 1, offered: dict[str, list[str]] | None = None) -> Page:
    """The server's match list: one page of the matches ``wanted`` keeps, newest first
    (``offered``: each filter's choices, where the caller has them)."""
    found = listing(store, wanted, page, offered)
    return Page(site.matches_page(), "matches.html", "matches", {"rows": found["rows"], "listing": found}, "*")


def match(store: ReadOnlyStore, match_id: str) -> Page:
    """A match and its replay."""
    return Page(site.match_page(match_id), "match.html", f"match {match_id}", match_view(store, match_id))


def _bots(store: ReadOnlyStore, only: Collection[str] | None) -> list[dict[str, Any]]:
    found = []
    for name in bot_names(store, only):
        versions = store.versions(name, withdrawn=True)
        latest = versions[-1]
        found.append({"name": name, "versions": len(versions), "label": latest.label,
                      "description": str(latest.manifest.get("description", "")),
                      "withdrawn": all(v.withdrawn for v in versions)})
    return found


def find(names: list[str], wanted: str, what: str) -> str:
    """The name among ``names`` whose path segment is ``wanted`` (links carry slugs)."""
    for name in names:
        if site.slug(name) == wanted:
            return name
    raise ResultsError(f"no {what} {wanted!r}")
