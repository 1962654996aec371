"""Per-bot control groups: memory and process limits, CPU accounting, whole-tree kill.

cgroup v1 controllers (``memory``, ``pids``, ``cpuacct``) give the limits and the
accounting; a cgroup v2 group gives ``cgroup.kill``, which kills every process in the
group at once, including children that escaped the bot's session, and ``cgroup.freeze``,
which stops all of them between the bot's turns.  Each group is created under the arena
process's own position in its hierarchy (``/proc/self/cgroup``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BotCgroup", "CgroupSupport", "detect", "owner_alive"]

ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpuacct")


@dataclass(frozen=True)
class CgroupSupport:
    """Where the arena may create bot groups: v1 controller dirs and the v2 dir."""

    v1: dict[str, Path]
    v2: Path | None
    freeze: bool = False
    """The v2 groups have ``cgroup.freeze``."""

    @property
    def limits(self) -> bool:
        """Memory and pids limits and CPU accounting (all three v1 controllers)."""
        return all(c in self.v1 for c in V1_CONTROLLERS)

    def create(self, name: str, memory_mb: int, max_pids: int) -> BotCgroup:
        """Make the groups for one bot and set their limits."""
        dirs: list[Path] = []
        try:
            for controller, base in self.v1.items():
                path = base / name
                path.mkdir(parents=True, exist_ok=True)
                dirs.append(path)
                if controller == "memory":
                    (path / "memory.limit_in_bytes").write_text(str(memory_mb * 1024 * 1024))
                    with contextlib.suppress(OSError):  # absent without swap accounting
                        (path / "memory.memsw.limit_in_bytes").write_text(str(memory_mb * 1024 * 1024))
                elif controller == "pids":
                    (path / "pids.max").write_text(str(max_pids))
            if self.v2 is not None:
                path = self.v2 / name
                path.mkdir(parents=True, exist_ok=True)
                dirs.append(path)
        except OSError:
            BotCgroup(tuple(dirs), None, None).remove()
            raise
        cpu = self.v1.get("cpuacct")
        unified = self.v2 / name if self.v2 else None
        return BotCgroup(tuple(dirs), cpu / name if cpu else None, unified,
                         unified / "cgroup.freeze" if unified and self.freeze else None)

    def sweep(self) -> int:
        """Kill and remove the groups left by arena processes that died without cleaning
        up (a referee killed with SIGKILL), whose bots may still be running; how many.

        A group is named ``arena-bot-PID-...`` after the process that made it, so the
        groups of live arena processes (other workers, other runs) are never touched."""
        bases = [*self.v1.values(), *([self.v2] if self.v2 else [])]
        names: set[str] = set()
        for base in bases:
            with contextlib.suppress(OSError):
                names.update(d.name for d in base.iterdir() if d.is_dir() and not owner_alive(d.name))
        for name in names:
            cpu = self.v1.get("cpuacct")
            group = BotCgroup(tuple(base / name for base in bases if (base / name).is_dir()),
                              cpu / name if cpu else None, self.v2 / name if self.v2 else None)
            group.kill()
            group.remove()
        return len(names)


def owner_alive(name: str) -> bool:
    """Whether the arena process named in ``arena-bot-PID-...`` (a bot's group or scratch
    folder) is still running; True for names of another form."""
    prefix, _, rest = name.partition("arena-bot-")
    pid = rest.partition("-")[0]
    if prefix or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, as another user
        pass
    return True


@dataclass(frozen=True)
class BotCgroup:
    """The groups of one bot process tree."""

    dirs: tuple[Path, ...]
    cpuacct: Path | None
    unified: Path | None
    freezer: Path | None = None
    """The group's ``cgroup.freeze`` file."""

    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a new process must join (opened before the fork)."""
        return [str(d / "cgroup.procs") for d in self.dirs]

    def cpu_ns(self) -> int:
        """CPU time used by every process of the group so far, in nanoseconds."""
        if self.cpuacct is None:
            return 0
        try:
            return int((self.cpuacct / "cpuacct.usage").read_text())
        except (OSError, ValueError):
            return 0

    def pids(self) -> set[int]:
        """Processes still in the group."""
        found: set[int] = set()
        for d in self.dirs:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(p) for p in (d / "cgroup.procs").read_text().split())
        return found

    def kill(self) -> None:
        """Kill every process of the group, escapers included, and wait until none is left."""
        if self.unified is not None:
            with contextlib.suppress(OSError):
                (self.unified / "cgroup.kill").write_text("1")
        deadline = time.monotonic() + 2.0
        while (left := self.pids()) and time.monotonic() < deadline:
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.002)

    def remove(self) -> None:
        """Drop the file pages the bot's processes brought into the page cache, then remove
        the (empty) groups.

        Pages a process reads first are charged to its memory group.  Left in the cache when
        it ends, they answer the next process generation of the same deal in a microsecond
        instead of a hundred: a generation could leave a message in which pages it read.
        ``memory.force_empty`` (cgroup v1) reclaims every page still charged to the group."""
        for d in self.dirs:
            with contextlib.suppress(OSError):
                (d / "memory.force_empty").write_text("0")
            with contextlib.suppress(OSError):
                d.rmdir()


def _own_paths() -> dict[str, str]:
    """This process's position in each hierarchy, from ``/proc/self/cgroup``."""
    paths: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    return paths


def _writable(path: Path) -> bool:
    probe = path / f"arena-probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


def detect(prefix: str = "arena") -> CgroupSupport:
    """The controllers this process may create bot groups in (none when not permitted)."""
    own = _own_paths()
    v1: dict[str, Path] = {}
    for controller in V1_CONTROLLERS:
        mount = ROOT / controller
        if controller in own and (mount / "cgroup.procs").exists():
            base = mount / own[controller].lstrip("/")
            if _writable(base):
                v1[controller] = base / prefix
    v2: Path | None = None
    freeze = False
    for mount in (ROOT / "unified", ROOT):
        if (mount / "cgroup.controllers").exists() and "" in own:
            base = mount / own[""].lstrip("/")
            if _writable(base):
                probe = base / f"arena-probe-{os.getpid()}"
                try:
                    probe.mkdir()
                    has_kill = (probe / "cgroup.kill").exists()
                    freeze = (probe / "cgroup.freeze").exists()
                finally:
                    with contextlib.suppress(OSError):
                        probe.rmdir()
                if has_kill:
                    v2 = base / prefix
            break
    return CgroupSupport(v1, v2, freeze and v2 is not None)
