"""Shared helpers of the referee's fault-handling tests.

A plain module, not ``conftest.py``: test modules import these helpers by name, and
``conftest`` is also the name of other folders' conftest modules in the same run.

The misbehaving bots live in ``tests/referee/bots/<name>/`` (real bot folders).  Each
test plays a real ``scat`` match through :func:`arena.referee.open_bots` and
:func:`arena.referee.play_match` via :func:`play`, which also records, right after the
match (before ``open_bots`` closes anything), whether each bot's processes and scratch
folder are gone, and again after ``open_bots`` has exited.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from arena.botspec import BotManifest, find_bot, load_manifest
from arena.referee import Bot, BotFault, FaultPolicy, MatchResult, TimeControl, open_bots, play_match
from arena.rules import get_variant
from arena.sandbox import Sandbox

BOTS = Path(__file__).resolve().parent / "bots"
FAST = TimeControl(move_ms=200, bank_ms=2000, first_move_ms=500, startup_ms=3000)
"""Short moves, so a hanging bot is given up on soon; a bank of 2 s, so a well-behaved bot
starved of the CPU on a loaded machine (a test suite beside other work) is not given up on
too (a bank of 200 ms once made a bundled bot time out beside the faulty one)."""
SCAT = get_variant("scat")
FORFEIT = FaultPolicy()
MATCH_TIMEOUT_S = 30
"""A referee that has not returned by then did not survive (the test fails, not hangs)."""


def manifest(name: str) -> BotManifest:
    """``random`` (the bundled bot) or a test bot by folder name."""
    return find_bot("random") if name == "random" else load_manifest(BOTS / name)


def variant_bot(folder: Path, base: str, *args: str, name: str | None = None) -> BotManifest:
    """A manifest in ``folder`` running ``BOTS/base/bot.py`` with extra arguments (a raw bot)."""
    script = BOTS / base / "bot.py"
    command = json.dumps(["python3", str(script), *args])
    (folder / "bot.toml").write_text(
        f'name = "{name or base.replace("_", "-")}"\nversion = "1.0.0"\ncommand = {command}\n', encoding="utf-8"
    )
    return load_manifest(folder)


def scripted_bot(folder: Path, script: list[dict[str, Any]], name: str = "scripted") -> BotManifest:
    """The scripted protocol peer (``bots/scripted``) following ``script``."""
    (folder / "script.json").write_text(json.dumps(script), encoding="utf-8")
    return variant_bot(folder, "scripted", str(folder / "script.json"), name=name)


# ---------------------------------------------------------------------------------------
# Processes: /proc walking


@dataclass(frozen=True)
class Proc:
    pid: int
    state: str
    pgid: int
    sid: int
    cwd: str
    cmdline: str


def processes() -> list[Proc]:
    """Every process this user can see, from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read().decode(errors="replace")
            fields = stat[stat.rindex(")") + 2 :].split()
            try:
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:
                cwd = ""
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    cmdline = file.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                cmdline = ""
        except (OSError, ValueError):
            continue  # gone meanwhile
        out.append(Proc(int(entry), fields[0], int(fields[2]), int(fields[3]), cwd, cmdline))
    return out


def leftovers(pid: int, scratch: Path | None = None) -> list[Proc]:
    """Live (non-zombie) processes of the bot launched as ``pid``: in its session or process
    group (the launcher makes the bot a session leader), or working in its scratch folder."""
    found = []
    for proc in processes():
        if proc.state in ("Z", "X"):
            continue
        in_scratch = scratch is not None and (
            proc.cwd == str(scratch) or proc.cwd.startswith(str(scratch) + "/") or proc.cwd.startswith(f"{scratch} ")
        )
        if proc.pid == pid or proc.sid == pid or proc.pgid == pid or in_scratch:
            found.append(proc)
    return found


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read().decode(errors="replace")
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] not in ("Z", "X")


def group_alive(pgid: int) -> bool:
    """Whether process group ``pgid`` has a live member (zombies count as dead)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return any(p.pgid == pgid and p.state not in ("Z", "X") for p in processes())


@dataclass
class Remains:
    """What is left of one bot's sandbox at some moment."""

    pid_alive: bool
    group_alive: bool
    processes: list[Proc]
    scratch_exists: bool

    @property
    def gone(self) -> bool:
        return not (self.pid_alive or self.group_alive or self.processes or self.scratch_exists)


def remains(bot: Bot, wait_s: float = 1.0) -> Remains:
    """The bot's remains, waiting up to ``wait_s`` for SIGKILLed processes to finish dying."""
    pid, scratch = bot.sandboxed.pid, bot.sandboxed.scratch
    deadline = time.monotonic() + wait_s
    while True:
        seen = Remains(pid_alive(pid), group_alive(pid), leftovers(pid, scratch), scratch.exists())
        if seen.gone or time.monotonic() > deadline:
            return seen
        time.sleep(0.02)


def kill_leftovers(pids: Sequence[int], scratches: Sequence[Path]) -> None:
    """Clean up after a referee that leaked: SIGKILL each leftover process of these bots, by pid."""
    for pid, scratch in zip(pids, scratches):
        for proc in leftovers(pid, scratch):
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)


# ---------------------------------------------------------------------------------------
# Playing a match


@dataclass
class Played:
    """A finished match plus what became of every bot."""

    result: MatchResult
    bots: list[Bot | BotFault]
    after_match: list[Remains | None] = field(default_factory=list)
    """Per seat, right after ``play_match`` returned (``None`` for a bot that never started)."""
    after_close: list[Remains | None] = field(default_factory=list)
    """Per seat, after ``open_bots`` exited."""
    stderr: list[str] = field(default_factory=list)
    """Per seat, the bot's kept stderr tail after the match."""

    def faults_of(self, seat: int) -> list[Any]:
        return [f for f in self.result.faults if f.seat == seat]

    def forfeit_index(self, seat: int) -> int:
        """Index in the log of ``seat``'s forfeit event."""
        for i, event in enumerate(self.result.log):
            if event["event"] == "forfeit" and event.get("seat") == seat:
                return i
        raise AssertionError(f"seat {seat} never forfeited; faults: {self.result.faults}")


def seats(faulty: str | BotManifest, seat: int, players: int) -> list[BotManifest]:
    bad = manifest(faulty) if isinstance(faulty, str) else faulty
    return [bad if i == seat else manifest("random") for i in range(players)]


def play(
    lineup: Sequence[str | BotManifest],
    *,
    seed: int = 7,
    policy: FaultPolicy = FORFEIT,
    time_control: TimeControl = FAST,
    options: dict[str, Any] | None = None,
    match_id: str = "fault-test",
    wait_for_stderr: dict[int, bytes | tuple[bytes, ...]] | None = None,
    sandbox: Sandbox | None = None,
) -> Played:
    """Play one ``scat`` match with ``lineup`` (bot names or manifests, one per seat).

    ``wait_for_stderr`` maps a seat to bytes (or a tuple: any of them) to wait for, up to
    5 s, in its stderr tail before the snapshot: stderr is drained concurrently with the match.
    ``sandbox``: the layers to launch behind (default: rlimits and an own session).
    """
    manifests = [manifest(m) if isinstance(m, str) else m for m in lineup]
    pids: list[int] = []
    scratches: list[Path] = []
    played: Played | None = None

    async def main() -> Played:
        async with open_bots(manifests, time_control=time_control, sandbox=sandbox) as bots:
            for bot in bots:
                if isinstance(bot, Bot):
                    pids.append(bot.sandboxed.pid)
                    scratches.append(bot.sandboxed.scratch)
            with trio.fail_after(MATCH_TIMEOUT_S):
                result = await play_match(
                    SCAT, bots, seed=seed, options=options, match_id=match_id,
                    time_control=time_control, policy=policy,
                )
            # bots the referee closed get a moment for SIGKILLed processes to die; live ones none
            after_match = [remains(b, 0 if b.alive else 1.0) if isinstance(b, Bot) else None for b in bots]
            for seat, needles in (wait_for_stderr or {}).items():
                bot = bots[seat]
                assert isinstance(bot, Bot)
                needles = needles if isinstance(needles, tuple) else (needles,)
                with trio.move_on_after(5):
                    while not any(n in bot.stderr_tail for n in needles):
                        await trio.sleep(0.01)
            stderr = [b.stderr_text(100_000) if isinstance(b, Bot) else "" for b in bots]
            out = Played(result, list(bots), after_match, [], stderr)
        out.after_close = [remains(b, wait_s=1.0) if isinstance(b, Bot) else None for b in out.bots]
        return out

    try:
        played = trio.run(main)
    finally:
        kill_leftovers(pids, scratches)
    return played


def assert_gone(seen: Remains | None, what: str) -> None:
    """Nothing of a bot's sandbox is left."""
    assert seen is not None
    assert not seen.pid_alive, f"{what}: the bot process is still alive"
    assert not seen.group_alive, f"{what}: its process group still has live members"
    assert not seen.processes, f"{what}: processes of its session/group/scratch remain: {seen.processes}"
    assert not seen.scratch_exists, f"{what}: its scratch folder was not removed"


def assert_went_on(played: Played, seat: int) -> None:
    """``seat`` was placed last alone and the others played the match to a normal end."""
    result = played.result
    players = len(result.bots)
    placements = result.outcome.placements
    assert placements[seat] == players, f"the faulty seat is not last: {placements}"
    assert placements.count(players) == 1, f"the faulty seat shares last place: {placements}"
    assert "forfeit" not in result.outcome.reason, result.outcome
    forfeit = played.forfeit_index(seat)
    later = [e for e in result.log[forfeit + 1 :] if e["event"] == "action"]
    assert later, "no action was played after the fault"
    assert all(e["seat"] != seat for e in later), "the faulty seat played after forfeiting"
    assert result.log[-1]["event"] == "match_end"
