"""The sandbox's isolation layers, what each stops, and the resource limits of one bot."""

from __future__ import annotations

import resource
from dataclasses import dataclass
from enum import StrEnum

from arena.errors import ArenaError

__all__ = ["LAYERS", "Layer", "LayerStatus", "Limits", "SandboxError"]

_MB = 1024 * 1024

class Layer(StrEnum):
    """An isolation layer, by the name tournament files (``require``), ``arena doctor`` and
    match records use."""

    RLIMITS = "rlimits"
    SESSION = "session"
    UID = "uid"
    BWRAP = "bwrap"
    SECCOMP = "seccomp"
    CGROUP = "cgroup"
    CGROUP_KILL = "cgroup-kill"
    FREEZE = "freeze"
    QUOTA = "quota"
    LANDLOCK = "landlock"
    RESIDENT = "resident"


LAYERS: dict[Layer, str] = {
    Layer.RLIMITS: "memory hogs, CPU loops, huge files, fd floods (address space, CPU, file size, open files)",
    Layer.SESSION: "a bot's children outliving it: own session and process group, killed as one",
    Layer.UID: "reading root-only files, signalling the referee or other bots (one unprivileged user per bot, "
           "whose every process dies with the bot)",
    Layer.BWRAP: "the network, the filesystem beyond its own folders, other processes, the machine's load and "
             "counters in /proc (bubblewrap namespaces)",
    Layer.SECCOMP: "sockets, ptrace, mount, new namespaces, bpf, io_uring and other kernel interfaces; file locks, "
               "change notifications, page-cache hints and probes, the machine's counters (sysinfo, statfs) and "
               "CPU affinity (channels between bots)",
    Layer.CGROUP: "fork bombs and memory exhaustion (pids and memory limits), per-decision CPU accounting",
    Layer.CGROUP_KILL: "processes escaping the session: the whole group is killed at once (cgroup v2)",
    Layer.FREEZE: "thinking on others' turns: once seen using the CPU there, the bot's processes are frozen from "
              "each reply to its next request (cgroup v2 freezer; the `ponder` time setting allows it and "
              "charges it to the bot's clock)",
    Layer.QUOTA: "filling the disk or the inode table: the bot writes only to a tmpfs of its own with a size and "
             "a file quota (it gets ENOSPC)",
    Layer.LANDLOCK: "reads and writes outside the bot's paths, TCP, signals and abstract sockets beyond its own "
                "processes (the kernel's Landlock, applied inside the namespaces)",
    Layer.RESIDENT: "signals through the page cache: everything a bot reads (its /usr of the runtimes bots are "
                "offered, the arena, its own folder) is a copy in memory, with nothing to load, evict or time",
}
"""Every layer the sandbox knows, and what it stops."""


class SandboxError(ArenaError, RuntimeError):
    """A sandbox that cannot provide what was asked, or a bot it cannot start."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for one bot process tree."""

    memory_mb: int = 2048
    """Address space per process (rlimit) and memory of the whole tree (cgroup)."""
    cpu_seconds: int = 3600
    """CPU time over the process's whole life (it may play many matches)."""
    file_size_mb: int = 16
    """Largest file the bot may write in its scratch folder."""
    open_files: int = 64
    processes: int = 32
    """Processes and threads of the whole tree (cgroup pids; RLIMIT_NPROC under its own uid)."""
    scratch_mb: int = 32
    """Bytes the bot may keep in its scratch space (the ``quota`` layer)."""
    scratch_files: int = 4096
    """Files and folders the bot may keep in its scratch space (the ``quota`` layer)."""

    def apply(self, own_user: bool) -> None:
        """Set the limits on the current process (runs in the child before exec)."""
        resource.setrlimit(resource.RLIMIT_AS, (self.memory_mb * _MB,) * 2)
        resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.file_size_mb * _MB,) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if own_user:  # counts every process of the user: only meaningful per bot user
            resource.setrlimit(resource.RLIMIT_NPROC, (self.processes,) * 2)


@dataclass(frozen=True)
class LayerStatus:
    """Whether a layer is in use here, and if not, why."""

    name: Layer
    active: bool
    why: str = ""

    @property
    def stops(self) -> str:
        """What the layer stops."""
        return LAYERS[self.name]
