"""Hostile bots against fair play: channels between bots, the machine's load, thinking on
others' turns, and anything that could stop, hang or crash the referee.

Each attack was written to pass against the arena before the defence it tests existed
(it found the channel open, the referee hung or crashed), and fails now only if the
defence is lost.
"""

from __future__ import annotations

import contextlib
import os
import statistics
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile import Played, assert_clean, assert_fault, assert_nothing_left, bot_copy, needs, play, random_bot

from arena.referee import Bot, BotFault, FaultPolicy, TimeControl
from arena.sandbox import Sandbox

pytestmark = pytest.mark.alone  # measures time or CPU shares: run with the machine to itself

CHECKOUT = Path(__file__).resolve().parents[2]
PATIENT = TimeControl(move_ms=500, bank_ms=1000, first_move_ms=2000, startup_ms=5000)


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


@pytest.mark.parametrize("attempt", ["flock", "fcntl_lock", "ofd_lock", "ofd_lock_high_bit", "lease", "inotify",
                                     "dnotify", "mincore"])
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


def test_no_robust_futex_list_for_the_kernel_to_wake_at_exit(box: Sandbox,
                                                            side_channels: tuple[Played, dict[str, Any]]) -> None:
    """At a thread's exit the kernel wakes the futexes its robust list names, shared ones
    too, whatever the filter refuses of ``futex``: a list pointing into a shared file woke
    another bot's waiter there.  ``set_robust_list`` answers ENOSYS (threads still run)."""
    needs(box, "seccomp")
    _, report = side_channels
    assert report["robust_list"] == "ENOSYS", report["robust_list"]


@pytest.mark.parametrize(("attempt", "answer"), [
    ("futex_shared_wait", "EAGAIN"),  # no shared wait sleeps: a thread's exit could wake it
    ("futex_private_wait", "ETIMEDOUT"),  # a private one sleeps as always
    ("futex_shared_wake", "ok: 0"),  # woke no one, which is true
    ("futex_waitv", "ENOSYS"), ("futex_wait", "ENOSYS"),
])
def test_no_shared_futex_wait_sleeps(box: Sandbox, side_channels: tuple[Played, dict[str, Any]], attempt: str,
                                     answer: str) -> None:
    """A futex on a shared file's page is keyed by the file: a waiter there was woken by
    another bot's thread exiting with its ``clear_child_tid`` there."""
    needs(box, "seccomp")
    _, report = side_channels
    assert report[attempt] == answer, report[attempt]


@pytest.mark.parametrize("attempt", ["memfd_secret", "statmount", "listmount"])
def test_kernel_interfaces_no_bot_needs_answer_enosys(box: Sandbox, side_channels: tuple[Played, dict[str, Any]],
                                                     attempt: str) -> None:
    """``memfd_secret`` takes memory out of the kernel's own map (splitting that map can
    slow the whole machine); ``statmount`` and ``listmount`` give mount ids, numbered by
    one counter for the machine, so a bot could tell how many sandboxes started before it."""
    needs(box, "seccomp")
    _, report = side_channels
    assert report[attempt] == "ENOSYS", report[attempt]


@pytest.mark.parametrize("attempt", ["statx_mount_id", "handle_mount_id"])
def test_the_unique_mount_ids_are_not_given_by_other_calls(box: Sandbox, side_channels: tuple[Played, dict[str, Any]],
                                                           attempt: str) -> None:
    """``statx`` (``STATX_MNT_ID_UNIQUE``) and ``name_to_handle_at`` (``AT_HANDLE_MNT_ID_UNIQUE``)
    gave the same counted mount ids as ``statmount``."""
    needs(box, "seccomp")
    _, report = side_channels
    assert report[attempt] == "EPERM", report[attempt]


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


@pytest.mark.parametrize("entry", ["own_smaps", "own_smaps_rollup", "own_numa_maps", "own_pagemap", "own_fdinfo",
                                   "thread_smaps", "task_smaps"])
def test_a_bots_own_proc_files_do_not_count_who_else_maps_its_pages(
    box: Sandbox, side_channels: tuple[Played, dict[str, Any]], entry: str
) -> None:
    """``pagemap`` (``PM_MMAP_EXCLUSIVE``), ``smaps`` and the like say whether another
    process maps a page too: two bots mapping pages of the standard library passed a hand
    through that (``rt-mapcount-colluder``); ``fdinfo`` shows machine-wide eventfd ids
    (``rt-eventfd-colluder``).  Landlock refuses them, while ``status`` and ``maps`` stay."""
    needs(box, "landlock")
    _, report = side_channels
    assert refused(report[entry]), f"{entry}: {report[entry]}"
    assert report["own_maps"].startswith("ok: "), report["own_maps"]


PAGE_CACHE = ["fadvise_dontneed", "fadvise_willneed", "readahead", "cachestat", "preadv2_nowait",
              "pwritev2_nowait", "madvise_cold", "madvise_pageout", "madvise_willneed", "madvise_remove",
              "madvise_populate_read", "process_madvise_pageout", "process_madvise_willneed",
              "madvise_pageout_high_bit", "madvise_willneed_high_bit"]


@pytest.mark.parametrize("attempt", PAGE_CACHE)
def test_no_page_cache_eviction_hint_or_residency_probe(
    box: Sandbox, side_channels: tuple[Played, dict[str, Any]], attempt: str
) -> None:
    """A sender evicted pages of a file under /usr (``posix_fadvise``) and its partner probed
    them (``preadv2`` with ``RWF_NOWAIT``): 552 of 552 bits across two sandboxes, and one bot
    could keep a deck across the process generations of a duplicate deal the same way."""
    needs(box, "seccomp")
    _, report = side_channels
    refusal = "ENOSYS" if attempt.startswith("process_madvise") else "EPERM"  # no pidfd to give the advice through
    assert report[attempt] == refusal, f"{attempt}: {report[attempt]}"
    assert report["plain_read"] == "ok: 1", "reading a shared file must still work"


@pytest.mark.parametrize("attempt", ["sysinfo", "statfs", "fstatfs"])
def test_no_machine_counters_outside_proc(
    box: Sandbox, side_channels: tuple[Played, dict[str, Any]], attempt: str
) -> None:
    """``sysinfo`` showed the real load, process count and shared memory (a channel at 10
    bits/s through ``sharedram``), ``statfs`` the host disk's free space."""
    needs(box, "seccomp")
    _, report = side_channels
    assert report[attempt] == "EPERM", f"{attempt}: {report[attempt]}"


@pytest.mark.parametrize("entry", ["init_cmdline", "environment"])
def test_no_host_path_is_visible_inside_the_sandbox(
    box: Sandbox, side_channels: tuple[Played, dict[str, Any]], entry: str
) -> None:
    """bubblewrap's command line (``/proc/1/cmdline``) named the checkout's folder and the
    referee's pid (in its scratch folder's name).  Under Landlock a bot reads no other
    process's folder at all."""
    needs(box, "bwrap")
    _, report = side_channels
    seen = report[entry]
    hidden = entry == "init_cmdline" and "landlock" in box.active and seen == "EACCES"
    assert seen.startswith("ok") or hidden, seen
    assert str(CHECKOUT) not in seen, f"{entry} shows the checkout's folder: {seen!r}"
    assert f"-{os.getpid()}-" not in seen, f"{entry} shows the referee's pid: {seen!r}"


# ---------------------------------------------------------------------------------------
# Thinking on others' turns


@contextlib.contextmanager
def bots_on_one_core() -> Iterator[Callable[[list[Bot | BotFault]], None]]:
    """Yields a ``before_match`` callback that moves every started bot, each of its threads,
    to one CPU (as a tournament worker runs a table), while the test's referee and its
    watcher run on the others; where the machine has one CPU, everything shares it.

    With a CPU to spare, it also gives the bots the scheduler's highest priority (nice -20,
    for the bot's session group as well: the kernel shares a core between sessions first),
    so that other work on the machine takes next to nothing of their core: these tests measure how the
    bots share it among themselves, and a CI machine may be busy with anything."""
    before = os.sched_getaffinity(0)
    cores = sorted(before)
    bots_core, rest = cores[-1], set(cores[:-1]) or {cores[-1]}

    def pin(bots: list[Bot | BotFault]) -> None:
        for bot in bots:
            if isinstance(bot, Bot) and bot.sandboxed.cgroup is not None:
                for pid in bot.sandboxed.cgroup.pids():
                    if bots_core not in rest:  # with one CPU, the referee must not wait behind them
                        with contextlib.suppress(OSError):  # no session groups here, or not root
                            Path(f"/proc/{pid}/autogroup").write_text("-20")
                    for thread in os.listdir(f"/proc/{pid}/task"):
                        with contextlib.suppress(OSError):  # a thread that has just ended
                            os.sched_setaffinity(int(thread), {bots_core})
                            if bots_core not in rest:
                                os.setpriority(os.PRIO_PROCESS, int(thread), -20)

    os.sched_setaffinity(0, rest)
    try:
        yield pin
    finally:
        os.sched_setaffinity(0, before)


def test_a_bot_spinning_between_its_turns_is_frozen(box: Sandbox) -> None:
    """A bot answers at once but keeps a thread spinning: on a shared core, the honest bot
    whose turn it is then had the CPU for about half its thinking time.  Caught at its next
    reply and frozen between its turns from then on, the spinner gets (almost) no CPU, and
    the honest bot keeps the core."""
    needs(box, "freeze", "cgroup")
    with bots_on_one_core() as pin:
        played = play(box, [bot_copy("cpu-meter"), bot_copy("offturn-spinner")], time_control=PATIENT,
                      reporters=[0], before_match=pin)
    assert_clean(played)
    shares = played.report(0)["shares"]
    honest, spinner = played.result.timings
    # about 0.5 when the spinner is not frozen; benchmarks/ipc.py measures it on a quiet machine
    assert statistics.median(shares) >= 0.9, f"the honest bot had the CPU for {statistics.median(shares):.2f} " \
        "of its thinking time"
    # its CPU (accounted from reply to reply) fits in its own turns, but for the one interval
    # (the costliest decision) in which it was first caught spinning
    off_turn = spinner.cpu_s - spinner.max_cpu_s
    assert off_turn <= 1.1 * spinner.total_s + 0.01, (
        f"the spinner used {spinner.cpu_s:.3f} s of CPU in turns that took {spinner.total_s:.3f} s")
    assert honest.cpu_s > 0.5 * honest.total_s
    assert_nothing_left(played)


def test_a_bot_thinking_between_its_turns_is_frozen_even_if_it_idles_on_its_own(box: Sandbox) -> None:
    """The referee compared the CPU a bot used since its last reply with the wall time of
    its current decision: a bot that spun 10 ms on the others' turns after every reply, then
    slept as long on its own turn before answering, was never frozen and took the CPU from
    the bots whose turn it was all match long.  Its counter is read before each request now;
    bots that only wait are never frozen."""
    needs(box, "freeze", "cgroup")
    played = play(box, [bot_copy("napper"), bot_copy("hidden-ponderer"), bot_copy("napper")],
                  time_control=PATIENT, reporters=[1])
    assert_clean(played)
    off_turn = played.report(1)["off_turn_ms"]
    thought = [ms for ms in off_turn if ms > 2]  # CPU it had used on others' turns when its request came
    assert thought, f"the ponderer never got to think on others' turns here: {off_turn}"
    nappers, ponderer = [played.bots[0], played.bots[2]], played.bots[1]
    assert all(isinstance(b, Bot) and not b.caught for b in nappers), "a bot that only waits was frozen"
    assert isinstance(ponderer, Bot) and ponderer.freezes
    assert ponderer.caught, (
        f"never frozen, though it used more than 1 ms of CPU between its reply and its next request "
        f"{len(thought)} times (up to {max(thought):.1f} ms)")
    assert_nothing_left(played)


def test_pondering_is_charged_to_the_bots_clock(box: Sandbox) -> None:
    """With ``ponder`` the spinner is not frozen, but the CPU it takes between its turns
    (here all of the core while the two others wait 20 ms each) counts as its own thinking
    time: past its 25 ms a move and its bank, it times out; the others, who use 20 ms a move
    on their turns only, never do."""
    needs(box, "cgroup")
    pondering = TimeControl(move_ms=25, bank_ms=100, first_move_ms=500, startup_ms=5000, ponder=True)
    with bots_on_one_core() as pin:
        played = play(box, [bot_copy("napper"), bot_copy("offturn-spinner"), bot_copy("napper")],
                      time_control=pondering, before_match=pin)
    fault = assert_fault(played, 1, "timeout", detail="on others' turns")
    assert fault.decision > 1
    assert_nothing_left(played)


def test_a_minimum_turn_time_hides_how_long_each_bot_thought(box: Sandbox) -> None:
    """A colluder can signal its partner through how long it takes to answer (the partner
    reads the clock when it next runs).  With ``min_turn_ms`` every turn takes the same time
    for the others: quick and slow answers alike are held to it."""
    held = TimeControl(move_ms=500, bank_ms=500, first_move_ms=1000, startup_ms=5000, min_turn_ms=40)
    played = play(box, [bot_copy("napper"), random_bot()], time_control=held)
    assert_clean(played)
    result = played.result
    napper, quick = result.timings
    assert quick.total_s < 0.01 * quick.decisions < napper.total_s  # one answered at once, one took 20 ms
    assert result.duration_s >= 0.04 * result.decisions  # every turn, quick or slow, took 40 ms
    assert_nothing_left(played)


# ---------------------------------------------------------------------------------------
# Stopping the referee


def test_a_deeply_nested_hello_is_a_startup_fault(box: Sandbox) -> None:
    played = play(box, [bot_copy("nested-hello"), random_bot(), random_bot()])
    fault = assert_fault(played, 0, "startup", detail="malformed before hello")
    assert "RecursionError" in fault.detail
    assert_nothing_left(played)


def test_a_bot_that_stops_reading_cannot_hang_the_referee(box: Sandbox) -> None:
    """Under the substitute policy the deaf bot is asked again and again; once its shrunk
    input pipe is full the referee's write would wait for ever.  It has the decision's time
    instead, and a bot that does not read is out whatever the policy."""
    hurried = TimeControl(move_ms=100, bank_ms=0, first_move_ms=100, startup_ms=5000)
    played = play(box, [random_bot(), bot_copy("deaf"), random_bot()], time_control=hurried,
                  policy=FaultPolicy("substitute", strikes=1000))
    result = played.result
    kinds = [(f.kind, f.penalty) for f in result.faults]
    assert all(f.seat == 1 for f in result.faults), result.faults
    assert kinds[-1] == ("timeout", "disqualified"), kinds
    assert "left its input unread" in result.faults[-1].detail
    assert result.duration_s < 20
    assert result.log[-1]["event"] == "match_end"
    assert_nothing_left(played)


def test_a_bot_filling_its_scratch_space_gets_enospc_and_leaves_nothing(box: Sandbox) -> None:
    """A bot wrote 4.3 GB to its scratch folder in 8 s with no error, 400,000 files took the
    referee's event loop 4.6 s to remove, and a 3,000-deep folder broke every later run's
    sweep.  Its scratch space is now a tmpfs with a size and a file quota: it is refused
    past them, and its removal takes no time whatever it holds."""
    needs(box, "quota")
    roomy = TimeControl(move_ms=1000, bank_ms=1000, first_move_ms=60_000, startup_ms=5000)
    played = play(box, [bot_copy("filler"), random_bot()], time_control=roomy, reporters=[0])
    report = played.report(0)
    limits = box.limits
    assert report["bytes_stop"] == "ENOSPC" and report["bytes_mb"] <= limits.scratch_mb, report
    assert report["files_stop"] == "ENOSPC" and report["files"] <= limits.scratch_files, report
    assert report["depth"] == 3000 and report["deep_stop"] == "none", report
    assert_clean(played)
    assert_nothing_left(played)
