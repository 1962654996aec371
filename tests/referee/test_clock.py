"""Clocks stay fair on a busy machine: on the CPU clock (the default) a bot is charged the
CPU its processes used, so a bot that thinks for 80% of its time never times out however
loaded the machine is; on the wall clock the same bot times out there."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
import trio
from faulty import play

from arena.referee import Clock, FaultKind, TimeControl
from arena.sandbox import Sandbox

pytestmark = pytest.mark.alone  # measures time or CPU shares: run with the machine to itself

MOVE_MS = 40
LOAD_PER_CORE = 2
"""Spinning processes per core: the thinker gets well under half a core."""


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    """Every layer this machine offers; the test needs the one that counts a bot's CPU."""
    box = trio.run(Sandbox.probe)
    if "cgroup" not in box.active:
        pytest.skip("this machine cannot count a bot's CPU (no cgroup layer: see `arena doctor`)")
    return box


@pytest.fixture
def loaded() -> Iterator[None]:
    """Every core busy with spinning processes, as in a tournament on every core."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(LOAD_PER_CORE * (os.cpu_count() or 1))]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def clock(kind: Clock) -> TimeControl:
    """No bank: every decision but a bot's first (which may load its code) must fit in ``MOVE_MS``."""
    return TimeControl(move_ms=MOVE_MS, bank_ms=0, first_move_ms=2000, startup_ms=10_000, clock=kind)


def test_a_bot_thinking_80_percent_never_times_out_on_the_cpu_clock(sandbox: Sandbox, loaded: None) -> None:
    played = play(["thinker", "random"], time_control=clock(Clock.CPU), options={"lives": 2},
                  sandbox=sandbox)
    thinker = played.result.timings[0]
    assert played.result.faults == []
    assert thinker.decisions >= 5
    assert thinker.cpu_s / thinker.decisions >= 0.7 * MOVE_MS / 1000  # it did think
    assert thinker.total_s > thinker.cpu_s * 1.3  # and the load slowed it on the wall clock


def test_on_the_wall_clock_the_same_bot_times_out_under_load(sandbox: Sandbox, loaded: None) -> None:
    played = play(["thinker", "random"], time_control=clock(Clock.WALL), options={"lives": 2},
                  sandbox=sandbox)
    assert (0, FaultKind.TIMEOUT) in [(f.seat, f.kind) for f in played.result.faults]
