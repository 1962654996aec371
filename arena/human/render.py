"""The person's screens as plain text: a decision (:func:`decision_text`), a refused input's
explanation, and the end of the match (:func:`ending_text`).

Only text, no terminal control: the terminal front clears the screen before each one, a
test or a log can print them as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arena.human.narrate import cards_text
from arena.human.parse import valued
from arena.human.view import Decision, Ending, SeatLine

__all__ = ["NEWS_SHOWN", "choices_text", "decision_text", "ending_text", "typing_hint"]

NEWS_SHOWN: Final = 5
"""Narration lines a decision screen shows at least, however small the terminal (the
latest; what does not fit is counted): a person who sat out a long stretch sees its end,
and the question stays on the screen."""


def _seat_rows(seats: Sequence[SeatLine]) -> list[str]:
    name_width = max(len(s.name) for s in seats)
    player_width = max(len(s.player) for s in seats)
    standing_width = max(len(s.standing) for s in seats)
    return [f"  {s.name:<{name_width}}  {s.player:<{player_width}}  {s.standing:<{standing_width}}  "
            f"{', '.join(s.notes)}".rstrip() for s in seats]


def choices_text(legal: Sequence[str], width: int) -> list[str]:
    """The legal actions numbered from 1, in as many columns as ``width`` holds, numbered
    down each column."""
    if not legal:
        return []
    digits = len(str(len(legal)))
    cell = max(len(text) for text in legal) + digits + 6
    columns = max(1, min(len(legal), (width - 2) // cell))
    rows = -(-len(legal) // columns)
    lines = []
    for row in range(rows):
        cells = [f"{index + 1:>{digits}}  {legal[index]}" for index in range(row, len(legal), rows)]
        lines.append("  " + "".join(c.ljust(cell) for c in cells).rstrip())
    return lines


def decision_text(view: Decision, width: int = 100, height: int = 1000) -> list[str]:
    """A decision screen that fits ``height`` lines with its prompt: the seats, what
    happened (the latest that fits), the table, the hand, the question and the numbered
    choices."""
    top = [f"== {view.title} ==", *_seat_rows(view.seats), ""]
    label_width = max((len(label) for label, _ in view.table), default=0)
    bottom = [f"  {label:<{label_width}}  {text}" for label, text in view.table]
    hand = f"Your hand: {cards_text(view.hand)}" + (f"   · {view.hand_note}" if view.hand_note else "")
    bottom += ["", hand, ""]
    clock = f"  You have {view.time_left_ms / 1000:.0f} s." if view.time_left_ms is not None else ""
    bottom.append(view.prompt + clock)
    bottom += choices_text(view.legal, width)
    bottom.append(f"Type {typing_hint(view.legal)} (? for help, quit to leave).")
    news: list[str] = []
    if view.news:
        room = max(NEWS_SHOWN, height - len(top) - len(bottom) - 4)  # the heading, a gap, a count, the prompt
        shown = view.news[-room:]
        news = ["Since your last move:"]
        if len(shown) < len(view.news):
            news.append(f"  ... {len(view.news) - len(shown)} earlier lines")
        news += [f"  {line}" for line in shown]
        news.append("")
    return [*top, *news, *bottom]


def ending_text(view: Ending) -> list[str]:
    """The end of the match: its last events and the final placements."""
    lines = [f"== {view.title} =="]
    lines += [f"  {line}" for line in view.news]
    if view.abandoned:
        return [*lines, "", f"The match was {view.reason}.", "Nothing was decided; what was played is recorded."]
    lines += ["", "Final placements:"]
    name_width = max((len(p.name) for p in view.places), default=0)
    player_width = max((len(p.player) for p in view.places), default=0)
    for place in view.places:
        lines.append(f"  {place.place}.  {place.name:<{name_width}}  {place.player:<{player_width}}  "
                     f"score {place.score}")
    return lines


def typing_hint(legal: Sequence[str]) -> str:
    """What may be typed, to follow "type": where numbers are bids, a number is a bid and a
    choice is ``#N``."""
    values = valued(legal)
    if values:
        return f"a bid ({values[0]}), #N for choice N, an action or its cards"
    return "a number, an action or its cards"
