"""Bots that travel by content hash: a registered copy packed into bytes on the machine
that runs the tournament, unpacked once into each cluster worker's cache, keyed by the
hash of its files.

Nothing else of a bot crosses between machines: a worker never reads the coordinator's
registry.  What it unpacks is checked against the hash before it is used, and a cached
copy is checked again the first time each worker process uses it, so a damaged or
altered cache is replaced, never run: the copy must hold its files and nothing but
bytecode folders besides, and its bytecode is compiled afresh from the sources just
checked (the hash covers no bytecode).  Copies are read-only and world-readable, as in
the registry (sandboxed bots run as unprivileged users).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Final

import msgspec

from arena.botspec import ManifestError
from arena.errors import ArenaError
from arena.tournament.precompile import compile_copy
from arena.tournament.registry import code_files, content_hash

__all__ = ["CACHE_ENV", "LOCKS", "BotCache", "BotCacheError", "default_cache", "pack", "unpack"]

CACHE_ENV: Final = "ARENA_BOT_CACHE"
"""Environment variable naming a worker's bot cache folder (see :func:`default_cache`)."""
LOCKS: Final = ".locks"
"""The cache's folder of lock files, one per bot (beside the copies, which are named by hash)."""


class BotCacheError(ArenaError, RuntimeError):
    """A bot's files could not be unpacked, or do not match the hash they were sent under."""


class BotFile(msgspec.Struct, frozen=True, array_like=True):
    """One file of a bot: its path inside the bot's folder, executable or not, its bytes."""

    path: str
    executable: bool
    data: bytes


def pack(folder: Path) -> bytes:
    """The files of a bot folder that make its version (no bytecode, no caches), as bytes."""
    return msgspec.msgpack.encode([
        BotFile(path.relative_to(folder).as_posix(), bool(path.stat().st_mode & stat.S_IXUSR), path.read_bytes())
        for path in code_files(folder)
    ])


def unpack(data: bytes, digest: str, target: Path) -> None:
    """Write the bot packed in ``data`` to ``target`` (atomically, read-only, bytecode
    compiled), if its files hash to ``digest``; :class:`BotCacheError` if not."""
    try:
        files = msgspec.msgpack.decode(data, type=list[BotFile])
    except msgspec.DecodeError as error:
        raise BotCacheError(f"bot {digest[:12]}: its files arrived damaged ({error})") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(target.parent, 0o755)
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=target.parent))
    try:
        for file in files:
            relative = PurePosixPath(file.path)
            if relative.is_absolute() or not relative.parts or ".." in relative.parts:
                raise BotCacheError(f"bot {digest[:12]}: refusing the file name {file.path!r}")
            destination = staging.joinpath(*relative.parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(file.data)
            destination.chmod(0o755 if file.executable else 0o644)
        try:
            found = content_hash(staging)
        except ManifestError as error:
            raise BotCacheError(f"bot {digest[:12]}: {error}") from None
        if found != digest:
            raise BotCacheError(f"bot {digest[:12]}: the files received hash to {found[:12]}, not to the hash "
                                "they were sent under")
        _compile(staging)
        _read_only(staging)
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():
                raise
            _remove(staging)  # another worker process on this machine unpacked it meanwhile
    except BaseException:
        _remove(staging)
        raise


def _compile(folder: Path) -> None:
    """Compile the bytecode of a read-only copy in advance (its bot cannot write it), in a
    bounded child (:mod:`arena.tournament.precompile`)."""
    why = compile_copy(folder)
    if why is not None:
        raise BotCacheError(f"bot {folder.name}: {why}")


def _read_only(folder: Path) -> None:
    for root, dirs, files in os.walk(folder):
        for name in files:
            mode = os.stat(Path(root, name)).st_mode
            os.chmod(Path(root, name), 0o555 if mode & stat.S_IXUSR else 0o444)
        for name in dirs:
            os.chmod(Path(root, name), 0o555)
    os.chmod(folder, 0o555)


def _writable(folder: Path) -> None:
    os.chmod(folder, 0o755)
    for root, dirs, _ in os.walk(folder):
        for name in dirs:
            os.chmod(Path(root, name), 0o755)


def _remove(path: Path) -> None:
    if path.is_dir():
        _writable(path)
    shutil.rmtree(path, ignore_errors=True)


def default_cache() -> Path:
    """Where a worker keeps its bots: ``$ARENA_BOT_CACHE`` if set; else, as root,
    ``/var/cache/thirty-one-arena/bots`` (a folder every bot user can enter); else
    ``thirty-one-arena/bots`` in the user's cache folder."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    if os.geteuid() == 0:
        return Path("/var/cache/thirty-one-arena/bots")
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "thirty-one-arena" / "bots"


class BotCache:
    """A worker's bots by hash, shared by the tables its threads play."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._checked: set[str] = set()
        self._lock = threading.Lock()

    def path(self, digest: str, fetch: Callable[[], bytes]) -> Path:
        """The copy of the bot whose files hash to ``digest``: from the cache (checked once
        per process), else ``fetch()``ed and unpacked."""
        target = self.folder / digest
        with self._lock:
            if digest in self._checked:
                return target
            with _held(self.folder, digest):
                if target.is_dir() and _holds_only(target, digest):
                    _compile_afresh(target)
                    self._checked.add(digest)
                    return target
                if target.exists():
                    _remove(target)
                if target.exists():  # unpack would take what is left for another process's fresh copy
                    raise BotCacheError(f"bot {digest[:12]}: cannot remove its damaged copy {target}")
                unpack(fetch(), digest, target)
                self._checked.add(digest)
                return target


@contextlib.contextmanager
def _held(folder: Path, digest: str) -> Iterator[None]:
    """The lock of one bot's copy among the worker processes sharing ``folder``: checking a
    copy and replacing a damaged one is one step, so no process removes a fresh copy that
    another has just put in place (or fetches what another is fetching)."""
    locks = folder / LOCKS
    locks.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(locks / digest, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _holds_only(copy: Path, digest: str) -> bool:
    """Whether ``copy`` holds the files that hash to ``digest`` and, besides them, only
    bytecode folders: the hash covers no bytecode, yet a sourceless ``random.pyc`` beside
    the bot would be imported in place of the standard library's."""
    try:
        if content_hash(copy) != digest:
            return False
        files = set(code_files(copy))
    except (OSError, ManifestError):
        return False
    folders = {parent for path in files for parent in path.parents if copy in parent.parents}
    for root, dirs, names in os.walk(copy):
        for name in dirs:
            path = Path(root, name)
            if path.is_symlink() or (name != "__pycache__" and path not in folders):
                return False
        if any(Path(root, name) not in files for name in names):
            return False
        dirs[:] = [name for name in dirs if name != "__pycache__"]
    return True


def _compile_afresh(copy: Path) -> None:
    """Replace a checked copy's bytecode with bytecode compiled from its sources: Python
    tests a checked-hash .pyc by its header alone (the source's hash), which a forged one
    can carry over other code."""
    _writable(copy)
    try:
        for root, dirs, _ in os.walk(copy):
            if "__pycache__" in dirs:
                dirs.remove("__pycache__")
                shutil.rmtree(Path(root, "__pycache__"))
        _compile(copy)
    finally:
        _read_only(copy)
