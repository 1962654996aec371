"""A pool of unprivileged users, one per running bot.

The users ``arena-bot-0``, ``arena-bot-1`` ... are system accounts created once by
``scripts/setup-sandbox`` (as root).  A bot launched as its own uid cannot read
root-only files, signal the referee or another bot, and RLIMIT_NPROC applies to it.
Leases are ``flock`` locks on files in one folder per machine (:data:`LOCK_DIR`), so every
referee process on the machine shares the pool safely, whatever its ``TMPDIR``: two arenas
that reserved users in folders of their own (systemd's ``PrivateTmp``, a cluster job's
``TMPDIR``) both took the first users, and since killing a bot kills every process of its
user, one killed the other's bots.
"""

from __future__ import annotations

import fcntl
import os
import pwd
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LOCK_DIR", "PREFIX", "Lease", "UidPool"]

PREFIX = "arena-bot-"
LOCK_DIR = Path("/run/arena-bot-users")
"""The machine's one folder of lease locks: ``/run`` is the machine's own (never a private
or per-job temporary folder) and root-only to write.  A lock file left by a process that is
gone holds nothing: the kernel drops a ``flock`` with its last descriptor."""


@dataclass
class Lease:
    """One user of the pool, held until :meth:`release`."""

    uid: int
    gid: int
    _fd: int

    def release(self) -> None:
        """Give the user back to the pool."""
        if self._fd >= 0:
            os.close(self._fd)  # closing drops the flock
            self._fd = -1


class UidPool:
    """The ``arena-bot-N`` users of this machine."""

    def __init__(self, lock_dir: Path | None = None) -> None:
        self.users = sorted(
            ((p.pw_uid, p.pw_gid) for p in pwd.getpwall() if p.pw_name.startswith(PREFIX) and p.pw_uid != 0),
        )
        self.lock_dir = lock_dir or LOCK_DIR

    def __len__(self) -> int:
        return len(self.users)

    def acquire(self) -> Lease:
        """A free user; RuntimeError when all are in use."""
        self.lock_dir.mkdir(mode=0o700, exist_ok=True)
        for uid, gid in self.users:
            fd = os.open(self.lock_dir / f"{uid}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return Lease(uid, gid, fd)
        raise RuntimeError(
            f"all {len(self.users)} sandbox users are in use; create more with scripts/setup-sandbox"
        )
