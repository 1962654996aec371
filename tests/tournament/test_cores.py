"""A single-thread Dask worker's claim on a core (arena.tournament.cores), each claim made
by a process of its own: a claim pins the process that makes it."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLAIM = ("import os; from arena.tournament.cores import claim_core; "
         "print(claim_core(), ','.join(map(str, sorted(os.sched_getaffinity(0)))))")


def _claim(locks: str) -> tuple[str, str]:
    """(the core claimed, the process's CPUs after) of a fresh process."""
    done = subprocess.run([sys.executable, "-c", CLAIM], capture_output=True, text=True, check=True,
                          env={**os.environ, "ARENA_CORE_LOCKS": locks})
    core, cpus = done.stdout.split()
    return core, cpus


def test_a_worker_takes_the_first_core_no_one_holds_and_runs_on_it_alone(tmp_path: Path) -> None:
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        pytest.skip("one CPU")
    held = os.open(tmp_path / f"{cores[0]}.lock", os.O_CREAT | os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        assert _claim(str(tmp_path)) == (str(cores[1]), str(cores[1]))
    finally:
        os.close(held)
    assert _claim(str(tmp_path)) == (str(cores[0]), str(cores[0])), "a claim outlived its process"


def test_claims_turned_off_or_a_planted_link_pin_nothing(tmp_path: Path) -> None:
    every = ",".join(map(str, sorted(os.sched_getaffinity(0))))
    assert _claim("off") == ("None", every)
    target = tmp_path / "elsewhere"
    target.write_text("kept")
    for core in os.sched_getaffinity(0):
        (tmp_path / f"{core}.lock").symlink_to(target)
    assert _claim(str(tmp_path)) == ("None", every)
    assert target.read_text() == "kept"
