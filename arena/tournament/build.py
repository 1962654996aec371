"""Building bots that have a build step (``build = ["make"]`` in their ``bot.toml``).

A compiled bot ships its sources; the arena builds it once, before it first plays: in a
copy of its folder, inside the sandbox like any of the bot's own code (the copy writable
and its working folder, no network), with a time limit and its output kept.  The copy,
built, is what plays and what the registry keeps; the version is still named by the
content of the sources.  A build that fails, times out or leaves anything but regular
files and folders is refused with its output.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Final

import trio

from arena.botspec import BotManifest
from arena.errors import ArenaError
from arena.sandbox import PREFIX, Sandbox, SandboxError

__all__ = ["BUILD_TIMEOUT_S", "BuildError", "build", "built"]

BUILD_TIMEOUT_S: Final = 300.0
OUTPUT_KEEP: Final = 64 * 1024
"""Bytes of a build's output kept (the tail)."""
OUTPUT_SHOWN: Final = 3000
"""Characters of it a failed build shows."""


class BuildError(ArenaError, ValueError):
    """A bot's build step failed; the message has its output and what to do."""


async def build(manifest: BotManifest, sandbox: Sandbox, timeout_s: float = BUILD_TIMEOUT_S) -> BotManifest:
    """A built copy of ``manifest``'s folder (in the temporary folder, removed with this
    process by the sandbox's sweep), and its manifest."""
    if manifest.folder is None or not manifest.build:
        return manifest
    workshop = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-build-")) / manifest.folder.name
    shutil.copytree(manifest.folder, workshop, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    workshop.parent.chmod(0o711)  # the bot's user, who will own the copy, must reach it
    command = " ".join(manifest.build)
    try:
        sandboxed = await sandbox.launch(list(manifest.build), workshop, workshop=True)
    except (OSError, SandboxError) as error:
        raise BuildError(f"the build step `{command}` of {manifest.label} could not start: {error}") from None
    output = bytearray()
    try:
        await sandboxed.process.stdin.aclose()
        with trio.move_on_after(timeout_s) as waited:
            async with trio.open_nursery() as nursery:
                for stream in (sandboxed.process.stdout, sandboxed.process.stderr):
                    nursery.start_soon(_collect, stream, output)
            status = await sandboxed.process.wait()
    finally:
        await sandboxed.kill()
    _give_back(workshop)
    shown = output.decode("utf-8", "replace")[-OUTPUT_SHOWN:].strip()
    tail = f"\n--- its output (the end) ---\n{shown}" if shown else " (it printed nothing)"
    if waited.cancelled_caught:
        raise BuildError(f"the build step `{command}` of {manifest.label} took more than {timeout_s:.0f} s{tail}")
    if status != 0:
        raise BuildError(f"the build step `{command}` of {manifest.label} failed (exit status {status}){tail}\n"
                         "how to fix: run it in the bot's folder on your machine; the sandbox has the compilers of "
                         "/usr and no network (docs/BOTS.md, 'Other languages')")
    _check_plain(workshop, manifest)
    return dataclasses.replace(manifest, folder=workshop)


def built(manifest: BotManifest) -> BotManifest:
    """:func:`build` behind every sandbox layer this machine offers, outside an event loop."""
    if not manifest.build:
        return manifest

    async def run() -> BotManifest:
        return await build(manifest, await Sandbox.probe())

    return trio.run(run)


async def _collect(stream: trio.abc.ReceiveStream, output: bytearray) -> None:
    while data := await stream.receive_some(65536):
        output += data
        del output[:-OUTPUT_KEEP]


def _give_back(workshop: Path) -> None:
    """The built copy belongs to the arena again (the bot's user may serve another bot)."""
    uid, gid = os.geteuid(), os.getegid()
    for root, dirs, files in os.walk(workshop):
        for path in (root, *(os.path.join(root, name) for name in (*dirs, *files))):
            os.chown(path, uid, gid, follow_symlinks=False)


def _check_plain(workshop: Path, manifest: BotManifest) -> None:
    """BuildError if the build left a link or a special file: copied by the arena, a link
    would bring in whatever it points to on this machine."""
    for root, dirs, files in os.walk(workshop):
        for name in (*dirs, *files):
            path = Path(root, name)
            if not stat.S_ISREG(path.lstat().st_mode) and not stat.S_ISDIR(path.lstat().st_mode):
                relative = path.relative_to(workshop)
                raise BuildError(f"the build step of {manifest.label} left {relative}, which is not a regular file "
                                 "(a link or a device); a bot's folder may hold only files and folders")
