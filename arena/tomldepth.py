"""How deep a TOML text nests, found without recursion, before a TOML reader recurses into it.

``tomllib`` and msgspec read nested arrays and tables by recursion (RecursionError past a
few hundred levels) and build a dotted key in memory quadratic in its parts (20,000 parts,
2.4 GB): a text from someone else (a bot's manifest, a tournament file) is measured first.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["MAX_NESTING", "too_deep"]

MAX_NESTING: Final = 16
"""How deep arrays and tables may nest, and how many parts a dotted key may have (a
tournament file needs four, a bot's manifest two)."""

_STRINGS_AND_COMMENTS: Final = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*+(?:"""(?:""?)?+)?+'
    r"|'''(?:[^']|'(?!''))*+(?:'''(?:''?)?+)?+"
    r'|"(?:[^"\\\n]|\\.)*+"?+'
    r"|'[^'\n]*+'?+"
    r"|#[^\n]*+",
    re.DOTALL,
)
"""TOML's strings (of each kind; unterminated, up to where they would end) and comments."""
_BRACKET: Final = re.compile(r"[][{}]")
_KEY_PART: Final = "[A-Za-z0-9_-]++"
_DOTTED_KEY: Final = re.compile(rf"(?<![A-Za-z0-9_-]){_KEY_PART}(?:[ \t]*+\.[ \t]*+{_KEY_PART}){{{MAX_NESTING}}}")
"""A key of more than MAX_NESTING parts, once strings are one letter each (quoted parts)."""


def too_deep(text: str) -> tuple[int, str] | None:
    """The line where ``text`` nests deeper than :data:`MAX_NESTING`, and how, or None
    (brackets and dots in strings and comments aside)."""
    skeleton = _STRINGS_AND_COMMENTS.sub(_placeholder, text)
    depth, found = 0, None
    for bracket in _BRACKET.finditer(skeleton):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > MAX_NESTING:
            found = bracket.start(), f"arrays and tables nested deeper than {MAX_NESTING} levels"
            break
    dotted = None if found else _DOTTED_KEY.search(skeleton)
    if dotted:
        found = dotted.start(), f"a dotted key nested deeper than {MAX_NESTING} tables"
    if found is None:
        return None
    return skeleton.count("\n", 0, found[0]) + 1, found[1]


def _placeholder(match: re.Match[str]) -> str:
    """A string as one letter (a key part, if it is one), on as many lines; a comment as nothing."""
    text = match.group()
    return "" if text.startswith("#") else "s" + "\n" * text.count("\n")
