"""Hostile bots against the machine's resources: memory hogs, fork bombs, and children
that escape the bot's session to outlive it.

Each test skips when no layer that stops its attack is active, plays a real match
behind the probed sandbox, and checks what the attacker observed (its ``REPORT``), the
fault (none when the sandbox silently defeats the attack and the bot plays on), that the
other seats played on, and that no process of the bot is left.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import trio
from hostile import (
    alive,
    assert_clean,
    assert_fault,
    assert_nothing_left,
    bot_copy,
    cmdline,
    live_pids,
    needs,
    needs_any,
    play,
    random_bot,
)

from arena.referee import Bot, BotFault, TimeControl
from arena.sandbox import Limits, Sandbox

SMALL_MB = 512
ROOMY = TimeControl(move_ms=300, bank_ms=300, first_move_ms=15_000, startup_ms=5000)
"""For the memory team: its first decision waits for every child to hold its block or end."""


@pytest.fixture(scope="module")
def small_box(box: Sandbox) -> Sandbox:
    """The probed sandbox with a 512 MB memory limit (cheap to exceed)."""
    return trio.run(Sandbox.probe, Limits(memory_mb=SMALL_MB))


# ---------------------------------------------------------------------------------------
# Memory


def test_allocating_4_gb_fails_and_the_bot_plays_on(box: Sandbox) -> None:
    needs_any(box, "rlimits", "cgroup")
    limit_mb = box.limits.memory_mb
    played = play(box, [random_bot(), bot_copy("memory-hog"), random_bot()], reporters=[1])
    if not box.status["rlimits"].active:  # only the cgroup: the kernel kills the hog
        assert_fault(played, 1, "crash", detail="SIGKILL")
    else:  # the address-space limit refuses the memory: the bot sees MemoryError and carries on
        report = played.report(1)
        assert report["one_4gib_block"] == "MemoryError", report
        assert report["grow"] == "OSError errno 12", report  # ENOMEM
        assert report["grown_mb"] < limit_mb, f"grew to {report['grown_mb']} MB past the {limit_mb} MB limit"
        assert_clean(played)
    assert_nothing_left(played)


def test_children_together_cannot_exceed_the_memory_limit(small_box: Sandbox) -> None:
    """3 children of 200 MB each: every one is under the per-process address-space limit
    (512 MB), only the cgroup's limit on the whole tree (512 MB) stops them together."""
    needs(small_box, "cgroup")
    bot = bot_copy("memory-team", {"team.json": '{"children": 3, "block_mb": 200}'})
    played = play(small_box, [random_bot(), random_bot(), bot], reporters=[2], time_control=ROOMY)
    watch = played.watch(2)
    assert watch.memory_limits, "the bot's memory group was never sampled"
    assert watch.memory_limits == {SMALL_MB * 1024 * 1024}, f"the bot's memory limit changed: {watch.memory_limits}"
    faults = played.faults_of(2)
    if faults:  # the kernel may pick the bot itself: that is a crash, and still a defeat
        assert_fault(played, 2, "crash", detail="SIGKILL")
    else:
        report = played.report(2)
        assert report["alive_at_end"] < 3, (
            f"all children held their memory at once: {report}; the group's peak {watch.memory_peak >> 20} MiB, "
            f"its processes {sorted(watch.pids)}")
        assert "killed by SIGKILL" in report["ends"], f"no child was killed for memory: {report}"
        assert_clean(played)
    assert_nothing_left(played)


# ---------------------------------------------------------------------------------------
# Processes


def test_a_fork_bomb_is_capped_and_the_bot_plays_on(box: Sandbox) -> None:
    if not box.status["cgroup"].active and not (box.status["uid"].active and box.status["rlimits"].active):
        needs(box, "cgroup")  # skips, saying why (uid + rlimits, the other defence, is off too)
    cap = box.limits.processes
    played = play(box, [random_bot(), bot_copy("fork-bomb"), random_bot(), random_bot()], reporters=[1])
    report = played.report(1)
    assert report["failure"] == "EAGAIN", f"the fork loop did not hit a limit: {report}"
    assert report["forked"] < cap, f"forked {report['forked']} processes with a cap of {cap}"
    assert_clean(played)
    if box.status["cgroup"].active:
        assert played.watch(1).max_pids <= cap, f"{played.watch(1).max_pids} processes in the group at once"
        assert played.watch(1).max_pids >= report["forked"], "the children were not in the bot's group"
    assert_nothing_left(played)


def _escapees(bots: Sequence[Bot | BotFault]) -> list[tuple[int, str]]:
    """Live processes carrying an escapee token, seen from the host."""
    return [(pid, cmdline(pid)) for pid in live_pids() if "arena-escapee-" in cmdline(pid)]


def _escape_report(played: object) -> dict[str, object]:
    report = played.report(1)  # type: ignore[attr-defined]
    assert report["grandchild_sid"] != report["bot_sid"], f"the grandchild did not leave the session: {report}"
    assert isinstance(report["token"], str) and report["token"].startswith("arena-escapee-")
    return report  # type: ignore[no-any-return]


def test_a_grandchild_in_its_own_session_dies_with_the_bot_that_plays_on(box: Sandbox) -> None:
    needs_any(box, "cgroup-kill", "bwrap")
    played = play(box, [random_bot(), bot_copy("escapee"), random_bot()], reporters=[1], after_match=_escapees)
    report = _escape_report(played)
    token = report["token"]
    running = [pid for pid, line in played.extra["after_match"] if token in line]
    assert running, "the grandchild was not running at the end of the match: the attack did not happen"
    assert_clean(played)
    assert not [pid for pid in running if alive(pid)], f"the escaped grandchild {running} outlived the bot"
    assert_nothing_left(played)


def test_a_grandchild_in_its_own_session_dies_when_the_bot_exits(box: Sandbox) -> None:
    needs_any(box, "cgroup-kill", "bwrap")
    bot = bot_copy("escapee", {"exit-after": "1\n"})
    played = play(box, [random_bot(), bot, random_bot()], reporters=[1], after_match=_escapees)
    report = _escape_report(played)
    assert report["exit_after"] is True
    token = report["token"]
    assert_fault(played, 1, "crash", detail="exited with status 3")
    left = [pid for pid, line in played.extra["after_match"] if token in line]
    assert not left, f"the escaped grandchild outlived its bot's forfeit until the end of the match: {left}"
    assert_nothing_left(played)
