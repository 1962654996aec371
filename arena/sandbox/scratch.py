"""A bot's scratch space, the one place it may write, and removing it whatever it holds.

Where the arena may mount (as root), the scratch space is a tmpfs of the bot's own with a
size and an inode quota: a bot that fills it gets ENOSPC, and the machine's disk never
sees a byte.  It is mounted on a folder named ``arena-bot-PID-...`` after the arena
process that made it, so that the next arena process can unmount what a killed one left
(:func:`sweep`).  Unmounting takes the same fraction of a millisecond whatever the bot
wrote; the kernel frees the files when the last process that sees them is gone.

Elsewhere it is a plain folder.  A bot can fill it with any tree (thousands deep, a
million files, unreadable folders, links): :func:`remove_tree` removes such trees without
recursion, without following links and without running out of file descriptors, and is
meant to run off the event loop (a thread).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import itertools
import os
import stat
import tempfile
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.sandbox.cgroups import owner_alive

__all__ = ["PREFIX", "Quota", "can_mount", "create", "remove", "remove_at_exit", "remove_tree", "sweep", "walk"]

PREFIX: Final = "arena-bot-"
"""Scratch folders (and the bot's control groups) are named ``arena-bot-PID-...``."""
_MS_NOSUID, _MS_NODEV = 2, 4
_MNT_DETACH = 2


@dataclass(frozen=True)
class Quota:
    """What one bot may keep in its scratch space."""

    size_mb: int = 32
    """Bytes of file data (the tmpfs size)."""
    files: int = 4096
    """Files and folders (the tmpfs inodes)."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _mount_tmpfs(path: Path, quota: Quota, owner: tuple[int, int] | None) -> None:
    """Mount a tmpfs with ``quota`` on ``path`` (OSError if this process may not)."""
    uid, gid = owner or (os.geteuid(), os.getegid())
    options = f"size={quota.size_mb}m,nr_inodes={quota.files},mode=0700,uid={uid},gid={gid}"
    if _libc().mount(b"arena-scratch", os.fsencode(path), b"tmpfs", _MS_NOSUID | _MS_NODEV, options.encode()) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"cannot mount a tmpfs on {path}: {os.strerror(code)}")


def can_mount() -> tuple[bool, str]:
    """Whether this process can give bots a tmpfs scratch space with quotas, and if not, why."""
    probe = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-probe-"))
    try:
        _mount_tmpfs(probe, Quota(1, 16), None)
    except OSError as error:
        return False, f"{error.strerror} (mounting needs root)"
    finally:
        _unmount(probe)
        with contextlib.suppress(OSError):
            probe.rmdir()
    return True, ""


def create(owner: tuple[int, int] | None, quota: Quota | None, kind: str = "") -> Path:
    """A new scratch folder owned by ``owner`` (uid, gid), a tmpfs of ``quota`` if given;
    ``kind`` goes into its name after the process id (``build-``: a bot's build workshop)."""
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-{kind}"))  # where the sweep looks
    try:
        if quota is not None:
            _mount_tmpfs(path, quota, owner)
        elif owner is not None:
            os.chown(path, *owner)
    except BaseException:
        remove(path)
        raise
    return path


def _unmount(path: Path) -> bool:
    """Detach a mount at ``path``; whether there was one."""
    return bool(_libc().umount2(os.fsencode(path), _MNT_DETACH) == 0)


def remove(path: Path) -> None:
    """Remove a scratch folder: unmount its tmpfs, or remove the tree a bot left in it.
    Never raises; may take long for a plain folder full of files (call it in a thread)."""
    with contextlib.suppress(OSError):
        _unmount(path)
        remove_tree(path)


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything under it, never following a link.

    Each folder's subfolders are first moved up to the top of the tree (``renameat``), so
    the walk never goes deeper than one level: any depth works with two open descriptors,
    and folders the bot made unreadable or read-only are opened up on the way."""
    try:
        top = _open_folder(None, os.fsencode(path))
    except FileNotFoundError:
        return
    except NotADirectoryError:
        os.unlink(path)  # a file or a link where the folder was
        return
    try:
        pending = [os.fsencode(name) for name in os.listdir(top)]
        taken = set(pending)
        fresh = (b".gone-%d" % n for n in itertools.count() if b".gone-%d" % n not in taken)
        while pending:
            name = pending.pop()
            if not stat.S_ISDIR(os.stat(name, dir_fd=top, follow_symlinks=False).st_mode):
                os.unlink(name, dir_fd=top)
                continue
            folder = _open_folder(top, name)
            try:
                for child in map(os.fsencode, os.listdir(folder)):
                    if stat.S_ISDIR(os.stat(child, dir_fd=folder, follow_symlinks=False).st_mode):
                        moved = next(fresh)
                        taken.add(moved)
                        os.rename(child, moved, src_dir_fd=folder, dst_dir_fd=top)
                        pending.append(moved)
                    else:
                        os.unlink(child, dir_fd=folder)
            finally:
                os.close(folder)
            os.rmdir(name, dir_fd=top)
    finally:
        os.close(top)
    os.rmdir(path)


def walk(top: Path, skip: Collection[str] = ()) -> Iterator[tuple[Path, os.stat_result, int]]:
    """Every entry under ``top`` (not ``top`` itself), a folder before what it holds, with
    its ``lstat`` and its depth (1 for ``top``'s own entries); folders named in ``skip`` are
    neither given nor entered.  Never follows a link, and keeps a list rather than
    recursing (``os.walk`` does, and a tree a bot made may be thousands deep): whoever
    reads it can stop at the depth or the count it accepts."""
    pending = [(top, 0)]
    while pending:
        folder, depth = pending.pop()
        with os.scandir(folder) as listing:
            entries = [(Path(entry.path), entry.stat(follow_symlinks=False)) for entry in listing]
        for path, info in entries:
            if stat.S_ISDIR(info.st_mode):
                if path.name in skip:
                    continue
                pending.append((path, depth + 1))
            yield path, info, depth + 1


def _open_folder(parent: int | None, name: bytes) -> int:
    """Open a folder (``name`` in ``parent``), never through a link, making it readable
    and writable first if it is not (NotADirectoryError for anything else)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=parent)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=parent, follow_symlinks=False)
        fd = os.open(name, flags, dir_fd=parent)
    except OSError as error:
        if error.errno == errno.ELOOP:  # a link: O_NOFOLLOW refuses it
            raise NotADirectoryError(error.errno, error.strerror) from None
        raise
    if not os.fstat(fd).st_mode & stat.S_IWUSR:
        os.fchmod(fd, 0o700)  # its entries cannot be removed otherwise (unless root)
    return fd


def _mounted_scratch() -> list[Path]:
    """Scratch tmpfs mounts of this machine (``/proc/self/mountinfo``)."""
    found = []
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as info:
        for line in info:
            point = Path(line.split()[4].replace("\\040", " "))
            if point.name.startswith(PREFIX):
                found.append(point)
    return found


def remove_at_exit(path: Path) -> None:
    """Remove ``path`` (a folder this process made for its bots) when this process exits,
    and not when a child forked from it does; the sweep removes it if the process is killed."""
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:
            remove_tree(path)

    atexit.register(remove)


def sweep(root: Path | None = None) -> None:
    """Unmount and remove the scratch spaces of arena processes that died without cleaning
    up (a referee killed with SIGKILL), in a background thread: whatever they hold, this
    never delays or breaks the process that sweeps."""
    root = root or Path(tempfile.gettempdir())
    stale = {p for p in _mounted_scratch() if not owner_alive(p.name)}
    with contextlib.suppress(OSError):
        stale.update(p for p in root.glob(f"{PREFIX}*") if not owner_alive(p.name))
    if stale:
        threading.Thread(target=_remove_all, args=(sorted(stale),), name="arena-scratch-sweep", daemon=True).start()


def _remove_all(paths: list[Path]) -> None:
    for path in paths:
        remove(path)
