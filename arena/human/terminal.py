"""The terminal front of a person's seat: each decision as a screen, answers read line by line.

Reads the terminal without a thread and without changing its modes: it waits until a
line can be read, so the wait can be cancelled (the match ends while the person thinks)
and Ctrl+C reaches the program as a signal, to be handled there.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from typing import TextIO

import trio

from arena.human.render import decision_text, ending_text
from arena.human.view import Decision, Ending

__all__ = ["CLEAR", "Terminal"]

CLEAR = "\x1b[H\x1b[2J"
"""Cursor home and erase the screen: each decision starts on a clean screen."""
QUIT_WORDS = ("quit", "exit")


class Terminal:
    """Screens on ``out``, input from the file descriptor ``fd``.

    ``leave`` is called with how the person quit (``typed quit``, ``the input ended``): it
    should abandon the match, which withdraws the question."""

    def __init__(self, leave: Callable[[str], None], *, out: TextIO = sys.stdout, fd: int = 0,
                 clear: bool | None = None) -> None:
        self.leave = leave
        self.out = out
        self.fd = fd
        self.clear = out.isatty() if clear is None else clear
        self._buffer = bytearray()

    def _write(self, text: str) -> None:
        """Write to the terminal; one that is gone (its window closed) is not an error: the
        match is being abandoned, and must still be recorded."""
        try:
            self.out.write(text)
            self.out.flush()
        except OSError:
            pass

    def _show(self, lines: list[str], *, fresh: bool = False) -> None:
        self._write((CLEAR if fresh and self.clear else "") + "\n".join(lines) + "\n")

    async def ask(self, view: Decision, problem: str | None) -> str:
        """Show the screen (or, after a refused input, why), then read one line."""
        if problem is None:
            size = shutil.get_terminal_size((100, 40))
            self._show(decision_text(view, size.columns, size.lines), fresh=True)
        else:
            self._show([line if i == 0 else f"  {line}" for i, line in enumerate(problem.splitlines())])
        self._write("> ")
        line = await self._readline()
        if line is None or line.strip().lower() in QUIT_WORDS:
            if line is None:
                self._write("\n")
            self.leave("typed quit" if line is not None else "the input ended")
            await trio.sleep_forever()  # the match is being abandoned: this question is withdrawn
        return line or ""

    def finished(self, view: Ending) -> None:
        self._show(ending_text(view), fresh=True)

    def left(self, message: str) -> None:
        self._show(["", message])

    def notice(self, message: str) -> None:
        self._show([f"Referee: {message}"])

    async def _readline(self) -> str | None:
        """The next line typed (without its newline); None at the end of the input."""
        while (end := self._buffer.find(b"\n")) < 0:
            try:
                await trio.lowlevel.wait_readable(self.fd)
            except OSError:  # a regular file cannot be waited for: it never blocks
                await trio.lowlevel.checkpoint()
            try:
                data = os.read(self.fd, 4096)
            except OSError:  # the terminal is gone
                data = b""
            if not data:
                if not self._buffer:
                    return None
                end = len(self._buffer)
                self._buffer += b"\n"
                break
            self._buffer += data
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line.decode("utf-8", "replace")
