"""Hostile bots against the referee's clock and pipes: crashing, hanging, sleeping,
spinning, flooding stdout and stderr, closing stdout.

Each test plays a real match behind the probed sandbox and checks that the referee
survived, recorded the right fault (or none, when the bot carries on), that the other
seats played on, and that nothing of any bot was left behind.
"""

from __future__ import annotations

import os
import resource

from hostile import HURRY, assert_clean, assert_fault, assert_nothing_left, bot_copy, needs, play, random_bot

from arena.referee import STDERR_KEEP, Bot, TimeControl
from arena.sandbox import Sandbox

MB = 1024 * 1024
ROOMY = TimeControl(move_ms=300, bank_ms=300, first_move_ms=15_000, startup_ms=5000)
"""For the stderr flood: what is tested is that the referee drains it, not how fast."""


def test_crash_at_start_is_a_startup_fault_and_the_others_play_on(box: Sandbox) -> None:
    """No valid hello within startup_ms is a ``startup`` fault (docs/PROTOCOL.md), whatever
    the reason; the detail says the bot crashed, how, and its last words."""
    played = play(box, [bot_copy("crash-at-start"), random_bot(), random_bot()])
    fault = assert_fault(played, 0, "startup", detail="boom before hello")
    assert fault.decision == 0, "the bot died before the match, so before its first decision"
    assert fault.detail.startswith("crash before hello: exited with status 1"), fault.detail
    assert not isinstance(played.bots[0], Bot), "a bot that never said hello must not be seated"
    assert_nothing_left(played)


def test_never_answering_is_a_timeout(box: Sandbox) -> None:
    played = play(box, [random_bot(), bot_copy("never-answer"), random_bot()], time_control=HURRY, reporters=[1])
    assert played.report(1) == {"blocking": True}
    fault = assert_fault(played, 1, "timeout")
    assert fault.decision >= 1
    assert_nothing_left(played)


def test_sleeping_past_the_limit_is_a_timeout(box: Sandbox) -> None:
    played = play(box, [bot_copy("sleeper"), random_bot(), random_bot()], time_control=HURRY, reporters=[0])
    assert played.report(0) == {"sleeping_s": 30}
    assert_fault(played, 0, "timeout", detail="no answer within")
    assert played.result.duration_s < 10, "the referee waited for the sleeper instead of timing it out"
    assert_nothing_left(played)


def test_spinning_the_cpu_is_a_timeout_and_is_accounted(box: Sandbox) -> None:
    played = play(box, [random_bot(), random_bot(), bot_copy("spinner")], time_control=HURRY, reporters=[2])
    assert played.report(2) == {"spinning": True}
    assert_fault(played, 2, "timeout")
    if box.status["cgroup"].active:  # per-decision CPU accounting of the whole tree
        watch = played.watch(2)
        spent, own = watch.cpu_ns / 1e9, watch.own_cpu_ns / 1e9
        assert own >= 0.05, f"the spinner used only {own:.2f} s of CPU: it did not spin"
        tick = 1 / os.sysconf("SC_CLK_TCK")  # the granularity of the per-process count
        assert spent >= own - 2 * tick, f"its group accounted {spent:.2f} s of CPU, its processes used {own:.2f} s"
        # the match record: the CPU of each decision, from the same counter
        timing = played.result.timings[2]
        assert timing.decisions == 1 and timing.max_cpu_s == timing.cpu_s, timing
        assert 0.02 <= timing.cpu_s <= spent + 2 * tick, f"{timing.cpu_s:.3f} s for a spinning decision: {timing}"
        for seat in (0, 1):
            others = played.result.timings[seat]
            assert 0 < others.max_cpu_s <= others.cpu_s <= played.watch(seat).cpu_ns / 1e9 + tick, others
    assert_nothing_left(played)


def test_a_100_mb_line_on_stdout_is_oversized(box: Sandbox) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    played = play(box, [random_bot(), bot_copy("stdout-flood"), random_bot()], reporters=[1])
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    report = played.report(1)
    assert report["flooding_mb"] == 100
    assert report["finished"] is False, "the referee read the whole 100 MB line"
    assert_fault(played, 1, "oversized", detail="65536")
    assert grown_mb < 50, f"the referee's peak memory grew by {grown_mb:.0f} MB reading the line"
    assert_nothing_left(played)


def test_a_200_mb_stderr_flood_is_drained_and_dropped(box: Sandbox) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    played = play(box, [bot_copy("stderr-flood"), random_bot(), random_bot()], reporters=[0], time_control=ROOMY)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    report = played.report(0)
    assert report["flooded_mb"] == 200
    assert_clean(played)  # the flood is the bot's own business: it answered in time
    assert played.stderr_bytes[0] >= 200 * MB, "the referee stopped draining the bot's stderr"
    bot = played.bots[0]
    assert isinstance(bot, Bot)
    assert len(bot.stderr_tail) <= 2 * STDERR_KEEP + 65536, "the referee kept more than the tail of stderr"
    assert grown_mb < 50, f"the referee's peak memory grew by {grown_mb:.0f} MB draining stderr"
    assert_nothing_left(played)


def test_closing_stdout_is_closed_stdout(box: Sandbox) -> None:
    """A bot that closes its stdout but keeps running must be recorded as closed_stdout
    (at once, not after its whole time allowance).  See also
    test_hostile_layers.py::test_closing_stdout_is_closed_stdout_without_bwrap."""
    played = play(box, [random_bot(), random_bot(), random_bot(), bot_copy("close-stdout")], reporters=[3],
                  time_control=HURRY)
    assert played.report(3) == {"closed_stdout": True}
    assert_fault(played, 3, "closed_stdout")
    assert_nothing_left(played)


# ---------------------------------------------------------------------------------------
# A bot author's mistakes get answers that say what to do


def test_a_segfault_is_named(box: Sandbox) -> None:
    played = play(box, [bot_copy("segfault"), random_bot(), random_bot()])
    fault = assert_fault(played, 0, "crash")
    assert "SIGSEGV" in fault.detail, fault.detail
    assert_nothing_left(played)


def test_a_reply_without_its_newline_times_out_with_a_hint(box: Sandbox) -> None:
    """The referee sees no whole line, so nothing arrives; the bot used no CPU meanwhile, so
    the fault says it was waiting, and why that usually happens."""
    needs(box, "cgroup")
    played = play(box, [random_bot(), bot_copy("no-newline"), random_bot()], time_control=HURRY)
    fault = assert_fault(played, 1, "timeout", detail="waiting, not thinking")
    assert "without a newline, or without flushing" in fault.detail
    assert_nothing_left(played)


def test_a_command_that_cannot_run_is_a_startup_fault_in_one_line(box: Sandbox) -> None:
    played = play(box, [bot_copy("bad-shebang"), random_bot(), random_bot()])
    fault = assert_fault(played, 0, "startup")
    assert "cannot run" in fault.detail and "Traceback" not in fault.detail, fault.detail
    assert_nothing_left(played)
