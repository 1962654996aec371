"""Folders a bot must read, made reachable for the unprivileged user it runs as.

Bubblewrap runs as the bot's user and binds each folder the bot reads (the arena package,
the libraries it imports, the bot's own folder) by path, so that user must be able to
enter every folder on the way.  A clone in ``/root`` (mode 0700), in a ``mktemp -d``
folder or under a home of mode 0750 is closed to it.  For such a folder the arena makes a
read-only copy in the temporary folder, once per arena process, named like a scratch
folder (``arena-bot-PID-copy-...``), removed when the process exits (and by the sweep, once
a killed process is gone), and binds the copy where the folder is: inside the sandbox
nothing changes.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

from arena.sandbox.scratch import PREFIX, remove_at_exit

__all__ = ["closed_to_others", "reachable"]

_copies: dict[tuple[Path, tuple[str, ...]], Path] = {}


def closed_to_others(folder: Path) -> Path | None:
    """The first folder on the way to ``folder`` (itself included) that users other than
    its owner cannot enter, or None if every user can reach it."""
    folder = folder.resolve()
    for step in (*reversed(folder.parents), folder):
        if not step.stat().st_mode & stat.S_IXOTH:
            return step
    return None


def reachable(folder: Path, only: Sequence[str] = ()) -> Path:
    """``folder`` itself if every user can reach it, else a read-only copy every user can
    read (of only the entries named in ``only``, if given: a site folder's few packages)."""
    if closed_to_others(folder) is None:
        return folder
    key = (folder, tuple(only))
    copy = _copies.get(key)
    if copy is None or not copy.is_dir():
        copy = _copies[key] = _copy(folder, only)
    return copy


def _copy(folder: Path, only: Sequence[str]) -> Path:
    target = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-copy-"))
    remove_at_exit(target)
    names = only or os.listdir(folder)
    for name in names:
        source = folder / name
        if source.is_dir():
            shutil.copytree(source, target / name, symlinks=True)
        elif source.exists():
            shutil.copy2(source, target / name, follow_symlinks=False)
    for root, _dirs, files in os.walk(target):
        os.chmod(root, 0o755)
        for name in files:
            path = Path(root, name)
            if not path.is_symlink():
                os.chmod(path, 0o755 if path.stat().st_mode & stat.S_IXUSR else 0o644)
    return target

