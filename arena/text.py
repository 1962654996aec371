"""Text that comes from a bot, made safe to show anywhere.

A bot controls its stderr (shown in fault details) and its manifest's free text (author,
description, notes).  Shown raw on a terminal, an escape sequence can set the window's
title, write the operator's clipboard (OSC 52) or hide what follows; a bidirectional
override can make a line read other than it is.  :func:`printable` replaces every such
character with a visible escape (``\\x1b``, ``\\u202e``); it is applied where bot text
enters the arena (so the store holds it clean) and again where text is shown.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["counted", "has_controls", "printable"]

_BIDI: Final = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE: Final = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
_UNSAFE_LINES: Final = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = True) -> str:
    """``text`` with every control character (C0 but newline and tab, DEL, C1), line and
    paragraph separator and bidirectional control written as a visible escape; with
    ``lines=False`` newlines and tabs too (for one-line fields)."""
    return (_UNSAFE if lines else _UNSAFE_LINES).sub(_escape, text)


def has_controls(text: str) -> bool:
    """Whether ``text`` holds anything :func:`printable` would escape on one line."""
    return _UNSAFE_LINES.search(text) is not None



def counted(number: int, noun: str, plural: str = "") -> str:
    """``1 round``, ``2 rounds``, ``3 matches``: a count with its noun in the right number."""
    if number == 1:
        return f"1 {noun}"
    return f"{number} {plural or noun + ('es' if noun.endswith(('ch', 'sh', 's', 'x')) else 's')}"
