"""Shared machinery of the hostile-bot tests (the fixtures are in ``conftest.py``).

The hostile bots are real bot folders in ``tests/sandbox/bots/<name>/``.  Each test
plays a real ``scat`` match behind the sandbox that :meth:`Sandbox.probe` finds on this
machine (probed once per session), with :func:`play`, which

* copies each hostile bot to a fresh world-readable folder under ``/tmp`` (the bot's
  user must be able to read it; the copy can also carry data the test injects: ports,
  pids, tokens) -- see :func:`bot_copy`;
* watches every bot while the match runs: the pids in its control groups, its CPU time;
* after the match and after ``open_bots`` has closed every bot, checks that nothing of
  the bot is left: no process that was ever in its groups, no process of its user, no
  control group directory, no scratch folder (:class:`Remains`); any leftover process
  is then killed by pid so one failing test does not poison the next.

A hostile bot reports what its attack observed as one line on stderr,
``REPORT {json}``, which the referee keeps in the bot's stderr tail (:meth:`Played.report`).
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import json
import os
import secrets
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.botspec import BotManifest, find_bot, load_manifest
from arena.referee import Bot, BotFault, FaultPolicy, MatchResult, TimeControl, open_bots, play_match
from arena.rules import get_variant
from arena.sandbox import LayerStatus, Sandbox, Sandboxed
from arena.sandbox.launcher import BOT_DIR, IMPORT_DIR
from arena.sandbox.uids import UidPool

BOTS = Path(__file__).resolve().parent / "bots"
PACKAGE = Path(__file__).resolve().parents[2] / "arena"
SCAT = get_variant("scat")
FAST = TimeControl(move_ms=300, bank_ms=300, first_move_ms=2000, startup_ms=5000)
"""The time control of most tests: a hostile first decision has 2.6 s in all."""
HURRY = TimeControl(move_ms=300, bank_ms=300, first_move_ms=400, startup_ms=5000)
"""For bots that are meant to time out: 1 s for their first decision."""
MATCH_TIMEOUT_S = 40
"""A referee that has not returned by then did not survive (the test fails, not hangs)."""
REPORT_WAIT_S = 5.0
SETTLE_S = 60.0
"""How long a reporter's stderr pipe may take to empty into the referee's tail: a bound a
saturated machine cannot reach, there only so that a bot that never stops writing cannot
hang the test."""
FORFEIT = FaultPolicy()


# ---------------------------------------------------------------------------------------
# Which layers a test depends on


def inside(box: Sandbox, path: Path, folder: Path | None = None) -> str:
    """Where a bot sees ``path``: under bubblewrap its folder (``folder``) is at ``/bot`` and
    the arena package under ``/run/arena``; otherwise every path is where it is."""
    if not box.status["bwrap"].active:
        return str(path)
    places = {PACKAGE: Path(IMPORT_DIR, "arena"), **({folder: Path(BOT_DIR)} if folder else {})}
    for host, seen in places.items():
        if path == host or host in path.parents:
            return str(seen / path.relative_to(host))
    return str(path)


def needs(box: Sandbox, *layers: str) -> None:
    """Skip unless every one of ``layers`` is active."""
    off = [box.status[name] for name in layers if not box.status[name].active]
    if off:
        pytest.skip("; ".join(f"layer {s.name} is not active here: {s.why}" for s in off))


def needs_any(box: Sandbox, *layers: str) -> list[str]:
    """Skip unless at least one of ``layers`` (each of which stops the attack) is active;
    return the active ones."""
    on = [name for name in layers if box.status[name].active]
    if not on:
        pytest.skip("none of the layers that stop this attack is active here: "
                    + "; ".join(f"layer {name} is not active here: {box.status[name].why}" for name in layers))
    return on


def only(box: Sandbox, *layers: str) -> Sandbox:
    """A copy of ``box`` with only ``layers`` active (skips unless all of them are active
    in ``box``): to check that one layer alone stops an attack that others stop too."""
    needs(box, *layers)
    reduced = copy.copy(box)
    reduced.status = {name: status if name in layers else LayerStatus(name, False, "switched off by the test")
                      for name, status in box.status.items()}
    return reduced


# ---------------------------------------------------------------------------------------
# Bot folders


_BASE: Path | None = None


def _base() -> Path:
    """A world-traversable folder under /tmp for this session's bot copies."""
    global _BASE
    if _BASE is None or not _BASE.exists():
        _BASE = Path(tempfile.mkdtemp(prefix="arena-hostile-", dir="/tmp"))
        _BASE.chmod(0o755)
    return _BASE


def remove_base() -> None:
    """Remove this session's bot copies."""
    if _BASE is not None:
        shutil.rmtree(_BASE, ignore_errors=True)


def _open_up(path: Path) -> None:
    """World-readable files, world-traversable folders: the bot runs as another user."""
    for root, dirs, files in os.walk(path):
        os.chmod(root, 0o755)
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in files:
            path = os.path.join(root, name)
            os.chmod(path, 0o755 if os.stat(path).st_mode & 0o100 else 0o644)


def bot_copy(name: str, data: dict[str, str] | None = None, *, as_name: str | None = None) -> BotManifest:
    """A fresh copy of ``BOTS/name`` in its own world-readable folder under /tmp, with the
    files of ``data`` (file name -> text) added; its manifest.

    Not pytest's ``tmp_path``: its parents are private to root, and the bot runs as one
    of the pool's users, who must be able to reach and read its folder."""
    folder = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=_base())) / (as_name or name)
    shutil.copytree(BOTS / name, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for file, text in (data or {}).items():
        (folder / file).write_text(text, encoding="utf-8")
    _open_up(folder.parent)
    return load_manifest(folder)


def tell(bot: Bot | BotFault, name: str, text: str) -> None:
    """Put a file ``name`` holding ``text`` in a started bot's folder, where it reads it: the
    folder's resident copy under the ``resident`` layer, otherwise the folder itself."""
    assert isinstance(bot, Bot) and bot.sandboxed.folder is not None, f"the bot did not start: {bot}"
    path = bot.sandboxed.folder / name
    path.write_text(text, encoding="utf-8")
    os.chmod(path, 0o644)


def random_bot() -> BotManifest:
    return find_bot("random")


# ---------------------------------------------------------------------------------------
# Servers on the host for network attacks


class Servers:
    """Listening sockets on the host the network bot tries to reach."""

    def __init__(self, own_folder: Path) -> None:
        token = secrets.token_hex(6)
        self.sockets: dict[str, socket.socket] = {}
        self.tcp4 = self._listen("tcp4", socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0))
        self.tcp6: socket.socket | None = None
        with contextlib.suppress(OSError):  # no IPv6 loopback here
            self.tcp6 = self._listen("tcp6", socket.AF_INET6, socket.SOCK_STREAM, ("::1", 0))
        self.udp = self._listen("udp", socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0))
        self.unix_paths = {"host_tmp": f"/tmp/arena-test-{token}.sock", "own_folder": str(own_folder / "referee.sock")}
        for label, path in self.unix_paths.items():
            self._listen(f"unix_{label}", socket.AF_UNIX, socket.SOCK_STREAM, path)
            os.chmod(path, 0o777)  # the bot's user may connect, were it to reach the file
        self.abstract = f"arena-test-{token}"
        self._listen("abstract", socket.AF_UNIX, socket.SOCK_STREAM, "\0" + self.abstract)

    def _listen(self, label: str, family: int, kind: int, address: Any) -> socket.socket:
        sock = socket.socket(family, kind)
        try:
            sock.bind(address)
            if kind == socket.SOCK_STREAM:
                sock.listen(8)
        except OSError:
            sock.close()
            raise
        sock.setblocking(False)
        self.sockets[label] = sock
        return sock

    def targets(self, own_folder_inside: str) -> str:
        """What the bot is to try, its own folder named where it sees it (``/bot`` under bubblewrap)."""
        unix = {**self.unix_paths, "own_folder": f"{own_folder_inside}/referee.sock"}
        return json.dumps({
            "tcp4": self.tcp4.getsockname()[1],
            "tcp6": self.tcp6.getsockname()[1] if self.tcp6 else None,
            "udp": self.udp.getsockname()[1],
            "unix": unix,
            "abstract": self.abstract,
        })

    def reached(self) -> dict[str, str]:
        """Which servers got a connection or a datagram."""
        got = {}
        for label, sock in self.sockets.items():
            try:
                if sock.type == socket.SOCK_DGRAM:
                    got[label] = f"datagram {sock.recv(100)!r}"
                else:
                    conn, peer = sock.accept()
                    conn.close()
                    got[label] = f"connection from {peer!r}"
            except BlockingIOError:
                pass
        return got

    def close(self) -> None:
        for sock in self.sockets.values():
            sock.close()
        for path in self.unix_paths.values():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


# ---------------------------------------------------------------------------------------
# Processes


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, real uid, session id) of a process, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode(errors="replace")
        uid = os.stat(f"/proc/{pid}").st_uid
    except (OSError, ValueError):
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return fields[0], uid, int(fields[3])


def process_cpu_ns(pid: int) -> int:
    """User plus system CPU time ``pid`` has used (0 if it is gone), in nanoseconds."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode(errors="replace")
    except OSError:
        return 0
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) * 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def alive(pid: int) -> bool:
    """A live process (zombies count as dead)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def live_pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and alive(int(p))]


def processes_of_uid(uid: int) -> list[int]:
    """Live processes whose owner is ``uid``."""
    found = []
    for pid in live_pids():
        stat = _stat(pid)
        if stat is not None and stat[1] == uid:
            found.append(pid)
    return found


def wait_reaped(uid: int, timeout_s: float = 5.0) -> bool:
    """Wait until no process of ``uid`` exists, zombies included (zombies still count
    against the user's RLIMIT_NPROC); whether that happened in time."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        # each process's status read once: one that exits between two reads was a crash here
        if not any(stat is not None and stat[1] == uid
                   for stat in (_stat(int(p)) for p in os.listdir("/proc") if p.isdigit())):
            return True
        time.sleep(0.05)
    return False


def processes_in_session(sid: int) -> list[int]:
    """Live processes of session ``sid`` (the launcher makes each bot a session leader)."""
    found = []
    for pid in live_pids():
        stat = _stat(pid)
        if stat is not None and stat[2] == sid:
            found.append(pid)
    return found


def processes_with(token: str) -> list[int]:
    """Live processes whose command line contains ``token``."""
    return [pid for pid in live_pids() if token in cmdline(pid)]


@contextlib.contextmanager
def uid_lease(uid: int) -> Iterator[bool]:
    """Hold the pool's lock on ``uid`` if no referee holds it; yields whether we do.

    While it is held no referee can hand the user to a bot, so any process of the user
    is a leftover, safe to kill: the pool is shared by every referee on the machine."""
    lock = UidPool().lock_dir / f"{uid}.lock"
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        yield True  # never leased on this machine
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
        else:
            yield True
    finally:
        os.close(fd)  # drops the lock if we took it


# ---------------------------------------------------------------------------------------
# Watching the bots of a match


@dataclass
class Watch:
    """Everything the test learnt about one launched bot process tree."""

    sandboxed: Sandboxed
    label: str = "?"
    seat: int | None = None
    """The bot's seat (None for a bot that never started)."""
    pids: set[int] = field(default_factory=set)
    """Every pid seen in the bot's control groups while it ran (host pids)."""
    max_pids: int = 0
    """Most processes seen in the groups at once."""
    cpu_ns: int = 0
    """Most CPU time the groups had accounted when sampled."""
    own_cpu_ns: int = 0
    """Most CPU time the processes in the groups had used by the kernel's per-process
    count (/proc/PID/stat), sampled at the same moments: what ``cpu_ns`` must account."""
    memory_limits: set[int] = field(default_factory=set)
    """Every memory limit the bot's memory group had when sampled (bytes)."""
    memory_peak: int = 0
    """The highest peak usage of the memory group sampled (bytes)."""

    @property
    def pid(self) -> int:
        return self.sandboxed.pid

    @property
    def uid(self) -> int | None:
        return self.sandboxed.lease.uid if self.sandboxed.lease else None

    @property
    def cgroup_dirs(self) -> tuple[Path, ...]:
        return self.sandboxed.cgroup.dirs if self.sandboxed.cgroup else ()

    def sample(self) -> None:
        cgroup = self.sandboxed.cgroup
        if cgroup is None or self.sandboxed._done:
            return
        now = cgroup.pids()
        own = sum(process_cpu_ns(pid) for pid in now)
        self.pids |= now
        self.max_pids = max(self.max_pids, len(now))
        self.cpu_ns = max(self.cpu_ns, cgroup.cpu_ns())
        self.own_cpu_ns = max(self.own_cpu_ns, own)
        for d in self.cgroup_dirs:
            with contextlib.suppress(OSError, ValueError):
                self.memory_limits.add(int((d / "memory.limit_in_bytes").read_text()))
                self.memory_peak = max(self.memory_peak, int((d / "memory.max_usage_in_bytes").read_text()))


@dataclass
class Remains:
    """What is left of one bot's sandbox."""

    pids: list[int]
    """Processes that were in its groups or are in its session, still alive."""
    uid_procs: list[int]
    """Processes of its user, still alive (only when no referee holds the user now)."""
    cgroup_dirs: list[Path]
    scratch: bool

    @property
    def gone(self) -> bool:
        return not (self.pids or self.uid_procs or self.cgroup_dirs or self.scratch)

    def describe(self) -> str:
        parts = []
        if self.pids or self.uid_procs:
            procs = sorted(set(self.pids) | set(self.uid_procs))
            parts.append("live processes " + ", ".join(f"{p} ({cmdline(p)[:80]!r})" for p in procs))
        if self.cgroup_dirs:
            parts.append(f"control groups {[str(d) for d in self.cgroup_dirs]}")
        if self.scratch:
            parts.append("its scratch folder")
        return "; ".join(parts) or "nothing"


def _leftovers_of_user(uid: int | None) -> list[int]:
    """Live processes of the bot's user, listed while no referee may lease it."""
    if uid is None:
        return []
    with uid_lease(uid) as free:
        return processes_of_uid(uid) if free else []


def remains(watch: Watch, wait_s: float = 2.0) -> Remains:
    """What is left of ``watch``'s bot, waiting up to ``wait_s`` for killed processes to die."""
    deadline = time.monotonic() + wait_s
    while True:
        seen = Remains(
            sorted({p for p in watch.pids | {watch.pid} if alive(p)} | set(processes_in_session(watch.pid))),
            _leftovers_of_user(watch.uid),
            [d for d in watch.cgroup_dirs if d.exists()],
            watch.sandboxed.scratch.exists(),
        )
        if seen.gone or time.monotonic() > deadline:
            return seen
        time.sleep(0.02)


def kill_pids(pids: Sequence[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


# ---------------------------------------------------------------------------------------
# Playing a match


@dataclass
class Played:
    """A finished match, the bots (or start-up faults), what the test saw of each bot."""

    result: MatchResult
    bots: list[Bot | BotFault]
    watches: list[Watch]
    """Every bot process launched for the match, in launch order."""
    stderr: list[str]
    """Per seat, the kept tail of the bot's stderr."""
    stderr_bytes: list[int]
    after: list[Remains]
    """Per launched bot, what was left once ``open_bots`` had closed every bot."""
    extra: dict[str, Any] = field(default_factory=dict)
    """What the ``after_match`` callback returned, under "after_match"."""

    def faults_of(self, seat: int) -> list[Any]:
        return [f for f in self.result.faults if f.seat == seat]

    def watch(self, seat: int) -> Watch:
        for watch in self.watches:
            if watch.seat == seat:
                return watch
        raise AssertionError(f"seat {seat} has no started bot")

    def report(self, seat: int) -> dict[str, Any]:
        """The attack's ``REPORT`` line (the last one) on ``seat``'s stderr."""
        lines = [line for line in self.stderr[seat].splitlines() if line.startswith("REPORT ")]
        assert lines, f"seat {seat} reported nothing; stderr tail: {self.stderr[seat][-1500:]!r}"
        return json.loads(lines[-1][len("REPORT "):])


def play(
    box: Sandbox,
    lineup: Sequence[BotManifest],
    *,
    seed: int = 5,
    time_control: TimeControl = FAST,
    policy: FaultPolicy = FORFEIT,
    reporters: Sequence[int] = (),
    before_match: Callable[[list[Bot | BotFault]], None] | None = None,
    after_match: Callable[[list[Bot | BotFault]], Any] | None = None,
) -> Played:
    """Play one ``scat`` match of ``lineup`` behind ``box``.

    ``reporters``: seats whose ``REPORT`` line to wait for (up to 5 s) before closing;
    ``before_match``: called with the started bots before the match begins (to tell a
    bot the pids it will attack, through a file in its folder); ``after_match``: called
    when the match is over, before the bots are closed.
    """
    watches: list[Watch] = []
    launch = box.launch

    async def watched_launch(*args: Any, **kwargs: Any) -> Sandboxed:
        sandboxed = await launch(*args, **kwargs)
        watches.append(Watch(sandboxed))
        return sandboxed

    async def main() -> Played:
        async with open_bots(lineup, time_control=time_control, sandbox=box) as bots:
            for seat, bot in enumerate(bots):
                if isinstance(bot, Bot):
                    for watch in watches:
                        if watch.sandboxed is bot.sandboxed:
                            watch.seat, watch.label = seat, bot.label
            if before_match is not None:
                before_match(bots)
            done = trio.Event()

            async def sample() -> None:
                while not done.is_set():
                    for watch in watches:
                        watch.sample()
                    with trio.move_on_after(0.01):
                        await done.wait()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(sample)
                try:
                    with trio.fail_after(MATCH_TIMEOUT_S):
                        result = await play_match(SCAT, bots, seed=seed, match_id="hostile",
                                                  time_control=time_control, policy=policy)
                finally:
                    done.set()
            for watch in watches:  # the groups as the match left them
                watch.sample()
            extra = {"after_match": after_match(bots)} if after_match is not None else {}
            for seat in reporters:
                bot = bots[seat]
                if isinstance(bot, Bot):
                    with trio.move_on_after(REPORT_WAIT_S):
                        while b"REPORT " not in bot.stderr_tail:
                            await trio.sleep(0.01)
                    # and the rest of what it wrote: on a loaded machine the last lines were
                    # still in the pipe (a report of 26 decisions read for 32 made)
                    await bot._stderr_settled(SETTLE_S)
            stderr = [b.stderr_text(100_000) if isinstance(b, Bot) else "" for b in bots]
            stderr_bytes = [b.stderr_bytes if isinstance(b, Bot) else 0 for b in bots]
            played = Played(result, list(bots), watches, stderr, stderr_bytes, [], extra)
        played.after = [remains(w) for w in watches]
        return played

    box.launch = watched_launch  # type: ignore[method-assign]  # on this instance only
    try:
        return trio.run(main)
    finally:
        del box.launch  # back to the class's method
        for watch in watches:  # a leaky sandbox must not poison the next tests
            left = [p for p in watch.pids | {watch.pid} if alive(p)] + processes_in_session(watch.pid)
            kill_pids(left)
            if watch.uid is not None:
                with uid_lease(watch.uid) as free:
                    if free:
                        kill_pids(processes_of_uid(watch.uid))


# ---------------------------------------------------------------------------------------
# Assertions


def colluders(box: Sandbox, bot: str, *, publishes: bool = True) -> tuple[Played, dict[str, Any], list[str]]:
    """Play ``bot`` as sender (seat 0, ``role.txt`` ``send``) and receiver (seat 1) with a
    random bot: the match, what the receiver reported, and the sender's hand.  The sender
    must have published its hand (unless the channel refuses its first step: not
    ``publishes``), and the receiver must have had a decision after it."""
    played = play(box, [bot_copy(bot, {"role.txt": "send"}), bot_copy(bot, {"role.txt": "receive"}), random_bot()],
                  reporters=[0, 1])
    sent = played.report(0)
    deal = next(e for e in played.result.log if e["event"] == "deal")
    hand = sorted(deal["private"]["0"]["hand"])
    if publishes or sent.get("published") is not None:
        assert sorted(sent.get("published", [])) == hand, sent
    actions = [e["seat"] for e in played.result.log if e["event"] == "action"]
    assert 1 in actions[actions.index(0) + 1:], "the receiver had no decision after the sender's first"
    return played, played.report(1), hand


def assert_not_read(played: Played, got: dict[str, Any], hand: list[str], how: str) -> None:
    """The receiver read none of the sender's cards, and the match was clean."""
    read = set(got.get("read") or [])
    assert not read & set(hand), f"the receiver read {sorted(read)} through {how}: the sender's hand is {hand} ({got})"
    assert_clean(played)
    assert_nothing_left(played)


def assert_nothing_left(played: Played) -> None:
    """No process, control group or scratch folder of any bot launched for the match is left."""
    assert played.watches, "no bot was launched"
    for watch, left in zip(played.watches, played.after):
        assert left.gone, f"seat {watch.seat} ({watch.label}, pid {watch.pid}): left behind {left.describe()}"


def assert_valid_outcome(result: MatchResult) -> None:
    """Placements are a competition ranking of every seat, and the log ends the match."""
    placements = result.outcome.placements
    players = len(result.bots)
    assert len(placements) == players
    for p in placements:
        assert 1 <= p <= players
        assert p == 1 + sum(1 for q in placements if q < p), placements
    assert result.log[-1]["event"] == "match_end"


def assert_clean(played: Played) -> None:
    """No fault at all, and the match ended normally."""
    assert played.result.faults == [], played.result.faults
    assert_valid_outcome(played.result)
    assert "forfeit" not in played.result.outcome.reason, played.result.outcome


def forfeit_index(result: MatchResult, seat: int) -> int:
    for i, event in enumerate(result.log):
        if event["event"] == "forfeit" and event.get("seat") == seat:
            return i
    raise AssertionError(f"seat {seat} never forfeited; faults: {result.faults}")


def assert_fault(played: Played, seat: int, kind: str, *, detail: str = "") -> Any:
    """``seat`` (alone) faulted once with ``kind``, forfeited, came last, and the others
    played the match on to a normal end."""
    result = played.result
    faults = played.faults_of(seat)
    assert [f.kind for f in faults] == [kind], result.faults
    assert [f.seat for f in result.faults] == [seat], f"other seats faulted too: {result.faults}"
    fault = faults[0]
    assert fault.penalty == "forfeit"
    assert detail in fault.detail, fault.detail
    assert_valid_outcome(result)
    placements = result.outcome.placements
    players = len(result.bots)
    assert placements[seat] == players and placements.count(players) == 1, placements
    index = forfeit_index(result, seat)
    later = [e for e in result.log[index + 1:] if e["event"] == "action"]
    assert later, "no action was played after the fault"
    assert all(e["seat"] != seat for e in later), "the faulty seat played after forfeiting"
    return fault
