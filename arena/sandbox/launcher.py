"""Launch one bot process: own session, scrubbed environment, private scratch folder, rlimits.

Every bot runs in a new session (so its process group can be killed as one), with an
environment that holds nothing of the referee's, a fresh scratch folder as its working
directory and home, and resource limits on memory, CPU time, file size and open files.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import trio

__all__ = ["Limits", "Sandboxed", "launch"]

_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)
_MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits for one bot process (and each process it starts)."""

    memory_mb: int = 2048
    """Address space; a bot that allocates more gets MemoryError / fails to map."""
    cpu_seconds: int = 3600
    """CPU time over the process's whole life (it may play many matches)."""
    file_size_mb: int = 16
    """Largest file the bot may write in its scratch folder."""
    open_files: int = 64

    def apply(self) -> None:
        """Set the limits on the current process (runs in the child before exec)."""
        resource.setrlimit(resource.RLIMIT_AS, (self.memory_mb * _MB,) * 2)
        resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.file_size_mb * _MB,) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@dataclass
class Sandboxed:
    """A launched bot process with its scratch folder."""

    process: trio.Process
    scratch: Path

    @property
    def pid(self) -> int:
        """The bot's process id (also its process group and session id)."""
        return self.process.pid

    async def kill(self) -> None:
        """Kill the bot's whole process group, reap it and remove its scratch folder."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with trio.CancelScope(shield=True):
            await self.process.wait()
        shutil.rmtree(self.scratch, ignore_errors=True)


def _environment(scratch: Path, extra: Mapping[str, str]) -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
        "LANG": "C.UTF-8",
        "PYTHONPATH": _PACKAGE_ROOT,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


async def launch(
    argv: Sequence[str],
    *,
    limits: Limits = Limits(),
    env: Mapping[str, str] | None = None,
    scratch_root: Path | None = None,
) -> Sandboxed:
    """Start ``argv`` as a bot with pipes on stdin, stdout and stderr."""
    scratch = Path(tempfile.mkdtemp(prefix="arena-bot-", dir=scratch_root))
    try:
        process = await trio.lowlevel.open_process(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=scratch,
            env=_environment(scratch, env or {}),
            start_new_session=True,
            preexec_fn=limits.apply,
        )
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return Sandboxed(process, scratch)
