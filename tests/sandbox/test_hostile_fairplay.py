"""Hostile bots against fair play: channels between bots, the machine's load, thinking on
others' turns, and anything that could stop, hang or crash the referee.

Each attack was written to pass against the arena before the defence it tests existed
(it found the channel open, the referee hung or crashed), and fails now only if the
defence is lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hostile import Played, assert_clean, assert_nothing_left, bot_copy, needs, play, random_bot

from arena.sandbox import Sandbox


def refused(value: object) -> bool:
    """An attempt the bot reported as failed (an errno name, not "ok...")."""
    return isinstance(value, str) and not value.startswith("ok")


@pytest.fixture(scope="module")
def side_channels(box: Sandbox) -> Iterator[tuple[Played, dict[str, Any]]]:
    played = play(box, [random_bot(), bot_copy("side-channels"), random_bot()], reporters=[1])
    yield played, played.report(1)


def test_side_channel_prober_plays_on_without_fault(side_channels: tuple[Played, dict[str, Any]]) -> None:
    played, _ = side_channels
    assert_clean(played)
    assert_nothing_left(played)


@pytest.mark.parametrize("attempt", ["flock", "fcntl_lock", "ofd_lock", "lease", "inotify", "dnotify", "mincore"])
def test_no_lock_or_notification_on_a_shared_file(
    box: Sandbox, side_channels: tuple[Played, dict[str, Any]], attempt: str
) -> None:
    """Locking needs only read access: two bots locked and tested a file under /usr to
    read each other's hands (60 of 60 cards)."""
    needs(box, "seccomp")
    _, report = side_channels
    assert refused(report[attempt]), f"{attempt}: {report[attempt]}"


@pytest.mark.parametrize("attempt", ["clone_newuser", "clone_newnet"])
def test_no_new_namespace_through_a_raw_clone(
    box: Sandbox, side_channels: tuple[Played, dict[str, Any]], attempt: str
) -> None:
    needs(box, "seccomp")
    _, report = side_channels
    assert report[attempt] == "EPERM", report[attempt]


def test_threads_still_work_under_the_clone_filter(side_channels: tuple[Played, dict[str, Any]]) -> None:
    _, report = side_channels
    assert report["thread"] == "ok: 1 thread ran"


def test_cpu_affinity_cannot_be_widened(box: Sandbox, side_channels: tuple[Played, dict[str, Any]]) -> None:
    needs(box, "seccomp")
    _, report = side_channels
    assert report["affinity"] == "EPERM", report["affinity"]


@pytest.mark.parametrize("entry", ["pressure", "interrupts", "file_nr", "vmstat"])
def test_machine_wide_proc_files_are_empty(
    box: Sandbox, side_channels: tuple[Played, dict[str, Any]], entry: str
) -> None:
    needs(box, "bwrap")
    _, report = side_channels
    assert report[entry] in ("ok: ", "ENOENT"), f"/proc {entry} shows the machine: {report[entry]!r}"


def test_load_memory_and_uptime_are_steady_stand_ins(
    box: Sandbox, side_channels: tuple[Played, dict[str, Any]]
) -> None:
    needs(box, "bwrap")
    _, report = side_channels
    assert report["loadavg"] == "ok: 0.00 0.00 0.00 1/1 1\n"
    assert report["uptime"] == "ok: 0.00 0.00\n"
    assert report["stat"].startswith("ok: cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 0"), report["stat"]
    memory_kb = box.limits.memory_mb * 1024
    assert f"MemTotal: {memory_kb:>8} kB" in report["meminfo"], report["meminfo"]
    assert report["own_status"].startswith("ok: Name:"), "the bot's own /proc entries must stay readable"
