"""Clocks stay fair on a busy machine: on the CPU clock (the default) a bot is charged the
CPU its processes used, so a bot that thinks for 80% of its time never times out however
loaded the machine is; on the wall clock the same bot times out there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from faulty import play

from arena.referee import Clock, FaultKind, FaultPolicy, TimeControl
from arena.referee.session import WALL_CAP, WALL_GRACE_S
from arena.sandbox import Sandbox

pytestmark = pytest.mark.alone  # measures time or CPU shares: run with the machine to itself

MOVE_MS = 40
LOAD_PER_CORE = 2
"""Other tables per core: the thinker gets about a third of a core."""


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    """Every layer this machine offers; the test needs the one that counts a bot's CPU."""
    box = trio.run(Sandbox.probe)
    if "cgroup" not in box.active:
        pytest.skip("this machine cannot count a bot's CPU (no cgroup layer: see `arena doctor`)")
    return box


@pytest.fixture
def loaded() -> Iterator[None]:
    """Every core busy with other tables, as in a tournament on every core: matches between
    thinking bots, each bot in its own sandbox and control group (the kernel shares a core
    between control groups first, so spinning processes of the test's own would weigh as
    one)."""
    thinker = Path(__file__).resolve().parent / "bots" / "thinker"
    tables = [subprocess.Popen([sys.executable, "-m", "arena.cli", "match", "-v", "scat", "-b", str(thinker),
                                "-b", str(thinker), "--move-ms", "1000", "-o", "lives=50", "--seed", str(n)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
              for n in range(LOAD_PER_CORE * (os.cpu_count() or 1))]
    try:
        time.sleep(2)  # their bots started and thinking
        yield
    finally:
        for table in tables:
            table.send_signal(signal.SIGINT)  # as Ctrl+C: the match ends and its bots are killed
        for table in tables:
            try:
                table.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(table.pid, signal.SIGKILL)
                table.wait()


def clock(kind: Clock) -> TimeControl:
    """No bank: every decision but a bot's first (which may load its code) must fit in ``MOVE_MS``."""
    return TimeControl(move_ms=MOVE_MS, bank_ms=0, first_move_ms=2000, startup_ms=10_000, clock=kind)


def test_a_bot_thinking_80_percent_never_times_out_on_the_cpu_clock(sandbox: Sandbox, loaded: None) -> None:
    """The CPU clock charges at least a third of a decision's wall time past a grace
    (waiting is not free: ``session.cpu_charge``), which the thinker's 32 ms in a 40 ms move
    reaches below about a seventh of a core.  This test's own load leaves it about a third;
    where the machine was busier still (CI beside two spinners per core), a timeout with
    less than 1.5 times that floor is the floor at work, not a fault of the clock: skipped,
    saying so.  A timeout with more is a failure."""
    played = play(["thinker", "random"], time_control=clock(Clock.CPU), options={"lives": 2},
                  sandbox=sandbox)
    thinker = played.result.timings[0]
    share = thinker.cpu_s / thinker.total_s if thinker.total_s else 1.0
    floor = 0.8 * MOVE_MS / 1000 / (WALL_GRACE_S + WALL_CAP * MOVE_MS / 1000)
    if played.result.faults and share < 1.5 * floor:
        pytest.skip(f"the machine gave the thinker {share:.2f} of a core, under 1.5 times the {floor:.2f} where the "
                    "CPU clock's charge for waiting begins: busier than this test's own load")
    assert played.result.faults == [], f"timed out with {share:.2f} of a core"
    assert thinker.decisions >= 5
    assert thinker.cpu_s / thinker.decisions >= 0.7 * MOVE_MS / 1000  # it did think
    assert thinker.total_s > thinker.cpu_s * 1.1  # and the load slowed it on the wall clock


def test_on_the_wall_clock_the_same_bot_times_out_under_load(sandbox: Sandbox, loaded: None) -> None:
    """Under more load than the test's own (CI on a saturated machine) the random bot may
    time out on the wall clock too, and first: a timeout is answered with a random action,
    not a forfeit, so the match goes on until the thinker's own turn comes."""
    played = play(["thinker", "random"], time_control=clock(Clock.WALL), options={"lives": 2},
                  policy=FaultPolicy(mode="substitute", strikes=1000), sandbox=sandbox)
    assert (0, FaultKind.TIMEOUT) in [(f.seat, f.kind) for f in played.result.faults]


def test_on_the_cpu_clock_waiting_is_not_free(sandbox: Sandbox) -> None:
    """A bot that sleeps 0.4 s a decision uses no CPU, but is charged a third of its wall
    time past the 0.1 s grace (0.1 s): 60 ms over its 40 ms move each time, until its
    0.3 s bank is gone and it times out, rather than stretching the match at no cost."""
    control = TimeControl(move_ms=MOVE_MS, bank_ms=300, first_move_ms=2000, startup_ms=10_000, clock=Clock.CPU)
    played = play(["dozer", "random"], time_control=control, options={"lives": 5}, sandbox=sandbox)
    [fault] = [f for f in played.result.faults if f.seat == 0]
    assert fault.kind == FaultKind.TIMEOUT
    assert 4 <= played.result.timings[0].decisions <= 8  # the first is free (first_move_ms), then ~5 more
