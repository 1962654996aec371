"""Launching a table's bots through the sandbox and greeting them; closing them after."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

import trio

from arena.botspec import BotManifest
from arena.referee.records import BotFault, FaultKind, TimeControl
from arena.referee.session import Bot
from arena.sandbox import Sandbox, SandboxError
from arena.sandbox.programs import BOT_PATH, program_refusal

__all__ = ["SANDBOX_PATH", "open_bots", "own_program_refusal"]


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
        bots: list[Bot | BotFault] = [BotFault(FaultKind.STARTUP, "not started", m.label) for m in manifests]

        async def start(i: int, manifest: BotManifest) -> None:
            argv = manifest.argv(box.python)
            problem = _command_problem(manifest, argv)
            if problem:
                bots[i] = BotFault(FaultKind.STARTUP, problem, manifest.label)
                return
            try:
                sandboxed = await box.launch(argv, manifest.folder, confines_itself=manifest.is_python)
            except SandboxError as error:  # the arena's failure, raised once every bot is gone
                refused.append(error)
                return
            except OSError as error:  # the bot's command cannot run
                bots[i] = BotFault(FaultKind.STARTUP, f"cannot start {argv[0]!r}: {error}", manifest.label)
                return
            bot = Bot(manifest, sandboxed, box.active, freeze=not time_control.ponder, grace_s=grace_s)
            bots[i] = bot  # from here on closed on the way out, even if stopped mid-handshake
            nursery.start_soon(bot.drain_stderr)
            try:
                await bot.handshake(time_control.startup_ms / 1000)
            except BotFault as fault:
                tail = bot.stderr_text(300).strip()
                detail = f"{fault.detail}; stderr: {tail}" if tail and "stderr:" not in fault.detail else fault.detail
                refusal = await trio.to_thread.run_sync(own_program_refusal, manifest)  # once it failed: no cost
                if refusal is not None:
                    detail = f"{detail}; {refusal}"
                await bot.close(0)
                bots[i] = BotFault(fault.kind, detail, manifest.label)

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


SANDBOX_PATH: Final = BOT_PATH
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


def own_program_refusal(manifest: BotManifest) -> str | None:
    """Why the bot's own program (its command, a file of its folder) cannot run in the
    sandbox, with the fix (:func:`arena.sandbox.programs.program_refusal`); None for a
    Python bot, a command on the bots' PATH (``node bot.js``), or a program that can."""
    if not manifest.command or manifest.folder is None:
        return None
    program = manifest.folder / manifest.command[0]  # as the command runs it (BotManifest.argv)
    return program_refusal(program, manifest.folder) if program.is_file() else None
