"""One pool of bot users per machine, whatever each arena's ``TMPDIR``.

Two arena processes that kept their leases in folders of their own (systemd's
``PrivateTmp``, a cluster job's ``TMPDIR``) both took the first free user; killing a bot
kills every process of its user, so one arena killed the other's bots (a crash fault
charged to an innocent bot was seen during a Dask run beside another arena).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox.uids import UidPool

HOLD = """
import sys
from arena.sandbox.uids import UidPool
lease = UidPool().acquire()
print(lease.uid, flush=True)
sys.stdin.read()
"""
"""An arena's share of the pool: it takes a user and holds it until its input closes."""


def test_two_arenas_with_different_temporary_folders_never_share_a_bot_user(tmp_path: Path) -> None:
    if os.geteuid() != 0 or len(UidPool()) < 2:
        pytest.skip("needs root and the bot users of scripts/setup-sandbox")
    arenas: list[subprocess.Popen[str]] = []
    users = []
    try:
        for name in ("first", "second"):
            own_tmp = tmp_path / name
            own_tmp.mkdir()
            arena = subprocess.Popen([sys.executable, "-c", HOLD], env={**os.environ, "TMPDIR": str(own_tmp)},
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            arenas.append(arena)
            assert arena.stdout is not None
            users.append(int(arena.stdout.readline()))  # the first holds its user while the second asks
    finally:
        for arena in arenas:
            arena.communicate()
    assert users[0] != users[1], f"both arenas were given bot user {users[0]}"
