"""A bot's process with pipes on its stdio, spawned from the thread that runs the referee.

Not :func:`trio.lowlevel.open_process`: it forks from one of trio's worker threads, and
a parent-death signal (bubblewrap's ``--die-with-parent``, ``PR_SET_PDEATHSIG``) fires
when the *thread* that forked the process exits.  Trio's idle worker threads exit after
10 s, which killed every sandboxed bot 10 s after the last launch.  The referee's own
thread lives as long as its bots, so "dies with the referee" means what it says.  The
fork and exec block the event loop for a few milliseconds per bot: bots start rarely.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import trio

__all__ = ["BotProcess"]


class BotProcess:
    """The subset of :class:`trio.Process` the arena uses: ``pid``, ``returncode``, the
    three pipe streams, ``wait`` and ``kill``."""

    def __init__(self, popen: subprocess.Popen[bytes], stdin: trio.lowlevel.FdStream,
                 stdout: trio.lowlevel.FdStream, stderr: trio.lowlevel.FdStream) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self._wait_lock = trio.Lock()
        self._pidfd = -1
        with contextlib.suppress(OSError, AttributeError):  # pidfd: Linux 5.3+
            self._pidfd = os.pidfd_open(popen.pid)

    @classmethod
    def spawn(
        cls,
        command: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        pass_fds: Sequence[int] = (),
        preexec_fn: Callable[[], None] | None = None,
    ) -> BotProcess:
        """Start ``command`` in a new session with pipes on stdin, stdout and stderr."""
        pipes: list[tuple[int, int]] = []
        try:
            for _ in range(3):
                pipes.append(os.pipe())
        except OSError:
            for pair in pipes:
                for fd in pair:
                    os.close(fd)
            raise
        (stdin_read, stdin_write), (stdout_read, stdout_write), (stderr_read, stderr_write) = pipes
        streams = [trio.lowlevel.FdStream(fd) for fd in (stdin_write, stdout_read, stderr_read)]
        try:
            popen = subprocess.Popen(
                list(command), stdin=stdin_read, stdout=stdout_write, stderr=stderr_write, cwd=cwd, env=dict(env),
                start_new_session=True, pass_fds=tuple(pass_fds), preexec_fn=preexec_fn,
            )
        except BaseException:
            for stream in streams:
                stream.close()
            raise
        finally:  # the child's ends: it has its own copies now
            for fd in (stdin_read, stdout_write, stderr_write):
                os.close(fd)
        return cls(popen, *streams)

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: killed by that signal); None while it runs."""
        code = self._popen.poll()
        if code is not None:
            self._close_pidfd()
        return code

    async def wait(self) -> int:
        """Wait for the process to exit (and reap it); its exit status."""
        async with self._wait_lock:
            if self._popen.poll() is None:
                if self._pidfd >= 0:
                    await trio.lowlevel.wait_readable(self._pidfd)
                else:
                    while self._popen.poll() is None:
                        await trio.sleep(0.01)
            code = self._popen.wait()
        self._close_pidfd()
        return code

    def kill(self) -> None:
        """Send SIGKILL (nothing if it has already exited)."""
        self._popen.send_signal(signal.SIGKILL)

    def _close_pidfd(self) -> None:
        if self._pidfd >= 0:
            with contextlib.suppress(RuntimeError):  # outside trio nobody can be waiting on it
                trio.lowlevel.notify_closing(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1
