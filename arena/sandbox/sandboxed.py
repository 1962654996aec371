"""A launched bot: its process tree, scratch space, user lease and control groups, which
the referee measures, freezes between turns and kills as one."""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.sandbox import scratch, tree
from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.process import BotProcess
from arena.sandbox.uids import Lease

__all__ = ["Sandboxed"]


@dataclass
class Sandboxed:
    """A launched bot process with its scratch folder, user lease and control groups."""

    process: BotProcess
    scratch: Path
    cgroup: BotCgroup | None = None
    lease: Lease | None = None
    folder: Path | None = None
    """Where the bot's folder is read from: the folder, or its copy under the ``resident`` layer."""
    _done: bool = field(default=False, repr=False)
    _cpu_fd: int = field(default=-1, repr=False)
    _freeze_fd: int = field(default=-1, repr=False)
    frozen: bool = field(default=False, init=False)
    """Whether the tree is frozen (or being frozen) now."""

    @property
    def pid(self) -> int:
        """The launched process's id (its process group and session id too)."""
        return self.process.pid

    @property
    def accounts_cpu(self) -> bool:
        """Whether :meth:`cpu_ns` counts the tree's CPU time (the cgroup layer's cpuacct)."""
        return self.cgroup is not None and self.cgroup.cpuacct is not None

    def cpu_ns(self) -> int:
        """CPU time the whole tree has used so far (0 without the cgroup layer or once it
        is killed).  One ``pread`` of a counter kept open: cheap enough for every decision."""
        if self._cpu_fd < 0:
            if self._done or self.cgroup is None or self.cgroup.cpuacct is None:
                return 0
            try:
                self._cpu_fd = os.open(self.cgroup.cpuacct / "cpuacct.usage", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return 0
        try:
            return int(os.pread(self._cpu_fd, 32, 0))
        except (OSError, ValueError):
            return 0

    @property
    def can_freeze(self) -> bool:
        """Whether :meth:`freeze` stops the tree (the ``freeze`` layer)."""
        return self.cgroup is not None and self.cgroup.freezer is not None

    def freeze(self) -> None:
        """Stop every process of the tree until :meth:`thaw` (no-op without the freezer).

        One write to ``cgroup.freeze``, kept open: the kernel stops the processes as they
        next leave the kernel, within microseconds, and a process waiting for its next
        request simply stays asleep."""
        if not self.frozen and self._freezer(b"1"):
            self.frozen = True

    def thaw(self) -> None:
        """Let the tree run again."""
        if self.frozen:
            self.frozen = False
            self._freezer(b"0")

    def _freezer(self, state: bytes) -> bool:
        if self._freeze_fd < 0:
            if self._done or self.cgroup is None or self.cgroup.freezer is None:
                return False
            try:
                self._freeze_fd = os.open(self.cgroup.freezer, os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                return False
        try:
            os.write(self._freeze_fd, state)
        except OSError:
            return False
        return True

    async def kill(self) -> None:
        """Kill the bot's whole tree, reap it, and remove its groups and scratch space; its
        user goes back to the pool once none of the user's processes is left."""
        if self._done:
            return
        self._done = True
        for fd in (self._cpu_fd, self._freeze_fd):
            if fd >= 0:
                os.close(fd)
        self._cpu_fd = self._freeze_fd = -1
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        uid = self.lease.uid if self.lease else None
        with trio.CancelScope(shield=True):
            # the session before the leader is reaped: until then its pid holds the session id
            await tree.kill_tree(self.pid, uid)
            if self.cgroup is not None:
                self.cgroup.kill()
            await self.process.wait()
            # a user whose killed processes are not reaped in time stays out of the pool
            released = uid is None or await tree.wait_reaped(uid)
            # a plain folder a bot filled can take seconds to empty: never on the event loop
            await trio.to_thread.run_sync(scratch.remove, self.scratch)
        if self.cgroup is not None:
            self.cgroup.remove()
        if self.lease is not None and released:
            self.lease.release()
