"""Escaping a bot's text for display (arena/text.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena.text import counted, has_controls, printable


def test_controls_become_visible_escapes() -> None:
    assert printable("a\x1b]0;t\x07b") == "a\\x1b]0;t\\x07b"
    assert printable("\x9b31m\x7f\x00") == "\\x9b31m\\x7f\\x00"
    assert printable("abc\u202eevil\u2066") == "abc\\u202eevil\\u2066"
    assert printable("two\nlines\tand a tab") == "two\nlines\tand a tab"
    assert printable("two\nlines\tand a tab", lines=False) == "two\\x0alines\\x09and a tab"
    assert printable("ünïcödé ♠ ♥ 10♦") == "ünïcödé ♠ ♥ 10♦"
    assert has_controls("x\x1b") and has_controls("x\n") and not has_controls("plain ♣")


@given(st.text())
def test_escaping_is_total_and_idempotent(text: str) -> None:
    once = printable(text, lines=False)
    assert not has_controls(once)
    assert printable(once, lines=False) == once


def test_counts_read_in_the_right_number() -> None:
    assert [counted(n, "round") for n in (0, 1, 2)] == ["0 rounds", "1 round", "2 rounds"]
    assert counted(1, "match") == "1 match" and counted(3, "match") == "3 matches"
    assert counted(2, "fault") == "2 faults" and counted(2, "this", "these") == "2 these"
