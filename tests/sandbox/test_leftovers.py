"""An arena process leaves nothing in its temporary folder when it ends: no scratch space,
no ``/proc`` stand-ins (which every arena process used to leave until the next one swept
them away)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ARENA = [sys.executable, "-m", "arena.cli"]


@pytest.fixture
def own_tmp() -> Iterator[Path]:
    """A temporary folder of the arena's own, which the bots' users can traverse (they read
    the stand-ins bound from it)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-own-tmp-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_match_leaves_nothing_in_the_temporary_folder(own_tmp: Path) -> None:
    played = subprocess.run([*ARENA, "match", "-v", "scat", "-b", "random", "-b", "random", "--seed", "3"],
                            env={**os.environ, "TMPDIR": str(own_tmp)}, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert sorted(os.listdir(own_tmp)) == [], "left behind in TMPDIR"
