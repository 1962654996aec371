"""The bots' resident files: everything a bot can read is a copy in memory, so that the page
cache carries nothing between bots.

A plain read brings a page of a file into the page cache, and a cached page answers in
about a microsecond where one on disk takes a hundred: two bots that read the same files on
disk can signal by which pages one reads and the other times (a bot's next process
generation can be told which pages of its deal the last one read the same way).  The
seccomp filter refuses the hints and probes; this closes the reads themselves.  Under
bubblewrap a bot's ``/usr``, the arena package with its libraries, and the bot's own folder
are bound from copies in a tmpfs of the arena's (:data:`MOUNT`): tmpfs pages are never
evicted (there is no swap to push them to, and they are charged to the arena, not to the
bot whose memory limit could reclaim them), and tmpfs keeps no negative directory entries,
so there is nothing for a bot to load, evict or time.

``/usr`` there holds the runtimes bots are offered (:data:`PROGRAMS`: the Python
interpreter bots run with and its standard library, Node.js, ``sh``, ``bash`` and
``env``) and every shared library they load, which also serves compiled bots that link the
C and C++ runtimes.  Each part is built once per machine under a name made from what it
copies (paths, sizes and times), so a changed package or a new bot version gets a new copy;
copies no live arena process uses are removed when the next one is made.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import hashlib
import os
import re
import shutil
import stat
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from arena.errors import ArenaError

__all__ = ["MOUNT", "PROGRAMS", "Resident", "ResidentError"]

MOUNT: Final = Path("/run/arena-resident")
"""The machine's tmpfs of resident copies (mounted by the first arena process that needs it)."""
PROGRAMS: Final = ("node", "sh", "bash", "env")
"""Commands offered to bots besides their Python interpreter (where this machine has them)."""
SKIPPED: Final = frozenset({"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "site-packages",
                            "dist-packages"})
"""Folders of the standard library no bot needs (tests, GUI, installers, the archive to embed Python)."""
_SIZE_MB: Final = 4096
_FORMAT: Final = b"2"
"""Changes when what a copy holds changes (2: files keep their times, so bytecode stays current)."""
_LIST = re.compile(r"^\s*(?:\S+ => )?(/\S+) \(0x[0-9a-f]+\)$")


class ResidentError(ArenaError, OSError):
    """The resident copies cannot be made here (not root, no tmpfs, an interpreter outside /usr)."""


def _mount() -> None:
    """Mount :data:`MOUNT` once per machine (a tmpfs readable by the bots' users)."""
    MOUNT.mkdir(mode=0o755, parents=True, exist_ok=True)
    if os.path.ismount(MOUNT):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    options = f"size={_SIZE_MB}m,mode=0755".encode()
    if libc.mount(b"arena-resident", os.fsencode(MOUNT), b"tmpfs", 2 | 4, options) != 0:  # nosuid, nodev
        code = ctypes.get_errno()
        raise ResidentError(code, f"cannot mount a tmpfs on {MOUNT}: {os.strerror(code)}")


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """Every change under :data:`MOUNT` happens under one machine-wide lock."""
    fd = os.open(MOUNT / ".lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _key(paths: Iterable[Path]) -> str:
    """A name for the copy of ``paths``: what they are, by path, size, time and mode."""
    digest = hashlib.sha256(_FORMAT)
    for path in sorted(paths):
        info = path.lstat()
        digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_mode}\n".encode())
    return digest.hexdigest()[:24]


def _tree(top: Path, skip: Callable[[str], bool] = lambda name: False) -> list[Path]:
    """Every entry under ``top`` (itself included), without recursion, links not followed,
    leaving out the folders and files whose name ``skip`` accepts."""
    found, pending = [top], [top]
    while pending:
        folder = pending.pop()
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if skip(entry.name):
                continue
            path = Path(entry.path)
            found.append(path)
            if entry.is_dir(follow_symlinks=False):
                pending.append(path)
    return found


def _libraries(files: Iterable[Path]) -> set[Path]:
    """The shared libraries (and the loader) that the ELF files among ``files`` load, as the
    dynamic loader itself resolves them (``ld.so --list``; these are the machine's own files)."""
    loader = Path("/lib64/ld-linux-x86-64.so.2")
    if not loader.exists():
        loader = next(Path("/lib").glob("ld-linux*.so.*"), loader)
    found: set[Path] = set()
    for path in files:
        if path.is_symlink() or not path.is_file():
            continue
        with open(path, "rb") as handle:
            if handle.read(4) != b"\x7fELF":
                continue
        listed = subprocess.run([str(loader), "--list", str(path)], capture_output=True, text=True, check=False)
        for line in listed.stdout.splitlines():
            if match := _LIST.match(line):
                found.add(Path(match.group(1)))
    return found


def _in_usr(path: Path) -> Path:
    """``path`` as it is under ``/usr`` (``/lib`` and ``/lib64`` are links into it here)."""
    for top in ("/lib64", "/lib", "/bin", "/sbin"):
        if str(path).startswith(top + "/") and Path(top).is_symlink():
            return Path("/usr") / Path(top).readlink().relative_to("usr") / path.relative_to(top)
    return path


def _with_links(paths: Iterable[Path]) -> set[Path]:
    """``paths`` and, for each link among them (or on the way to them), what it points to."""
    wanted: set[Path] = set()
    pending = [_in_usr(p) for p in paths]
    while pending:
        path = pending.pop()
        if path in wanted or Path("/usr") not in path.parents:
            continue
        wanted.add(path)
        if path.is_symlink():
            pending.append(_in_usr(Path(os.path.normpath(path.parent / path.readlink()))))
    return wanted


def _copy(paths: Iterable[Path], source: Path, target: Path) -> None:
    """Copy ``paths`` (under ``source``) to the same places under ``target``: folders,
    links as links, files with their mode, all readable by every user."""
    for path in sorted(paths):
        to = target / path.relative_to(source)
        info = path.lstat()
        to.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        if stat.S_ISDIR(info.st_mode):
            to.mkdir(mode=0o755, exist_ok=True)
        elif stat.S_ISLNK(info.st_mode):
            to.symlink_to(path.readlink())
        elif stat.S_ISREG(info.st_mode):
            shutil.copyfile(path, to)
            to.chmod(0o755 if info.st_mode & 0o111 else 0o644)
            os.utime(to, ns=(info.st_atime_ns, info.st_mtime_ns))  # bytecode records its source's time


@dataclass
class Resident:
    """The resident copies one arena process binds for its bots."""

    usr: Path
    """The copy of ``/usr`` bots see."""
    package: Path
    """The copy of the arena package."""
    sites: list[Path]
    """Copies of the site folders of the arena's libraries, in the order of the originals."""
    _used: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def prepare(cls, python: str, package: Path, sites: list[Path], libraries: tuple[str, ...]) -> Resident:
        """The copies for bots run with ``python`` (made if this machine has none yet)."""
        if os.geteuid() != 0:
            raise ResidentError("the arena is not running as root, so it cannot mount a tmpfs for them")
        interpreter = Path(python).resolve()
        if Path("/usr") not in interpreter.parents:
            raise ResidentError(f"the bots' interpreter {interpreter} is not under /usr")
        _mount()
        resident = cls(Path(), Path(), [])
        with _locked():
            resident._sweep()
            resident.usr = resident._usr(interpreter)
            resident.package = resident._part(package, package.parent, ("arena",), "arena")
            resident.sites = [resident._part(site, site, libraries, "site") for site in sites]
        return resident

    def bot(self, folder: Path) -> Path:
        """The copy of a bot's folder (made on first use; the same copy for the same files)."""
        entries = _tree(folder)
        key = f"bot-{_key(entries)}"
        target = MOUNT / key
        with self._lock, _locked():
            self._use(key)
            if not target.exists():
                self._build(target, lambda into: _copy(entries, folder, into))
        return target

    def _usr(self, interpreter: Path) -> Path:
        stdlib = Path("/usr/lib") / interpreter.name
        programs = [interpreter, *(Path(p) for name in PROGRAMS if (p := shutil.which(name, path="/usr/bin")))]
        unneeded: Callable[[str], bool] = lambda name: name in SKIPPED or name.startswith("config-")  # noqa: E731
        stdlib_files = _tree(stdlib, unneeded) if stdlib.is_dir() else []
        sources = [*stdlib_files, *programs]
        key = f"usr-{_key(sources)}"
        target = MOUNT / key
        self._use(key)
        if not target.exists():
            def make(into: Path) -> None:
                loaded = _libraries([*programs, *(p for p in stdlib_files if p.suffix == ".so")])
                files = _with_links([*programs, *loaded])
                _copy(files | set(stdlib_files), Path("/usr"), into)
                python3 = into / "bin" / "python3"
                if not python3.exists():
                    python3.symlink_to(interpreter.name)
            self._build(target, make)
        return target

    def _part(self, folder: Path, base: Path, names: tuple[str, ...], kind: str) -> Path:
        """The copy of ``names`` in ``base`` (or all of ``folder`` when ``names`` is empty)."""
        tops = [base / name for name in names] or [folder]
        entries = [entry for top in tops for entry in _tree(top, lambda name: name == ".git")]
        key = f"{kind}-{_key(entries)}"
        target = MOUNT / key
        self._use(key)
        if not target.exists():
            self._build(target, lambda into: _copy(entries, base, into))
        return target / folder.relative_to(base) if names and folder != base else target

    def _build(self, target: Path, make: Callable[[Path], None]) -> None:
        """Make ``target`` in a folder of its own, then rename it into place (never half made)."""
        building = target.with_name(f".building-{os.getpid()}-{target.name}")
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(mode=0o755)
        make(building)
        building.rename(target)

    def _use(self, key: str) -> None:
        """Note that this process binds ``key``, so that no other arena process removes it."""
        if key not in self._used:
            self._used.add(key)
            users = MOUNT / ".users"
            users.mkdir(mode=0o700, exist_ok=True)
            with open(users / str(os.getpid()), "a", encoding="ascii") as out:
                out.write(key + "\n")

    def _sweep(self) -> None:
        """Remove the copies that no live arena process uses (called under the lock)."""
        users = MOUNT / ".users"
        users.mkdir(mode=0o700, exist_ok=True)
        used: set[str] = set()
        for listing in users.iterdir():
            if _alive(int(listing.name)) if listing.name.isdigit() else False:
                used.update(listing.read_text(encoding="ascii").split())
            else:
                listing.unlink(missing_ok=True)
        for entry in MOUNT.iterdir():
            unused = entry.name not in used and not entry.name.startswith(".") and entry.is_dir()
            builder = entry.name.removeprefix(".building-").split("-", 1)[0]  # .building-PID-...
            abandoned = entry.name.startswith(".building-") and (not builder.isdigit() or not _alive(int(builder)))
            if unused or abandoned:
                shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


@functools.cache
def available() -> tuple[bool, str]:
    """Whether resident copies can be made here, and if not, why."""
    if os.geteuid() != 0:
        return False, "the arena is not running as root, so it cannot mount a tmpfs for them"
    try:
        _mount()
    except OSError as error:
        return False, str(error)
    return True, ""
