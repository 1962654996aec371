"""Line framing over a bot process's pipes, with deadlines: the referee's side of the
JSON-lines transport (docs/PROTOCOL.md, 'Transport')."""

from __future__ import annotations

import os
import select
import time

import trio

from arena.referee.records import BotFault, FaultKind
from arena.sandbox import BotProcess

__all__ = ["Pipes"]


class Pipes:
    """Line I/O with one bot process on the referee's hot path.

    Writes go straight to the non-blocking pipe and reads try the pipe before waiting,
    so a decision costs at most one trip through trio's scheduler (the wait for the
    reply) instead of the three that ``send_all`` plus ``receive_some`` take.  The
    ``_now`` methods never wait and are plain functions: most writes and many reads
    complete at once, and a coroutine call per step costs more than the step.
    """

    def __init__(self, process: BotProcess, limit: int) -> None:
        stdin, stdout = process.stdin, process.stdout
        self._streams = (stdin, stdout)  # they own the fds: keep them open
        self._write_fd = stdin.fileno()
        self._read_fd = stdout.fileno()
        self._limit = limit
        self._buffer = bytearray()
        self._skipping = False  # inside an oversized line: drop up to its newline
        self._poll = select.poll()
        self._poll.register(self._read_fd, select.POLLIN)

    def write_now(self, data: bytes | memoryview) -> int:
        """Write what the pipe takes now (usually all: one syscall); the bytes written.
        EOFError if the bot's stdin is closed."""
        try:
            return os.write(self._write_fd, data)
        except BlockingIOError:
            return 0
        except OSError:
            raise EOFError from None

    async def write(self, data: bytes | memoryview, deadline: float) -> None:
        """Write all of ``data``, waiting for room in the pipe until ``deadline``
        (``time.perf_counter()``); TimeoutError after it, EOFError if the pipe is closed."""
        view = memoryview(data)
        while view:
            view = view[self.write_now(view):]
            if view:
                with trio.move_on_after(max(0.0, deadline - time.perf_counter())) as waited:
                    await trio.lowlevel.wait_writable(self._write_fd)
                if waited.cancelled_caught:
                    raise TimeoutError

    def readline_now(self) -> bytes | None:
        """The next line (without its newline) if it has arrived, else None: no waiting.

        EOFError at the end of the stream; an oversized line is a fault, dropped whole."""
        buffer = self._buffer
        if not buffer and not self._skipping:  # the usual case: the whole reply is one read
            data = self._read()
            if data is None:
                return None
            if data[-1] == 10 and data.find(b"\n") == len(data) - 1 and len(data) <= self._limit:
                return data[:-1]
            buffer += data
        while (line := self._take_line()) is None:
            data = self._read()
            if data is None:
                return None
            buffer += data
        return line

    async def readline(self, deadline: float) -> bytes:
        """The next line by ``deadline`` (``time.perf_counter()``: cheaper than trio's
        clock, which only a real wait needs); ``TimeoutError`` after it.  For use once
        :meth:`readline_now` has found nothing: it waits before reading again."""
        while True:
            if not self._poll.poll(1):  # wait briefly before parking: most replies take microseconds
                with trio.move_on_after(max(0.0, deadline - time.perf_counter())) as waited:
                    await trio.lowlevel.wait_readable(self._read_fd)
                if waited.cancelled_caught:
                    raise TimeoutError
            if (line := self.readline_now()) is not None:
                return line

    def _read(self) -> bytes | None:
        """What the pipe holds now, None if nothing; EOFError at its end."""
        try:
            data = os.read(self._read_fd, 65536)
        except BlockingIOError:
            return None
        except OSError:
            raise EOFError from None
        if not data:
            raise EOFError
        return data

    def _take_line(self) -> bytes | None:
        """Remove the buffer's first complete line and return it; None if there is none."""
        buffer = self._buffer
        while (end := buffer.find(b"\n")) >= 0:
            line = b"" if self._skipping or end > self._limit else bytes(buffer[:end])
            del buffer[: end + 1]  # an oversized line goes too: it is reported once
            if self._skipping:  # the end of an oversized line already reported
                self._skipping = False
            elif end > self._limit:
                raise BotFault(FaultKind.OVERSIZED, f"a line of {end} bytes (limit {self._limit})")
            else:
                return line
        if self._skipping:
            buffer.clear()
        elif len(buffer) > self._limit:
            self._skipping = True
            buffer.clear()
            raise BotFault(FaultKind.OVERSIZED, f"a line longer than {self._limit} bytes")
        return None
