"""What a bot sees of ``/proc``: its own processes, and nothing that others can change.

Bubblewrap gives each bot a ``/proc`` of its own PID namespace, but the files that describe
the whole machine stay shared: ``loadavg``, ``stat``, ``meminfo``, ``pressure/``,
``interrupts``, ``sys/fs/file-nr``...  Two bots that can read them can signal each other
(one loads the CPU or allocates memory, the other watches), and one bot can watch the
referee's machine.  So every top-level entry of ``/proc`` is hidden behind an empty file
or folder unless it is in :data:`SHOWN` (fixed facts and per-process views), and the four
files that runtimes commonly read (:data:`STEADY`) are replaced by steady ones: the
memory the bot may use and the CPUs it sees, every counter at zero.

A process's own folder tells more than its own state: ``smaps``, ``smaps_rollup``,
``numa_maps`` and ``pagemap`` say how many processes map each page it maps, so two bots
mapping pages of a file they both read (every bot reads the same standard library)
signalled each other through the count, a whole hand in one decision; ``fdinfo`` shows
numbers given out across the whole machine (eventfd ids, lowest free first).  Landlock
lets a bot read only :func:`readable`: the top-level entries, and of its own folder the
entries :data:`OWN` (processes it starts see none of theirs).
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path
from typing import Final

from arena.sandbox.scratch import PREFIX, remove_at_exit

__all__ = ["OWN", "SHOWN", "STEADY", "masks", "readable"]

SHOWN: Final = frozenset({
    "self", "thread-self", "mounts", "net",  # per-process and per-namespace views (links)
    "cpuinfo", "version", "cmdline", "filesystems", "crypto", "devices", "execdomains", "misc",
})
"""Entries a bot sees as they are: they describe only itself or facts that never change."""

STEADY: Final = ("meminfo", "stat", "loadavg", "uptime")
"""Entries replaced by steady stand-ins (runtimes read them to size heaps and thread pools)."""

OWN: Final = ("auxv", "cgroup", "cmdline", "comm", "environ", "fd", "io", "limits", "maps", "mountinfo", "mounts",
              "net", "stat", "statm", "status")
"""Entries of its own ``/proc/self`` a landlocked bot may read: what runtimes read of
themselves (the C library reads ``maps`` to find the main thread's stack; ``fd`` lists the
descriptors to close before an ``exec``; links such as ``exe`` and ``ns/`` are read without
a rule).  Not the page counts, ``fdinfo``, ``task`` (each thread's copy of the same
files), ``mem`` or ``map_files``."""


def _stand_ins(memory_mb: int, cpus: int) -> dict[str, str]:
    kb = memory_mb * 1024
    zeros = " 0" * 10
    return {
        "meminfo": "".join(f"{key}: {value:>8} kB\n" for key, value in (
            ("MemTotal", kb), ("MemFree", kb), ("MemAvailable", kb), ("Buffers", 0), ("Cached", 0),
            ("SwapCached", 0), ("SwapTotal", 0), ("SwapFree", 0), ("Shmem", 0))),
        "stat": f"cpu {zeros}\n" + "".join(f"cpu{n}{zeros}\n" for n in range(cpus))
        + "intr 0\nctxt 0\nbtime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\nsoftirq 0\n",
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": "0.00 0.00\n",
    }


@functools.cache
def _folder(memory_mb: int, cpus: int) -> Path:
    """The stand-in files and an empty folder, made once per arena process and removed when
    it exits (named like a scratch folder, so that the sweep removes the folder of a
    process that was killed)."""
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-proc-"))
    remove_at_exit(folder)
    for name, text in _stand_ins(memory_mb, cpus).items():
        (folder / name).write_text(text, encoding="ascii")
        (folder / name).chmod(0o444)
    (folder / "empty").touch(0o444)
    (folder / "none").mkdir(0o555)
    folder.chmod(0o755)
    return folder


def masks(memory_mb: int) -> list[tuple[str, str]]:
    """``(source, /proc/NAME)`` read-only binds that hide the machine-wide entries of this
    machine's ``/proc`` from a bot that may use ``memory_mb``."""
    folder = _folder(memory_mb, os.cpu_count() or 1)
    binds = []
    for entry in sorted(os.scandir("/proc"), key=lambda e: e.name):
        name = entry.name
        if name.isdigit() or name in SHOWN or entry.is_symlink():
            continue
        if name in STEADY:
            source = folder / name
        else:
            source = folder / ("none" if entry.is_dir(follow_symlinks=False) else "empty")
        binds.append((str(source), f"/proc/{name}"))
    return binds


@functools.cache
def readable() -> tuple[str, ...]:
    """The ``/proc`` paths a landlocked bot may read: every top-level entry (hidden or
    steady where :func:`masks` binds them) but the processes' folders, and :data:`OWN`
    of its own, resolved by the bot as it confines itself."""
    names = sorted(e.name for e in os.scandir("/proc")
                   if not e.name.isdigit() and e.name not in ("self", "thread-self"))
    return (*(f"/proc/{name}" for name in names), *(f"/proc/self/{entry}" for entry in OWN))
