"""Building bots that have a build step (``build = ["make"]`` in their ``bot.toml``).

A compiled bot ships its sources; the arena builds it once, before it first plays: in a
copy of its folder, inside the sandbox like any of the bot's own code (the copy writable
and its working folder, no network), with a time limit and its output kept.  The copy,
built, is what plays and what the registry keeps; the version is still named by the
content of the sources.

The copy lives in a workshop of its own, confined as a bot's scratch space is: where the
arena may mount, a tmpfs with a size and a file quota (:data:`WORKSHOP`, or the
operator's ``ARENA_BUILD_MB`` and ``ARENA_BUILD_FILES``), so a build that writes past
them gets ENOSPC and the machine's disk never sees a byte.  A build that fails, times
out, fills its workshop or leaves anything but regular files and folders (or folders
nested deeper than :data:`MAX_DEPTH`) is refused with its output, escaped of control
characters, and its workshop is removed at once; a build that succeeds keeps its
workshop until :func:`discard` (once the registry has copied it, or when the process
ends).  Every tree is walked without recursion: a build can leave any depth.
"""

from __future__ import annotations

import atexit
import dataclasses
import errno
import os
import shutil
import stat
from pathlib import Path
from typing import Final

import trio

from arena.botspec import BotManifest
from arena.errors import ArenaError
from arena.sandbox import Layer, Sandbox, SandboxError, scratch
from arena.sandbox.scratch import Quota
from arena.text import printable

__all__ = ["BUILD_TIMEOUT_S", "FILES_ENV", "MAX_DEPTH", "SIZE_ENV", "WORKSHOP", "BuildError", "build", "built",
           "discard", "env_limit", "workshop_quota"]

BUILD_TIMEOUT_S: Final = 300.0
WORKSHOP: Final = Quota(size_mb=256, files=16384)
"""What a build may keep in its workshop: eight times a bot's scratch space in bytes, four
times in files.  Compilers need room a bot at play does not (objects, debug information,
a statically linked binary beside its sources), and a build runs alone, once per version;
the tmpfs takes memory only for what is written, charged to the build's own group."""
SIZE_ENV: Final = "ARENA_BUILD_MB"
FILES_ENV: Final = "ARENA_BUILD_FILES"
MAX_DEPTH: Final = 32
"""Folders a bot's folder may nest, built or not: what copies, hashes and compiles a bot's
folder (``os.walk``, ``shutil``, ``compileall``) recurses once per level."""
OUTPUT_KEEP: Final = 64 * 1024
"""Bytes of a build's output kept (the tail)."""
OUTPUT_SHOWN: Final = 3000
"""Characters of it a failed build shows."""

_open: dict[Path, int] = {}
"""Workshops not yet removed, and the process that made each (a forked child must not
remove its parent's)."""


class BuildError(ArenaError, ValueError):
    """A bot's build step failed or was refused; the message has its output and what to do."""


def env_limit(name: str, default: int, least: int) -> int:
    """The whole number the operator set in the environment variable ``name``, else ``default``."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        number = least - 1
    if number < least:
        raise ArenaError(f"{name}={value!r}: give a whole number, at least {least} (unset, it is {default})")
    return number


def workshop_quota() -> Quota:
    """The quota of a build's workshop: :data:`WORKSHOP`, or what the operator set."""
    return Quota(env_limit(SIZE_ENV, WORKSHOP.size_mb, 1), env_limit(FILES_ENV, WORKSHOP.files, 16))


async def build(manifest: BotManifest, sandbox: Sandbox, timeout_s: float = BUILD_TIMEOUT_S,
                quota: Quota | None = None) -> BotManifest:
    """A built copy of ``manifest``'s folder, in a workshop of ``quota`` (by default
    :func:`workshop_quota`), and its manifest; :func:`discard` the copy once done with it.
    A refused build leaves nothing behind."""
    if manifest.folder is None or not manifest.build:
        return manifest
    quota = quota or workshop_quota()
    mounted = quota if sandbox.status[Layer.QUOTA].active else None
    try:
        root = _open_workshop(mounted)
    except OSError as error:
        raise BuildError(f"no workshop could be made to build {manifest.label} in: {error}") from None
    workshop = root / manifest.folder.name
    try:
        _copy_sources(manifest, manifest.folder, workshop, quota)
        ran = await _run(manifest, sandbox, workshop, timeout_s)
        if mounted is not None:
            _check_room(manifest, root, mounted, ran.output)
        _judge(manifest, ran, timeout_s)
        _take_back(manifest, workshop)
        _same_manifest(manifest, workshop)
    except BaseException:
        _remove(root)
        raise
    return dataclasses.replace(manifest, folder=workshop)


def built(manifest: BotManifest) -> Path:
    """The folder :func:`build` makes of ``manifest``'s (a bot with a folder and a build
    step), behind every sandbox layer this machine offers, outside an event loop."""

    async def run() -> BotManifest:
        return await build(manifest, await Sandbox.probe())

    folder = trio.run(run).folder
    assert folder is not None and manifest.build, "only a bot with a folder and a build step is built"
    return folder


def discard(folder: Path) -> None:
    """Remove the workshop of ``folder`` (what :func:`build` made) with all it holds, at once."""
    _remove(folder.parent)


def _open_workshop(quota: Quota | None) -> Path:
    """A new workshop, ``arena-bot-PID-build-...`` in the temporary folder (a tmpfs of
    ``quota`` if given), which the bot's user can enter but not list."""
    root = scratch.create(None, quota, kind="build-")
    _open[root] = os.getpid()
    try:
        root.chmod(0o711)
    except OSError:
        _remove(root)
        raise
    return root


def _remove(root: Path) -> None:
    if _open.pop(root, None) is not None:
        scratch.remove(root)


@atexit.register
def _remove_left() -> None:
    """Workshops still open when the process ends (``arena match`` plays from them to its end)."""
    for root, pid in list(_open.items()):
        if pid == os.getpid():
            _remove(root)


def _command(manifest: BotManifest) -> str:
    return f"`{printable(' '.join(manifest.build), lines=False)}`"


def _copy_sources(manifest: BotManifest, folder: Path, workshop: Path, quota: Quota) -> None:
    """Copy the bot's folder (no bytecode caches) into its workshop, refusing what a bot's
    folder may not hold before any of it runs."""
    workshop.mkdir()
    try:
        for path, info, depth in scratch.walk(folder, skip={"__pycache__"}):
            relative = path.relative_to(folder)
            _check_entry(relative, info, depth, f"the folder of {manifest.label} holds")
            if stat.S_ISDIR(info.st_mode):
                (workshop / relative).mkdir()
            else:
                shutil.copy2(path, workshop / relative)
    except OSError as error:
        if error.errno == errno.ENOSPC:
            raise BuildError(f"the folder of {manifest.label} does not fit in a build workshop ({quota.size_mb} MB / "
                             f"{quota.files} files)\nhow to fix: leave out what the build does not need") from None
        raise BuildError(f"the folder of {manifest.label} could not be copied to build it: {error}") from None


def _check_entry(relative: Path, info: os.stat_result, depth: int, where: str) -> None:
    """BuildError for what a bot's folder may not hold: a link or a special file (copied by
    the arena, a link would bring in whatever it points to on this machine), or folders
    nested deeper than :data:`MAX_DEPTH`."""
    if stat.S_ISDIR(info.st_mode):
        if depth > MAX_DEPTH:
            shown = printable("/".join(relative.parts[:4]), lines=False)
            raise BuildError(f"{where} {shown}/..., folders nested more than {MAX_DEPTH} deep; a bot's folder may "
                             f"nest at most {MAX_DEPTH}")
    elif not stat.S_ISREG(info.st_mode):
        raise BuildError(f"{where} {printable(str(relative), lines=False)}, which is not a regular file (a link or a "
                         "device); a bot's folder may hold only files and folders")


@dataclasses.dataclass(frozen=True)
class _Ran:
    """How a build step ended."""

    status: int
    output: bytes
    """The end of what it printed."""
    late: bool
    """Whether it ran out of time (and was killed)."""


async def _run(manifest: BotManifest, sandbox: Sandbox, workshop: Path, timeout_s: float) -> _Ran:
    """Run the build step in the sandbox, in ``workshop``, for at most ``timeout_s``."""
    try:
        sandboxed = await sandbox.launch(list(manifest.build), workshop, workshop=True)
    except (OSError, SandboxError) as error:
        raise BuildError(f"the build step {_command(manifest)} of {manifest.label} could not start: {error}") from None
    output = bytearray()
    status = -1
    try:
        await sandboxed.process.stdin.aclose()
        with trio.move_on_after(timeout_s) as waited:
            async with trio.open_nursery() as nursery:
                for stream in (sandboxed.process.stdout, sandboxed.process.stderr):
                    nursery.start_soon(_collect, stream, output)
            status = await sandboxed.process.wait()
    finally:
        await sandboxed.kill()
    return _Ran(status, bytes(output), waited.cancelled_caught)


async def _collect(stream: trio.abc.ReceiveStream, output: bytearray) -> None:
    while data := await stream.receive_some(65536):
        output += data
        del output[:-OUTPUT_KEEP]


def _tail(output: bytes) -> str:
    """The end of a build's output to show, escaped: a build may print what a terminal
    would obey (a window title, a clipboard write)."""
    shown = printable(output.decode("utf-8", "replace")[-OUTPUT_SHOWN:].strip())
    return f"\n--- its output (the end) ---\n{shown}" if shown else " (it printed nothing)"


def _check_room(manifest: BotManifest, root: Path, quota: Quota, output: bytes) -> None:
    """BuildError if the build used up its workshop's space or files, whatever its exit
    status: what it left is then cut short."""
    free = os.statvfs(root)
    used_up = "space" if free.f_bavail == 0 else "files" if free.f_favail == 0 else ""
    if used_up:
        raise BuildError(f"the build step {_command(manifest)} of {manifest.label} filled its workshop "
                         f"({quota.size_mb} MB / {quota.files} files: its {used_up} ran out){_tail(output)}\n"
                         "how to fix: keep less in the bot's folder while building (delete objects and other "
                         f"intermediate files once the bot is built); an operator may allow more ({SIZE_ENV}, "
                         f"{FILES_ENV})")


def _judge(manifest: BotManifest, ran: _Ran, timeout_s: float) -> None:
    """BuildError if the build took too long or failed, with the end of its output."""
    what = f"the build step {_command(manifest)} of {manifest.label}"
    if ran.late:
        raise BuildError(f"{what} took more than {timeout_s:.0f} s{_tail(ran.output)}")
    if ran.status != 0:
        raise BuildError(f"{what} failed (exit status {ran.status}){_tail(ran.output)}\n"
                         "how to fix: run it in the bot's folder on your machine; the sandbox has the compilers of "
                         "/usr and no network (docs/BOTS.md, 'Other languages')")


def _same_manifest(manifest: BotManifest, workshop: Path) -> None:
    """BuildError if the build step changed ``bot.toml``: the bot was tested, and is launched,
    as its sources' manifest says."""
    assert manifest.folder is not None
    try:
        same = (workshop / "bot.toml").read_bytes() == (manifest.folder / "bot.toml").read_bytes()
    except OSError:
        same = False
    if not same:
        raise BuildError(f"the build step {_command(manifest)} of {manifest.label} changed or removed bot.toml\n"
                         "how to fix: leave bot.toml as it is; a build makes the bot's program, not its manifest")


def _take_back(manifest: BotManifest, workshop: Path) -> None:
    """Make the built copy the arena's again (the bot's user may serve another bot), in one
    walk that refuses what a bot's folder may not hold."""
    uid, gid = os.geteuid(), os.getegid()
    where = f"the build step {_command(manifest)} of {manifest.label} left"
    try:
        os.chown(workshop, uid, gid, follow_symlinks=False)
        for path, info, depth in scratch.walk(workshop):
            _check_entry(path.relative_to(workshop), info, depth, where)
            os.chown(path, uid, gid, follow_symlinks=False)
    except OSError as error:
        raise BuildError(f"{where} a folder the arena cannot take over: {printable(str(error), lines=False)}") from None
