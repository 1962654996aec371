"""Each layer alone stops what it claims to stop.

Behind the fully probed sandbox several layers stop most attacks at once, which would
hide a layer that no longer works.  These tests switch layers off on a copy of the
probed sandbox (:func:`hostile.only`; they skip when a layer they keep is not active
here) and replay the attacks that layer is meant to stop on its own.  Only combinations
safe for the machine are played: nothing here runs a fork bomb, a signaller or a memory
hog as root without a layer that contains it.
"""

from __future__ import annotations

import copy
import json
import os
import signal
from collections.abc import Sequence
from pathlib import Path

import pytest
from hostile import (
    HURRY,
    Played,
    Servers,
    alive,
    assert_clean,
    assert_fault,
    assert_nothing_left,
    bot_copy,
    cmdline,
    inside,
    live_pids,
    only,
    play,
    processes_with,
    random_bot,
    tell,
    wait_reaped,
)

from arena.referee import Bot, BotFault
from arena.sandbox import Sandbox
from arena.sandbox.uids import UidPool

BASE = ("rlimits", "session")


def _escapees(bots: Sequence[Bot | BotFault]) -> list[int]:
    return [pid for pid in live_pids() if "arena-escapee-" in cmdline(pid)]


def _escape_and_exit(box: Sandbox) -> Played:
    played = play(box, [random_bot(), bot_copy("escapee", {"exit-after": "1\n"}), random_bot()], reporters=[1],
                  after_match=_escapees)
    report = played.report(1)
    token = report["token"]
    try:
        assert report["grandchild_sid"] != report["bot_sid"], report
        assert_fault(played, 1, "crash", detail="exited with status 3")
        left = [pid for pid in played.extra["after_match"] if token in cmdline(pid)]
        assert not left, f"the escaped grandchild {left} outlived its bot's forfeit"
        assert_nothing_left(played)
    finally:
        for pid in processes_with(token):  # the escapee of a failed test
            os.kill(pid, signal.SIGKILL)
    return played


def test_cgroup_kill_alone_kills_an_escaped_grandchild(box: Sandbox) -> None:
    """No pid namespace: only ``cgroup.kill`` reaches a child that left the session."""
    _escape_and_exit(only(box, *BASE, "uid", "cgroup-kill"))


def test_bwrap_alone_kills_an_escaped_grandchild(box: Sandbox) -> None:
    """No control groups: the pid namespace dies with its first process."""
    _escape_and_exit(only(box, *BASE, "uid", "bwrap"))


def _fork_bomb(box: Sandbox) -> Played:
    played = play(box, [random_bot(), bot_copy("fork-bomb"), random_bot()], reporters=[1])
    try:
        report = played.report(1)
        assert report["failure"] == "EAGAIN", report
        assert report["forked"] < box.limits.processes, report
        assert_clean(played)
        assert_nothing_left(played)
    finally:  # see test_a_fork_bomb_does_not_keep_the_next_bot_of_its_user_from_starting
        uid = played.watch(1).uid
        if uid is not None:
            wait_reaped(uid)
    return played


def test_cgroup_pids_alone_caps_a_fork_bomb(box: Sandbox) -> None:
    """Without its own user the bot has no RLIMIT_NPROC: only ``pids.max`` caps it."""
    _fork_bomb(only(box, *BASE, "cgroup"))


def test_uid_and_rlimit_nproc_alone_cap_a_fork_bomb(box: Sandbox) -> None:
    _fork_bomb(only(box, *BASE, "uid"))


def _lease_holders(pool: UidPool, uid: int) -> set[int]:
    """Pids holding the pool's lock on ``uid`` (from /proc/locks)."""
    inode = os.stat(pool.lock_dir / f"{uid}.lock").st_ino
    holders = set()
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[5].rsplit(":", 1)[-1] == str(inode):
            holders.add(int(fields[4]))
    return holders


def _handing_out_first(box: Sandbox, uid: int | None) -> Sandbox:
    """A copy of ``box`` whose user pool offers ``uid`` first.

    The pool is shared by every referee on the machine, so which user is the lowest free
    one is not this test's to know, and another referee may take ``uid`` the moment it is
    free.  That this referee gave it back at once is checked exactly (it holds no lock on
    it); a user another referee holds now skips the rest, saying so."""
    assert uid is not None and box.uids is not None, "the uid layer is not active"
    pool = UidPool(box.uids.lock_dir)
    holders = _lease_holders(pool, uid)
    assert os.getpid() not in holders, f"the referee still holds user {uid} after closing its bot"
    if holders:
        pytest.skip(f"another referee on this machine (pid {sorted(holders)}) took user {uid} as soon as it was free")
    pool.users.sort(key=lambda user: user[0] != uid)
    reordered = copy.copy(box)
    reordered.uids = pool
    return reordered


@pytest.mark.alone  # no other referee of the suite may take the released user first (the test then skips)
@pytest.mark.parametrize("without_bwrap", [False, True], ids=["probed", "without-bwrap"])
def test_a_fork_bomb_does_not_starve_the_next_bots_of_its_user(box: Sandbox, without_bwrap: bool) -> None:
    """The pool hands a released user to the next bot at once.  The fork bomb's killed
    children must be gone by then: were they still zombies (waiting for the machine's
    init to reap them, when no pid namespace of the bot's own reaps them as it dies),
    they would still count against the user's RLIMIT_NPROC, and the next bot of that
    user could not start a thread or a process -- an innocent bot's failure."""
    reduced = only(box, *BASE, "uid") if without_bwrap else only(box, *box.active)
    first = play(reduced, [bot_copy("fork-bomb"), random_bot()], reporters=[0])
    uid = first.watch(0).uid
    try:
        assert first.report(0)["failure"] == "EAGAIN"
        innocent = [bot_copy("thread-user") for _ in range(3)]
        second = play(_handing_out_first(reduced, uid), innocent, reporters=[0, 1, 2])
        if uid not in {w.uid for w in second.watches}:
            pytest.skip(f"another referee on this machine took user {uid} before the next bot could")
        assert second.result.faults == [], f"bots could not start after a fork bomb: {second.result.faults}"
        starved = {w.uid: second.report(w.seat) for w in second.watches
                   if w.seat is not None and second.report(w.seat)["thread"] != "ok"}
        assert not starved, (f"right after a fork bomb of user {uid}, the next bots of that user could not "
                             f"start a thread: {starved}")
        assert_nothing_left(second)
    finally:
        if uid is not None:
            wait_reaped(uid)


def test_bwrap_alone_keeps_the_network_out_of_reach(box: Sandbox) -> None:
    """No seccomp, no Landlock: sockets can be made, but the network namespace has no
    route to the host, the host's /tmp is not mounted, and abstract sockets belong to
    the namespace.  (A socket file in the bot's own, visible folder stays reachable:
    that takes seccomp.)"""
    reduced = only(box, *BASE, "uid", "bwrap")
    bot = bot_copy("network")
    assert bot.folder is not None
    servers = Servers(bot.folder)
    try:
        (bot.folder / "targets.json").write_text(servers.targets(inside(reduced, bot.folder, bot.folder)),
                                                 encoding="utf-8")
        os.chmod(bot.folder / "targets.json", 0o644)
        played = play(reduced, [random_bot(), bot, random_bot()], reporters=[1])
        reached = servers.reached()
    finally:
        servers.close()
    report = played.report(1)
    assert report["socket_inet"] == "ok", f"seccomp seems to be on after all: {report}"
    # (a datagram to 127.0.0.1 "succeeds" into the namespace's own loopback: what counts
    # for it is what the host's server received)
    keys = ["tcp4", "unix_host_tmp", "abstract", "resolve_localhost", "resolve_example.com"]
    keys += ["tcp6"] if "tcp6" in report else []
    allowed = {k: report[k] for k in keys if report[k].startswith("ok")}
    assert not allowed, f"bubblewrap alone let through {allowed}"
    assert report["unix_host_tmp_visible"] is False
    host = {k: v for k, v in reached.items() if k != "unix_own_folder"}
    assert not host, f"the host's servers were reached: {host}"
    assert_clean(played)
    assert_nothing_left(played)


def test_bwrap_alone_hides_etc_and_other_bots(box: Sandbox) -> None:
    reduced = only(box, *BASE, "uid", "bwrap")
    sibling = bot_copy("writer")
    assert sibling.folder is not None
    targets = {"read": {"etc_passwd": "/etc/passwd", "sibling_copy": str(sibling.folder / "bot.py")},
               "list": {"list_root": "/root"}}
    played = play(reduced, [bot_copy("snoop", {"targets.json": json.dumps(targets)}), random_bot(), random_bot()],
                  reporters=[0])
    report = played.report(0)
    allowed = {k: report[k] for k in ("etc_passwd", "sibling_copy", "list_root") if report[k].startswith("ok")}
    assert not allowed, f"bubblewrap alone let the bot read {allowed}"
    assert_clean(played)
    assert_nothing_left(played)


def test_uid_alone_keeps_the_referee_and_other_bots_out_of_reach_of_signals(box: Sandbox) -> None:
    """No pid namespace: the bot sees every pid, the referee is its parent; only being
    another user stops its signals (``kill(-1)`` reaches only its own processes)."""
    reduced = only(box, *BASE, "uid")
    received: list[str] = []
    bot = bot_copy("signaller")
    assert bot.folder is not None

    def victims(bots: Sequence[Bot | BotFault]) -> None:
        pids = [b.sandboxed.pid for b in (bots[0], bots[2]) if isinstance(b, Bot)]
        tell(bots[1], "victims.json", json.dumps({"referee": os.getpid(), "bots": pids}))

    def record(signum: int, _frame: object) -> None:
        received.append(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, record) for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    try:
        played = play(reduced, [random_bot(), bot, random_bot()], reporters=[1], before_match=victims)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    report = played.report(1)
    assert report["ppid"] == os.getpid(), f"expected the referee as the bot's parent: {report}"
    assert not received, f"the referee received {received}; the bot's report: {report}"
    assert report["referee"] == {"SIGTERM": "EPERM", "SIGKILL": "EPERM"}, report
    assert report["parent"] == "EPERM", report
    for pid, outcome in report["bots"].items():
        assert outcome == {"SIGTERM": "EPERM", "SIGKILL": "EPERM"}, f"bot {pid}: {outcome}"
    assert_clean(played)
    assert_nothing_left(played)


def test_uid_alone_keeps_the_limits_fixed(box: Sandbox) -> None:
    played = play(only(box, *BASE, "uid"), [random_bot(), bot_copy("escalate"), random_bot()], reporters=[1])
    report = played.report(1)
    refused = ("setrlimit_as", "setrlimit_cpu", "setrlimit_nproc", "setrlimit_nofile", "setuid_0", "setgid_0",
               "setgroups_0", "nice_minus_5", "chroot", "mount_tmpfs", "leave_cgroup")
    allowed = {k: report[k] for k in refused if report[k].startswith("ok")}
    assert not allowed, f"as its own user alone the bot could {allowed}"
    assert report["limits_after"] == report["limits_before"]
    assert_clean(played)
    assert_nothing_left(played)


def test_closing_stdout_is_closed_stdout_without_bwrap(box: Sandbox) -> None:
    """The same attack as in test_hostile_protocol, with every layer but bubblewrap:
    shows whether a wrong fault kind there comes from bubblewrap's own processes."""
    layers = [name for name in box.active if name not in ("bwrap", "seccomp")]
    played = play(only(box, *layers), [random_bot(), random_bot(), bot_copy("close-stdout")], reporters=[2],
                  time_control=HURRY)
    assert played.report(2) == {"closed_stdout": True}
    assert_fault(played, 2, "closed_stdout")
    assert_nothing_left(played)


def test_no_layer_switched_off_by_a_test_leaks_into_the_probed_sandbox(box: Sandbox) -> None:
    assert only(box, *BASE).active == list(BASE)
    assert all(status.why != "switched off by the test" for status in box.status.values())
    assert alive(os.getpid())
