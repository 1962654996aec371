"""JSON for the bot host's first exchange, without importing :mod:`json`.

Importing :mod:`json` also imports :mod:`re` and :mod:`enum` and compiles json's regular
expressions, ~4 ms of every Python bot's start-up.  The C scanner and string encoder that
:mod:`json` itself uses (``_json``, part of CPython's standard library) give the same
results without them; anything they cannot handle (malformed input, another Python) goes
to :mod:`json`.

:func:`json_loads_bounded` reads JSON from anyone: :mod:`json` recurses once per level of
nesting and raises RecursionError on a deep enough document, so the depth is counted first,
without recursion.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["json_loads", "json_loads_bounded", "json_string"]

_JSON_SPACE = " \t\n\r"
_SCANNER: list[Callable[[str, int], tuple[Any, int]]] = []
_STEPS = {"[": 1, "{": 1, "]": -1, "}": -1}
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"?'
"""A JSON string, escapes included; unterminated, up to the end."""


class _ScanOptions:
    """What ``json.JSONDecoder()`` passes its C scanner, with the default options."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity and -Infinity, as json.loads reads them


def json_loads(text: str | bytes) -> Any:
    """``json.loads(text)``, usually without importing :mod:`json`."""
    try:
        if not _SCANNER:
            from _json import make_scanner

            _SCANNER.append(make_scanner(_ScanOptions()))  # type: ignore[arg-type]  # reads these attributes
        document = (text.decode("utf-8") if isinstance(text, bytes) else text).strip(_JSON_SPACE)
        value, end = _SCANNER[0](document, 0)
        if end == len(document):
            return value
    except Exception:  # noqa: BLE001 - json.loads below gives the error its proper form
        pass
    import json

    return json.loads(text)


def _depth(text: str) -> int:
    """How deep arrays and objects nest in the JSON ``text`` (brackets in strings aside),
    counted without recursion, in C loops: any depth, any length."""
    import re
    from itertools import accumulate

    outside = re.sub(_STRING, "", text, flags=re.DOTALL)
    return max(accumulate(map(_STEPS.__getitem__, re.findall(r"[][{}]", outside))), default=0)


def json_loads_bounded(text: str, max_depth: int) -> Any:
    """``json.loads(text)`` of text from anyone; ValueError, saying what is wrong, for what
    is not JSON or nests deeper than ``max_depth`` (never RecursionError, and no value
    deeper than the code reading it expects)."""
    if _depth(text) > max_depth:
        raise ValueError(f"JSON nested deeper than {max_depth} arrays and objects")
    try:
        return json_loads(text)
    except ValueError as error:
        raise ValueError(f"not JSON: {error}") from None


def json_string(text: str) -> str:
    """``json.dumps(text)``, usually without importing :mod:`json`."""
    try:
        from _json import encode_basestring_ascii
    except ImportError:
        import json

        return json.dumps(text)
    return str(encode_basestring_ascii(text))
