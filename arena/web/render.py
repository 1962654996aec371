"""Pages to HTML: the Jinja2 templates, with autoescaping on for every one of them.

Bot-supplied text (names, versions, descriptions, notes, fault details) reaches the pages
only through autoescaped expressions and the ``tojson`` filter (which escapes ``<``, ``>``,
``&`` and quotes, so no ``</script>`` can close the JSON a page embeds); no template marks
any of it safe.  Scripts come only from the static folder (:data:`CONTENT_SECURITY_POLICY`).
"""

from __future__ import annotations

import json
from typing import Any, Final

import msgspec
from jinja2 import Environment, PackageLoader, StrictUndefined

from arena.rules.hands import format_value
from arena.web import site
from arena.web.pages import Page

__all__ = ["CONTENT_SECURITY_POLICY", "META_POLICY", "render"]

META_POLICY: Final = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                      "connect-src 'self'; base-uri 'none'; form-action 'self'")
"""What a page may load: scripts, styles and images from the site itself (no inline script,
no other host).  The report carries it in a ``<meta>`` element."""
CONTENT_SECURITY_POLICY: Final = META_POLICY + "; frame-ancestors 'none'"
"""The server's header: the same, and no framing (a directive only a header can give)."""

_ENV: Final = Environment(loader=PackageLoader("arena.web", "templates"), autoescape=True,
                          undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _percent(share: float | None) -> str:
    return "" if share is None else f"{100 * share:.0f}%"


def _number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _json(value: Any, **_: Any) -> str:
    """``tojson``'s encoder: msgspec, compact and in the order the fields were made (the
    log's order is what the replay shows), four times the standard library's speed on a
    replay, which is most of a match page; the standard library where msgspec declines a
    value (an object keyed by booleans or None, a lone surrogate in a string).  Jinja
    escapes the result for HTML either way."""
    try:
        return _ENCODE(value).decode()
    except (TypeError, ValueError):
        return json.dumps(value)


_ENCODE: Final = msgspec.json.Encoder().encode
_ENV.filters.update(percent=_percent, number=_number, value=format_value)
_ENV.policies["json.dumps_function"] = _json


def render(page: Page, *, relative: bool, live: str | None = None, seen: str = "") -> str:
    """``page`` as HTML.  ``relative``: links for the static report; ``live``: the status
    URL the page polls to redraw itself when ``seen`` (its status when drawn) changes."""
    context: dict[str, Any] = dict(page.context)
    context.update(page=page, url=site.Links(page.path, relative), site=site, relative=relative,
                   live=live if page.watch is not None else None, seen=seen, policy=META_POLICY)
    return _ENV.get_template(page.template).render(context)
