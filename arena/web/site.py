"""Where every page lives, the same for the server and the static report.

A page's *path* is the file the report writes (``t/demo/index.html``); the server serves
it at that path without its ``index.html`` (``/t/demo/``).  Links are made by
:class:`Links` from the page being written: absolute on the server, relative in the report,
so a report works from ``file://`` and from any folder of any static host.

Names from the database become path segments only through :func:`slug`: a name that is not
plainly safe (a ``/``, a leading dot, anything beyond letters, digits, ``.``, ``_`` and
``-``) is replaced by a hash of it, so no name can lead a link or a report file
elsewhere.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import quote, urlencode

__all__ = ["STATIC_DIR", "Links", "bot_page", "match_page", "matches_page", "slug", "static_file", "tournament_page",
           "url_of", "INDEX"]

INDEX: Final = "index.html"
STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
"""The stylesheets, scripts and vendored libraries every page loads (served at ``static/``)."""
_SAFE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def slug(name: str) -> str:
    """``name`` as one path segment: itself when safe, else ``~`` and a hash of it."""
    if _SAFE.fullmatch(name):
        return name
    return "~" + hashlib.sha256(name.encode()).hexdigest()[:20]


def tournament_page(name: str, variant: str | None = None) -> str:
    """A tournament's page: its overall ranking, or one variant's."""
    if variant is None:
        return f"t/{slug(name)}/{INDEX}"
    return f"t/{slug(name)}/v/{slug(variant)}/{INDEX}"


def bot_page(bot: str) -> str:
    """A bot's page (every version)."""
    return f"b/{slug(bot)}/{INDEX}"


def match_page(match_id: str) -> str:
    """A match's page with its replay."""
    return f"m/{slug(match_id)}/{INDEX}"


def matches_page() -> str:
    """The match list."""
    return f"matches/{INDEX}"


def static_file(name: str) -> str:
    """A file of the static folder."""
    return f"static/{name}"


def url_of(path: str) -> str:
    """The server's URL of ``path``."""
    return "/" + quote(path[: -len(INDEX)] if path.endswith(INDEX) else path)


@dataclass(frozen=True)
class Links:
    """Links from the page at ``here``: server URLs, or (``relative``) paths from its folder."""

    here: str
    relative: bool

    @property
    def root(self) -> str:
        """The link to the site's root folder, ending in ``/``."""
        if not self.relative:
            return "/"
        return posixpath.relpath(".", posixpath.dirname(self.here) or ".") + "/"

    def __call__(self, path: str, **query: str | None) -> str:
        """The link to ``path``, with the query parameters that are not ``None``."""
        shown = {k: v for k, v in query.items() if v is not None}
        suffix = f"?{urlencode(shown)}" if shown else ""
        if not self.relative:
            return url_of(path) + suffix
        return quote(posixpath.relpath(path, posixpath.dirname(self.here) or ".")) + suffix
