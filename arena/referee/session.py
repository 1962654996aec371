"""A bot session: one live bot process the referee talks to, from its ``hello`` to its
``bye``, with its stderr kept, its clock enforced and its processes frozen between its
turns once it is seen thinking there."""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Sequence
from typing import Final

import trio

from arena import __version__
from arena.botspec import BotManifest
from arena.protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    ActionReply,
    BotHello,
    Bye,
    Error,
    Hello,
    ProtocolError,
    decode_bot_message,
    decode_reply,
    encode,
)
from arena.referee.channel import Pipes
from arena.referee.records import BotFault, FaultKind
from arena.sandbox import Sandboxed
from arena.text import printable

__all__ = ["MATCH_START_GRACE_MS", "OFF_TURN_GRACE_MS", "SEND_TIMEOUT_S", "STDERR_KEEP", "STDERR_SHOWN", "WALL_CAP",
           "WALL_GRACE_S", "Bot", "cpu_charge", "timeout_fault"]

OFF_TURN_GRACE_MS: Final = 1.0
"""CPU a bot may use between its turns (finishing its reply, reading its next request)
before it is frozen there for good (where it may not ponder)."""
MATCH_START_GRACE_MS: Final = 50.0
"""The same before its first request of a match, which it may spend reading ``match_start``
(an SDK bot takes about 9 ms)."""
WALL_CAP: Final = 3.0
"""On the CPU clock, a decision may last this many times its allowance on the wall clock
(a busy machine delays a bot's thinking; a bot that waits is not thinking)."""
WALL_GRACE_S: Final = 0.1
"""And this much more: a short allowance on a loaded core needs a few time slices."""
SEND_TIMEOUT_S: Final = 5.0
"""How long a bot may leave its input unread while the referee waits to write to it (a
``decide`` request has the decision's own time instead); longer is a ``timeout`` fault."""
STDERR_KEEP: Final = 16 * 1024
"""Bytes of a bot's stderr kept (the tail); the rest is counted and dropped."""
STDERR_SHOWN: Final = 500
"""Characters of that tail a fault's detail shows."""
_BYE: Final = encode(Bye())


class Bot:
    """A live bot process the referee talks to; may play several matches in a row."""

    def __init__(self, manifest: BotManifest, sandboxed: Sandboxed, layers: Sequence[str] = (),
                 *, freeze: bool = False, grace_s: float = 0.2) -> None:
        self.manifest = manifest
        self.grace_s = grace_s
        """How long it is given to exit after its ``bye``."""
        self.layers = list(layers)
        """The sandbox layers the bot runs behind."""
        self.freezes = freeze and sandboxed.can_freeze
        """Whether its processes are frozen between its turns once it uses the CPU there (see
        :attr:`TimeControl.ponder` and :meth:`caught_thinking`)."""
        self.caught = False
        """Whether it has used the CPU between its turns: frozen between them from then on."""
        self.label = manifest.label
        self.sandboxed = sandboxed
        self._pipes = Pipes(sandboxed.process, MAX_LINE)
        self._late: set[int] = set()
        self.stderr_tail = bytearray()
        self.stderr_bytes = 0
        stderr = sandboxed.process.stderr
        self._stderr = stderr  # owns the fd: keep it open
        self._stderr_poll = select.poll()
        self._stderr_poll.register(stderr.fileno(), select.POLLIN)
        self._stderr_done = False
        self.alive = True
        self.hello: BotHello | None = None
        self.startup_s = 0.0

    async def drain_stderr(self) -> None:
        """Keep the tail of the bot's stderr; runs for the process's life.

        Each read is kept before the next checkpoint, so once the pipe is empty the tail
        holds everything the bot wrote (see :meth:`_stderr_settled`)."""
        fd = self._stderr.fileno()
        try:
            while True:
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    await trio.lowlevel.wait_readable(fd)
                    continue
                if not data:
                    break
                self.stderr_bytes += len(data)
                self.stderr_tail += data
                if len(self.stderr_tail) > 2 * STDERR_KEEP:
                    del self.stderr_tail[:-STDERR_KEEP]
        except (OSError, trio.ClosedResourceError):
            pass
        finally:
            self._stderr_done = True

    async def _stderr_settled(self, timeout_s: float = 0.5) -> None:
        """Wait until what the bot wrote to stderr so far is in the tail: the pipe is
        empty, or closed and drained.  A child holding stderr open costs no wait."""
        with trio.move_on_after(timeout_s):
            while not self._stderr_done and self._stderr_poll.poll(0):
                await trio.sleep(0.001)

    def stderr_text(self, limit: int = 2000) -> str:
        """The last ``limit`` characters the bot wrote to stderr, control characters escaped
        (they reach the operator's terminal in fault details)."""
        return printable(self.stderr_tail[-limit:].decode("utf-8", "replace"))

    async def send(self, payload: bytes, timeout_s: float = SEND_TIMEOUT_S) -> None:
        """Send one encoded message; a dead pipe is a crash or a closed stream, a pipe that
        stays full for ``timeout_s`` a timeout."""
        try:
            written = self._pipes.write_now(payload)
            if written < len(payload):  # rare: a long message or a full pipe
                await self._write_rest(memoryview(payload)[written:], time.perf_counter() + timeout_s)
        except EOFError:
            raise await self._gone() from None
        except TimeoutError:
            raise _unread(timeout_s) from None

    async def _write_rest(self, rest: memoryview, deadline: float) -> None:
        """Finish a write the pipe could not take at once.  A frozen bot cannot read: it
        runs until the write is done, then is frozen again."""
        frozen = self.sandboxed.frozen
        if frozen:
            self.sandboxed.thaw()
        try:
            await self._pipes.write(rest, deadline)
        finally:
            if frozen:
                self.sandboxed.freeze()

    async def handshake(self, timeout_s: float) -> None:
        """Exchange ``hello`` messages within ``timeout_s`` of launch."""
        start = time.perf_counter()
        try:
            await self.send(encode(Hello(PROTOCOL_VERSION, __version__)))
            message = await self._receive(time.perf_counter() + timeout_s)
        except TimeoutError:
            raise BotFault(FaultKind.STARTUP, f"no hello within {timeout_s:.1f} s") from None
        except BotFault as fault:  # crashed, garbage ...: no valid hello is a start-up fault
            raise BotFault(FaultKind.STARTUP, f"{fault.kind} before hello: {fault.detail}") from None
        if not isinstance(message, BotHello):
            raise BotFault(FaultKind.STARTUP, "the first message must be hello")
        if message.protocol != PROTOCOL_VERSION:
            raise BotFault(FaultKind.STARTUP, f"speaks protocol {message.protocol}, the referee {PROTOCOL_VERSION}")
        self.hello = message
        self.startup_s = time.perf_counter() - start
        if not self.sandboxed.accounts_cpu:  # no way to see it thinking off-turn: freeze it always
            self.caught_thinking()

    async def ask(self, payload: bytes, request: int, sent: float, allowed_s: float,
                  cpu_from: int | None = None) -> str:
        """Send a ``decide`` request at ``sent`` (``time.perf_counter()``); the chosen
        action's text, or a ``timeout`` fault if nothing comes within ``allowed_s``.  A
        reply that comes, but late, is the caller's to judge: it measures the time anyway.

        With ``cpu_from`` (the bot's CPU counter, ns, when its time started) ``allowed_s``
        is CPU time: the wait goes on while the bot has used less than that, up to
        :data:`WALL_CAP` times it on the wall clock.

        The referee's hot path, kept flat: a bot on the referee's core answers while the
        referee yields the core to it, so the reply is usually in the pipe at the first
        read, and a decision costs three system calls and no wait."""
        pipes = self._pipes
        try:
            written = pipes.write_now(payload)
            self.sandboxed.thaw()  # once its request is there: it wakes to read it, not to wait for it
            if written < len(payload):  # rare: a long message or a full pipe
                try:
                    await pipes.write(memoryview(payload)[written:], sent + allowed_s)
                except TimeoutError:
                    raise _unread(allowed_s) from None
            # A bot sharing the referee's core (a tournament pins them together) can only
            # answer once the referee lets go of it: hand the core over now rather than
            # after a failed read and a poll.  Elsewhere the call returns at once.
            os.sched_yield()
            while True:
                line = pipes.readline_now()
                if line is None:  # not there yet: wait for it
                    line = await self._wait_line(sent, allowed_s, cpu_from)
                try:
                    reply = decode_reply(line)
                except ProtocolError as error:
                    raise _malformed(error, line) from None
                if reply.id == request:
                    return reply.action
                if reply.id in self._late:  # a reply that came after its timeout
                    self._late.discard(reply.id)
                    continue
                raise BotFault(FaultKind.WRONG_ID, f"answered request {reply.id}, expected {request}")
        except EOFError:
            raise await self._gone() from None
        except TimeoutError:
            self._late.add(request)
            raise timeout_fault(allowed_s, cpu_from is not None) from None
        finally:
            if self.caught:  # its turn is over, whatever happened
                self.sandboxed.freeze()

    async def _wait_line(self, sent: float, allowed_s: float, cpu_from: int | None) -> bytes:
        """The reply line, waited for until the bot's time is up (see :meth:`ask`)."""
        deadline = sent + allowed_s
        if cpu_from is None:
            return await self._pipes.readline(deadline)
        cap = sent + allowed_s * WALL_CAP + WALL_GRACE_S
        while True:
            try:
                return await self._pipes.readline(deadline)
            except TimeoutError:
                now = time.perf_counter()
                left_s = allowed_s - cpu_charge((self.sandboxed.cpu_ns() - cpu_from) / 1e9, now - sent)
                if left_s <= 0 or now >= cap:
                    raise
                deadline = min(cap, now + max(left_s, 0.001))

    def caught_thinking(self) -> None:
        """From now on, freeze the bot's processes from each reply until its next request.

        A bot waiting for its next request uses no CPU, and freezing one that sleeps costs
        more than the decision itself (the kernel wakes each process to stop it, and again
        to go on): so a bot is frozen between its turns from the moment it is seen using
        the CPU there (:data:`OFF_TURN_GRACE_MS`), which it can do once per process."""
        if self.freezes and not self.caught:
            self.caught = True
            self.sandboxed.freeze()

    async def _receive(self, deadline: float) -> BotHello | ActionReply:
        try:
            line = self._pipes.readline_now()
            if line is None:  # not there yet: wait for it
                line = await self._pipes.readline(deadline)
        except EOFError:
            raise await self._gone() from None
        try:
            return decode_bot_message(line)
        except ProtocolError as error:
            raise _malformed(error, line) from None

    async def _gone(self) -> BotFault:
        """Why the bot's stream ended: a crash (it exited) or a closed stdout."""
        process = self.sandboxed.process
        with trio.move_on_after(0.5):
            await process.wait()
        code = process.returncode
        if code is not None:
            await self._stderr_settled()
        tail = self.stderr_text(STDERR_SHOWN).strip()
        if code is None:
            return BotFault(FaultKind.CLOSED_STDOUT, "closed its stdout but kept running")
        return BotFault(FaultKind.CRASH, _exit_status(code) + (f"; stderr: {tail}" if tail else ""))

    async def close(self, grace_s: float | None = None, why: str | None = None) -> None:
        """Say ``bye`` (after an ``error`` saying ``why``, for a bot put out of its match),
        give the bot ``grace_s`` (default :attr:`grace_s`) to exit, then kill its whole
        process group."""
        grace_s = self.grace_s if grace_s is None else grace_s
        if self.alive:
            self.alive = False
            self.sandboxed.thaw()  # to read its bye and exit
            farewell = _BYE if why is None else encode(Error(why)) + _BYE
            with trio.move_on_after(grace_s):
                try:
                    await self._pipes.write(farewell, time.perf_counter() + grace_s)
                    await self.sandboxed.process.wait()
                except (EOFError, TimeoutError):
                    pass
        await self.sandboxed.kill()


def cpu_charge(cpu_s: float, wall_s: float) -> float:
    """What a decision that took ``cpu_s`` of the bot's CPU and ``wall_s`` on the wall clock
    costs on the CPU clock: its CPU, but at least its wall time (less the grace) over
    :data:`WALL_CAP`, so that waiting is not free (a bot that sleeps near the cap at every
    decision would stretch every match) while a bot that has a third of a core is never
    charged more than its CPU."""
    return max(cpu_s, (wall_s - WALL_GRACE_S) / WALL_CAP)


def timeout_fault(allowed_s: float, on_cpu: bool = False) -> BotFault:
    """The fault of a bot that did not answer within ``allowed_s`` (of CPU time: ``on_cpu``)."""
    return BotFault(FaultKind.TIMEOUT, f"no answer within {allowed_s * 1000:.0f} ms{' of CPU time' if on_cpu else ''}")


def _malformed(error: ProtocolError, line: bytes) -> BotFault:
    """The fault of a line that is not a protocol message; a hint where it is no JSON at all."""
    hint = "" if line.lstrip()[:1] == b"{" else (
        "; stdout carries only protocol lines: debug output belongs on stderr (docs/PROTOCOL.md, 'Transport')")
    return BotFault(FaultKind.MALFORMED, f"{error}: {line[:200]!r}{hint}")


def _exit_status(code: int) -> str:
    """How a bot's process ended, naming the signal that killed it (directly, or as the
    128 + N status a shell or the sandbox's init reports)."""
    number = -code if code < 0 else code - 128 if code > 128 else 0
    try:
        name = signal.Signals(number).name if number else ""
    except ValueError:
        name = ""
    if code < 0:
        return f"killed by {name or f'signal {number}'}"
    if name:
        crash = " (a crash in its own code, e.g. a bad memory access)" if name in ("SIGSEGV", "SIGBUS") else ""
        return f"exited with status {code}: killed by {name}{crash}"
    return f"exited with status {code}"


def _unread(waited_s: float) -> BotFault:
    """The fault of a bot whose input pipe stayed full: it cannot be asked anything more."""
    return BotFault(FaultKind.TIMEOUT, f"left its input unread for {waited_s:.1f} s (the pipe to it stayed full)",
                    fatal=True)

