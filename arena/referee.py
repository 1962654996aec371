"""The referee: plays one match between bot processes, enforcing time and handling faults.

The rules engine says whose turn it is and what that seat may see; the referee sends
the seat's bot a ``decide`` request, waits for its reply against the clock, validates
it strictly, and applies it.  A bot that crashes, hangs, sends garbage, answers the
wrong request or plays an illegal action commits a *fault*: by default it forfeits the
match (killed, placed last, the others play on); the ``substitute`` policy plays a
random legal action for it instead and disqualifies it after ``strikes`` faults.
"""

from __future__ import annotations

import os
import random
import select
import shutil
import signal
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, fields
from operator import attrgetter
from pathlib import Path
from typing import Any, Final

import trio

from arena import __version__
from arena.botspec import BotManifest
from arena.cards import Seed, derive_seed
from arena.protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    ActionReply,
    BotHello,
    ProtocolError,
    decode_bot_message,
    decode_reply,
    encode,
    encode_raw,
)
from arena.rules import Action, Event, Variant
from arena.sandbox import Sandbox, Sandboxed, SandboxError
from arena.sandbox.process import BotProcess
from arena.text import printable

__all__ = [
    "FAULT_KINDS",
    "Bot",
    "BotFault",
    "Fault",
    "FaultPolicy",
    "MatchResult",
    "SeatTiming",
    "TimeControl",
    "open_bots",
    "play_match",
]

OFF_TURN_GRACE_MS: Final = 1.0
"""CPU a bot may use between its turns (finishing its reply, reading its next request)
before it is frozen there for good (where it may not ponder)."""
SEND_TIMEOUT_S: Final = 5.0
"""How long a bot may leave its input unread while the referee waits to write to it (a
``decide`` request has the decision's own time instead); longer is a ``timeout`` fault."""
EVENT_BUDGET: Final = MAX_LINE // 2
"""Bytes of events carried inside one decide or match_end; more go in ``events`` messages."""
_EVENT_MAX: Final = 512
"""Bytes most single events take: below budget // this many events, no need to measure."""
STDERR_KEEP: Final = 16 * 1024
"""Bytes of a bot's stderr kept (the tail); the rest is counted and dropped."""
STDERR_SHOWN: Final = 500
"""Characters of that tail a fault's detail shows."""
FAULT_KINDS: Final = (
    "startup", "crash", "timeout", "malformed", "oversized", "wrong_id", "illegal_action", "closed_stdout",
)


@dataclass(frozen=True)
class TimeControl:
    """Per-decision time plus a bank for overruns; extra time for start-up and first moves."""

    move_ms: int = 1000
    """Time for one decision before the bank is drawn on."""
    bank_ms: int = 10_000
    """Overruns of ``move_ms`` are taken from this bank, once per match; empty bank: timeout."""
    first_move_ms: int = 5_000
    """Extra time for a bot's first decision of each match."""
    startup_ms: int = 10_000
    """Time from launch to the bot's ``hello``."""
    ponder: bool = False
    """Whether a bot may think while others decide.  Off (the default), its processes are
    frozen from each reply until its next request (the sandbox's ``freeze`` layer); on, the
    CPU time it uses meanwhile is taken from its time (the bank, then the next decision)."""
    min_turn_ms: int = 0
    """Every decision takes at least this long on the table's clock: the referee holds a
    quicker reply back.  A bot can then not signal the others through how long it thinks,
    as long as it answers within this time (see docs/SANDBOX.md, "Threat model")."""

    def to_dict(self) -> dict[str, int | bool]:
        """The ``time`` field of ``match_start``."""
        return asdict(self)


@dataclass(frozen=True)
class FaultPolicy:
    """What happens to a bot that faults."""

    mode: str = "forfeit"
    """``forfeit``: the bot is out of the match at once; ``substitute``: a random legal action
    is played for it until its ``strikes``-th fault, which disqualifies it."""
    strikes: int = 3

    def __post_init__(self) -> None:
        if self.mode not in ("forfeit", "substitute"):
            raise ValueError(f"fault policy must be 'forfeit' or 'substitute', not {self.mode!r}")
        if self.strikes < 1:
            raise ValueError("strikes must be at least 1")


class BotFault(Exception):
    """A bot broke the protocol or the clock; ``kind`` is one of :data:`FAULT_KINDS`.

    ``label`` names the bot where the fault stands in for it (a bot that did not start);
    ``fatal``: the bot cannot go on under any policy (it stopped reading its input)."""

    def __init__(self, kind: str, detail: str, label: str = "?", *, fatal: bool = False) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.label = label
        self.fatal = fatal or kind in ("crash", "closed_stdout")


@dataclass(frozen=True)
class Fault:
    """A recorded fault: which seat and bot, what happened, and what the referee did."""

    seat: int
    bot: str
    kind: str
    detail: str
    decision: int
    """The match's decision number (from 1) at which it happened; 0 before the first."""
    penalty: str
    """``forfeit``, ``substituted`` or ``disqualified``."""


@dataclass
class SeatTiming:
    """Thinking time of one seat, measured by the referee's clock."""

    decisions: int = 0
    total_s: float = 0.0
    max_s: float = 0.0
    cpu_s: float = 0.0
    """CPU time the bot's whole process tree used in the match up to its last reply (the
    cgroup layer's accounting, read once per decision; 0 without it)."""
    max_cpu_s: float = 0.0
    """The most CPU one decision took, with what the bot did since its previous reply."""

    def add(self, spent_s: float, cpu_s: float) -> None:
        """Count one decision: ``spent_s`` on the referee's clock, ``cpu_s`` of the bot's CPU."""
        self.decisions += 1
        self.total_s += spent_s
        self.cpu_s += cpu_s
        if spent_s > self.max_s:
            self.max_s = spent_s
        if cpu_s > self.max_cpu_s:
            self.max_cpu_s = cpu_s


@dataclass
class MatchResult:
    """Everything a match produced: the outcome, faults, timings and the full log."""

    match_id: str
    variant: str
    options: dict[str, Any]
    seed: Seed
    """What dealt the cards: a public seed, or a secret key (never sent to a bot)."""
    bots: list[str]
    outcome: dict[str, Any]
    faults: list[Fault]
    timings: list[SeatTiming]
    sandbox: list[str]
    """Sandbox layers every bot of the match ran behind."""
    events: list[Event]
    """The rules engine's log: every event with its private parts."""
    duration_s: float
    decisions: int

    @property
    def log(self) -> list[dict[str, Any]]:
        """The full log, JSON-ready (built on demand: most callers only store it)."""
        return [e.full() for e in self.events]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the match record)."""
        record = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "events"}
        if isinstance(self.seed, bytes):  # the match is over: its key may be shown
            record["seed"], record["key"] = None, self.seed.hex()
        record["faults"] = [asdict(f) for f in self.faults]
        record["timings"] = [asdict(t) for t in self.timings]
        record["log"] = self.log
        return record


class _Pipes:
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
                with trio.move_on_after(deadline - time.perf_counter()) as waited:
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
                with trio.move_on_after(deadline - time.perf_counter()) as waited:
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
                raise BotFault("oversized", f"a line of {end} bytes (limit {self._limit})")
            else:
                return line
        if self._skipping:
            buffer.clear()
        elif len(buffer) > self._limit:
            self._skipping = True
            buffer.clear()
            raise BotFault("oversized", f"a line longer than {self._limit} bytes")
        return None


class Bot:
    """A live bot process the referee talks to; may play several matches in a row."""

    def __init__(self, manifest: BotManifest, sandboxed: Sandboxed, layers: Sequence[str] = (),
                 *, freeze: bool = False) -> None:
        self.manifest = manifest
        self.layers = list(layers)
        """The sandbox layers the bot runs behind."""
        self.freezes = freeze and sandboxed.can_freeze
        """Whether its processes are frozen between its turns once it uses the CPU there (see
        :attr:`TimeControl.ponder` and :meth:`caught_thinking`)."""
        self.caught = False
        """Whether it has used the CPU between its turns: frozen between them from then on."""
        self.label = manifest.label
        self.sandboxed = sandboxed
        self._pipes = _Pipes(sandboxed.process, MAX_LINE)
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
            await self.send(encode({"type": "hello", "protocol": PROTOCOL_VERSION, "arena": __version__}))
            message = await self._receive(time.perf_counter() + timeout_s)
        except TimeoutError:
            raise BotFault("startup", f"no hello within {timeout_s:.1f} s") from None
        except BotFault as fault:  # crashed, garbage ...: no valid hello is a start-up fault
            raise BotFault("startup", f"{fault.kind} before hello: {fault.detail}") from None
        if not isinstance(message, BotHello):
            raise BotFault("startup", "the first message must be hello")
        if message.protocol != PROTOCOL_VERSION:
            raise BotFault("startup", f"speaks protocol {message.protocol}, the referee {PROTOCOL_VERSION}")
        self.hello = message
        self.startup_s = time.perf_counter() - start
        if not self.sandboxed.accounts_cpu:  # no way to see it thinking off-turn: freeze it always
            self.caught_thinking()

    async def ask(self, payload: bytes, request: int, sent: float, allowed_s: float) -> str:
        """Send a ``decide`` request at ``sent`` (``time.perf_counter()``); the chosen
        action's text, or a ``timeout`` fault if nothing comes within ``allowed_s``.  A
        reply that comes, but late, is the caller's to judge: it measures the time anyway.

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
                    line = await pipes.readline(sent + allowed_s)
                try:
                    reply = decode_reply(line)
                except ProtocolError as error:
                    raise _malformed(error, line) from None
                if reply.id == request:
                    return reply.action
                if reply.id in self._late:  # a reply that came after its timeout
                    self._late.discard(reply.id)
                    continue
                raise BotFault("wrong_id", f"answered request {reply.id}, expected {request}")
        except EOFError:
            raise await self._gone() from None
        except TimeoutError:
            self._late.add(request)
            raise _timeout(allowed_s) from None
        finally:
            if self.caught:  # its turn is over, whatever happened
                self.sandboxed.freeze()

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
            return BotFault("closed_stdout", "closed its stdout but kept running")
        return BotFault("crash", _exit_status(code) + (f"; stderr: {tail}" if tail else ""))

    async def close(self, grace_s: float = 0.2) -> None:
        """Say ``bye``, give the bot a moment to exit, then kill its whole process group."""
        if self.alive:
            self.alive = False
            self.sandboxed.thaw()  # to read its bye and exit
            with trio.move_on_after(grace_s):
                try:
                    await self._pipes.write(encode({"type": "bye"}), time.perf_counter() + grace_s)
                    await self.sandboxed.process.wait()
                except (EOFError, TimeoutError):
                    pass
        await self.sandboxed.kill()


@asynccontextmanager
async def open_bots(
    manifests: Sequence[BotManifest],
    *,
    time_control: TimeControl = TimeControl(),
    sandbox: Sandbox | None = None,
    grace_s: float = 0.2,
) -> AsyncIterator[list[Bot | BotFault]]:
    """Launch and greet each bot; yields a :class:`Bot`, or the :class:`BotFault` that
    stopped it starting, per manifest.  Every process is killed on exit, ``grace_s``
    after its ``bye`` at the latest.

    ``sandbox`` is the set of isolation layers to launch behind (default: only rlimits
    and an own session; :meth:`Sandbox.probe` finds every layer the machine offers).
    A :class:`SandboxError` (the arena cannot set a sandbox up, e.g. every sandbox user
    is in use) is raised, not charged to the bot: the match cannot be played fairly."""
    box = sandbox or Sandbox()
    refused: list[SandboxError] = []
    async with trio.open_nursery() as nursery:
        bots: list[Bot | BotFault] = [BotFault("startup", "not started", m.label) for m in manifests]

        async def start(i: int, manifest: BotManifest) -> None:
            argv = manifest.argv(box.python)
            problem = _command_problem(manifest, argv)
            if problem:
                bots[i] = BotFault("startup", problem, manifest.label)
                return
            try:
                sandboxed = await box.launch(argv, manifest.folder, confines_itself=manifest.is_python)
            except SandboxError as error:  # the arena's failure, raised once every bot is gone
                refused.append(error)
                return
            except OSError as error:  # the bot's command cannot run
                bots[i] = BotFault("startup", f"cannot start {argv[0]!r}: {error}", manifest.label)
                return
            bot = Bot(manifest, sandboxed, box.active, freeze=not time_control.ponder)
            nursery.start_soon(bot.drain_stderr)
            try:
                await bot.handshake(time_control.startup_ms / 1000)
                bots[i] = bot
            except BotFault as fault:
                tail = bot.stderr_text(300).strip()
                detail = f"{fault.detail}; stderr: {tail}" if tail and "stderr:" not in fault.detail else fault.detail
                bots[i] = BotFault(fault.kind, detail, manifest.label)
                await bot.close(0)

        try:
            async with trio.open_nursery() as starters:
                for i, manifest in enumerate(manifests):
                    starters.start_soon(start, i, manifest)
            if not refused:
                yield bots
        finally:
            with trio.CancelScope(shield=True):
                async with trio.open_nursery() as closing:  # each waits for its bot to exit: at once
                    for bot in bots:
                        if isinstance(bot, Bot):
                            closing.start_soon(bot.close, grace_s)
            nursery.cancel_scope.cancel()
    if refused:  # out here, not inside the nursery: callers get the error itself
        raise refused[0]


SANDBOX_PATH: Final = "/usr/local/bin:/usr/bin:/bin"
"""Where a bot's command is looked for when it names no folder (the sandbox's PATH)."""


def _command_problem(manifest: BotManifest, argv: Sequence[str]) -> str:
    """Why the command of a bot that is not a Python module cannot start, with the fix;
    empty if it can."""
    if manifest.is_python:
        return ""
    program = argv[0]
    if "/" not in program:
        if shutil.which(program, path=SANDBOX_PATH) is None:
            return (f"its command {program!r} is not a program the sandbox has ({SANDBOX_PATH}); name a file of the "
                    "bot's folder (e.g. \"./bot\") or an interpreter installed there (docs/BOTS.md, 'Other languages')")
        return ""
    path = Path(program)
    if not path.is_file():
        return (f"its command {program} does not exist; build it, or fix `command` in its bot.toml "
                "(docs/BOTS.md, 'Other languages')")
    if not path.stat().st_mode & 0o111:
        return (f"its command {program} is not executable: `chmod +x {path.name}` in the bot's folder "
                "(docs/BOTS.md, 'Other languages')")
    return ""


def _timeout(allowed_s: float) -> BotFault:
    """The fault of a bot that did not answer within ``allowed_s``."""
    return BotFault("timeout", f"no answer within {allowed_s * 1000:.0f} ms")


def _idle_timeout(fault: BotFault, cpu_s: float, spent_s: float) -> BotFault:
    """A timeout of a bot that hardly used the CPU while its clock ran: it was waiting,
    most likely for its own reply to leave an output buffer."""
    if fault.kind != "timeout" or fault.fatal or cpu_s > 0.1 * spent_s:
        return fault
    return BotFault("timeout", f"{fault.detail}; it used {cpu_s * 1000:.0f} ms of CPU meanwhile, so it was "
                               "waiting, not thinking: did it write its reply without a newline, or without "
                               "flushing its output? (docs/PROTOCOL.md, 'Transport')")


def _malformed(error: ProtocolError, line: bytes) -> BotFault:
    """The fault of a line that is not a protocol message; a hint where it is no JSON at all."""
    hint = "" if line.lstrip()[:1] == b"{" else (
        "; stdout carries only protocol lines: debug output belongs on stderr (docs/PROTOCOL.md, 'Transport')")
    return BotFault("malformed", f"{error}: {line[:200]!r}{hint}")


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
    return BotFault("timeout", f"left its input unread for {waited_s:.1f} s (the pipe to it stayed full)", fatal=True)


def _chosen(text: str, legal: Sequence[Action]) -> Action:
    """The legal action whose text the bot sent; an ``illegal_action`` fault otherwise."""
    for action in legal:
        if action.text == text:
            return action
    raise BotFault("illegal_action", f"{text!r} is not one of {[a.text for a in legal]}")


SUBSTITUTE: Final = 0x5EED
"""derive_seed label of the generator that picks a substituted bot's random actions."""
_DECIDE: Final = b'{"type":"decide","id":%d,"observation":%s,"legal":%s,"time_left_ms":%d,"events":[%s]}\n'
_text: Final = attrgetter("text")


def _split(news: list[bytes], budget: int) -> tuple[list[bytes], list[bytes]]:
    """(``events`` messages to send first, events that fit in the next message)."""
    if len(news) * _EVENT_MAX <= budget or sum(len(n) + 1 for n in news) <= budget:
        return [], news
    messages: list[bytes] = []
    batch: list[bytes] = []
    size = 0
    for item in news:
        if batch and size + len(item) + 1 > budget:
            messages.append(b'{"type":"events","events":[' + b",".join(batch) + b"]}\n")
            batch, size = [], 0
        batch.append(item)
        size += len(item) + 1
    messages.append(b'{"type":"events","events":[' + b",".join(batch) + b"]}\n")
    return messages, []


class _News:
    """What each seat has not yet been told of the match log, encoded as it will be sent.

    Each event is encoded once when it is first needed and queued for every seat: the
    same bytes for all, except for a seat with a private part of its own."""

    def __init__(self, log: list[Event], players: int) -> None:
        self._log = log
        self._done = 0  # events of the log queued so far
        self._queues: list[list[bytes]] = [[] for _ in range(players)]
        self._heads: dict[tuple[str, int | None], bytes] = {}

    def take(self, seat: int) -> list[bytes]:
        """The events ``seat`` has not been told yet, as it may see them; now told."""
        log = self._log
        if self._done < len(log):
            queues = self._queues
            for i in range(self._done, len(log)):
                event = log[i]
                public = self._public_view(event)
                private = event.private
                if private:
                    for s, queue in enumerate(queues):
                        queue.append(encode_raw(event.view(s)) if s in private else public)
                else:
                    for queue in queues:
                        queue.append(public)
            self._done = len(log)
        news = self._queues[seat]
        self._queues[seat] = []
        return news

    def _public_view(self, event: Event) -> bytes:
        """``event.view(None)`` encoded: its public part's JSON spliced after a cached
        ``{"event":...,"seat":...`` head, which spares building the merged dict."""
        public = event.public
        if "event" in public or "seat" in public:  # would override the head: merge instead
            return encode_raw(event.view(None))
        key = (event.kind, event.seat)
        head = self._heads.get(key)
        if head is None:  # b'{"event":"action","seat":1': the view of an empty event, open
            head = self._heads[key] = encode_raw(event._replace(public={}).view(None))[:-1]
        body = encode_raw(public)
        return head + b"," + body[1:] if len(body) > 2 else head + b"}"


async def play_match(
    variant: Variant,
    bots: Sequence[Bot | BotFault],
    *,
    seed: Seed,
    options: Mapping[str, Any] | None = None,
    match_id: str = "match",
    time_control: TimeControl = TimeControl(),
    policy: FaultPolicy = FaultPolicy(),
) -> MatchResult:
    """Play one match, seat ``i`` taken by ``bots[i]``.

    A :class:`BotFault` in ``bots`` (a bot that failed to start) forfeits that seat at
    once.  Bots that forfeit are killed; the others stay alive for the caller to reuse.
    """
    started = time.perf_counter()
    players = len(bots)
    state = variant.new_match(players, seed=seed, options=options)
    news_for = _News(state.log, players).take
    faults: list[Fault] = []
    timings = [SeatTiming() for _ in range(players)]
    strikes = [0] * players
    first = [True] * players
    bank_ms = [float(time_control.bank_ms)] * players  # time in ms: time_left_ms is then exact
    substitute = random.Random(derive_seed(seed, SUBSTITUTE))
    request = 0
    resolved = variant.resolve(options)
    overrides = {name: resolved[name] for name in options or {}}
    live: list[Bot | None] = [bot if isinstance(bot, Bot) else None for bot in bots]
    accounting = [isinstance(bot, Bot) and bot.sandboxed.accounts_cpu for bot in bots]
    pondering = [on and isinstance(bot, Bot) and not bot.freezes for bot, on in zip(bots, accounting)]
    """Seats whose CPU between their turns is charged to their clock (not frozen, accounted)."""
    cpu_mark = [bot.sandboxed.cpu_ns() if on and isinstance(bot, Bot) else 0 for bot, on in zip(bots, accounting)]

    async def fault(seat: int, error: BotFault) -> bool:
        """Record a fault; True if the seat is now out of the match."""
        strikes[seat] += 1
        out = policy.mode == "forfeit" or error.fatal or strikes[seat] >= policy.strikes
        entrant = bots[seat]
        if not out and isinstance(entrant, Bot):
            try:
                await entrant.send(encode({"type": "error", "message": f"{error}; a random legal action was played"}))
            except BotFault as unreachable:  # it cannot even be told: it is out
                error = BotFault(error.kind, f"{error.detail}; then {unreachable}")
                out = True
        penalty = "forfeit" if policy.mode == "forfeit" else ("disqualified" if out else "substituted")
        faults.append(Fault(seat, entrant.label, error.kind, error.detail, request, penalty))
        if out:
            state.forfeit(seat)
            if isinstance(entrant, Bot):
                live[seat] = None
                await entrant.close(0)
        return out

    for seat, entrant in enumerate(bots):
        if isinstance(entrant, BotFault):
            faults.append(Fault(seat, entrant.label, entrant.kind, entrant.detail, 0, "forfeit"))
            state.forfeit(seat)
    for seat, player in enumerate(live):
        if player is not None:
            start = {"type": "match_start", "match_id": match_id, "variant": variant.name, "options": resolved,
                     "seat": seat, "players": players, "time": time_control.to_dict()}
            try:
                await player.send(encode(start))
            except BotFault as error:
                await fault(seat, error)

    clock = time.perf_counter  # cheaper than trio's clock, which only a real wait needs
    move_ms, first_move_ms, min_turn_ms = time_control.move_ms, time_control.first_move_ms, time_control.min_turn_ms
    while not state.is_over:
        to_move = state.to_move
        assert to_move is not None
        seat = to_move
        current = live[seat]
        if current is None:  # forfeited seats never move again
            raise RuntimeError(f"seat {seat} has no bot but is to move")
        legal = state.legal_actions()
        request += 1
        if request % 32 == 0:
            await trio.lowlevel.checkpoint()  # replies often need no wait: let other matches run
        news = news_for(seat)
        budget_ms = move_ms + first_move_ms if first[seat] else move_ms
        charged_ms = 0.0  # CPU it used on others' turns, where it may ponder
        if pondering[seat]:
            now_ns = current.sandboxed.cpu_ns()
            charged_ms = (now_ns - cpu_mark[seat]) / 1e6
            cpu_mark[seat] = now_ns
        allowed_ms = budget_ms + bank_ms[seat] - charged_ms
        failure: BotFault | None = None
        spent = 0.0
        try:
            if allowed_ms <= 0:
                raise BotFault("timeout", f"used {charged_ms:.0f} ms of CPU on others' turns, more than its "
                                          f"{budget_ms + bank_ms[seat]:.0f} ms left")
            if len(news) * _EVENT_MAX > EVENT_BUDGET:  # perhaps too many for one line
                early, news = _split(news, EVENT_BUDGET)
                for message in early:  # a seat that has not decided for long: its news go first
                    await current.send(message)
            payload = _DECIDE % (request, encode_raw(state.observe(seat)), encode_raw(list(map(_text, legal))),
                                 allowed_ms, b",".join(news))
            began = clock()
            try:
                text = await current.ask(payload, request, began, allowed_ms / 1000)
            finally:
                spent = clock() - began
            if spent * 1000 > allowed_ms:  # it answered, but late
                raise _timeout(allowed_ms / 1000)
            action = _chosen(text, legal)
        except BotFault as error:
            failure = error
        cpu_ns = 0
        if accounting[seat]:  # one read per decision: the counter costs a system call
            cpu_ns = current.sandboxed.cpu_ns() - cpu_mark[seat]
            cpu_mark[seat] += cpu_ns
        timings[seat].add(spent, cpu_ns / 1e9)
        if failure is not None and accounting[seat]:
            failure = _idle_timeout(failure, cpu_ns / 1e9, spent)
        if cpu_ns / 1e6 > spent * 1000 + OFF_TURN_GRACE_MS:  # it ran when it was not its turn
            current.caught_thinking()
        if spent * 1000 < min_turn_ms:  # every turn looks alike to the others
            await trio.sleep(min_turn_ms / 1000 - spent)
        overrun_ms = spent * 1000 + charged_ms - budget_ms
        if overrun_ms > 0:
            bank_ms[seat] = max(0.0, bank_ms[seat] - overrun_ms)
        first[seat] = False
        if failure is not None:
            if await fault(seat, failure):
                continue
            action = substitute.choice(legal)
        state.apply(action)

    assert state.outcome is not None
    outcome = state.outcome.to_dict()
    for seat, player in enumerate(live):
        if player is not None:
            early, news = _split(news_for(seat), EVENT_BUDGET)
            try:
                for message in early:
                    await player.send(message)
                await player.send(b"".join((
                    b'{"type":"match_end","match_id":', encode_raw(match_id),
                    b',"outcome":', encode_raw(outcome), b',"events":[', b",".join(news), b"]}\n",
                )))
            except BotFault as error:  # the match is over: nothing to forfeit, but it is not reused
                faults.append(Fault(seat, player.label, error.kind, error.detail, request, "none"))
                await player.close(0)
    return MatchResult(
        match_id=match_id,
        variant=variant.name,
        options=overrides,
        seed=seed,
        bots=[b.label for b in bots],
        outcome=outcome,
        faults=faults,
        timings=timings,
        sandbox=sorted(set.intersection(*(set(b.layers) for b in bots if isinstance(b, Bot)))) if any(
            isinstance(b, Bot) for b in bots) else [],
        events=state.log,
        duration_s=time.perf_counter() - started,
        decisions=request,
    )
