"""Hostile bots against the isolation: the network, the file system, other bots, the
referee's process, and the bot's own privileges and limits.

Attacks that the sandbox defeats silently leave the bot playing: no fault at all.  Some
matches serve several tests (module-scoped fixtures): one attacker tries several
things at once and each test checks one of them.
"""

from __future__ import annotations

import ctypes
import json
import os
import secrets
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hostile import (
    BOTS,
    Played,
    Servers,
    assert_clean,
    assert_not_read,
    assert_nothing_left,
    bot_copy,
    colluders,
    inside,
    needs,
    needs_any,
    play,
    random_bot,
    tell,
)

from arena.referee import Bot, BotFault
from arena.sandbox import Sandbox
from arena.sandbox.launcher import SCRATCH_DIR

REPO = Path(__file__).resolve().parents[2]
"""The referee's own folder (the repository)."""


def failed(outcome: object) -> bool:
    """An attempt the bot reported as refused (anything but "ok...")."""
    return isinstance(outcome, str) and not outcome.startswith("ok")


def assert_refused(report: dict[str, Any], *keys: str) -> None:
    got = {key: report.get(key) for key in keys}
    allowed = {key: value for key, value in got.items() if not failed(value)}
    assert not allowed, f"the sandbox allowed {allowed} (all attempts: {got})"


# ---------------------------------------------------------------------------------------
# The network


@pytest.fixture(scope="module")
def network_match(box: Sandbox) -> Iterator[tuple[Played, dict[str, str], Servers]]:
    needs_any(box, "bwrap", "seccomp")
    bot = bot_copy("network")
    assert bot.folder is not None
    servers = Servers(bot.folder)
    try:
        (bot.folder / "targets.json").write_text(servers.targets(inside(box, bot.folder, bot.folder)), encoding="utf-8")
        os.chmod(bot.folder / "targets.json", 0o644)
        played = play(box, [random_bot(), bot, random_bot()], reporters=[1])
        yield played, servers.reached(), servers
    finally:
        servers.close()


def test_network_bot_plays_on_without_fault(network_match: tuple[Played, dict[str, str], Servers]) -> None:
    played, _, _ = network_match
    assert_clean(played)
    assert_nothing_left(played)


def test_cannot_reach_tcp_or_udp_servers_on_the_host(
    box: Sandbox, network_match: tuple[Played, dict[str, str], Servers]
) -> None:
    played, reached, servers = network_match
    report = played.report(1)
    assert_refused(report, "tcp4", *(["tcp6"] if servers.tcp6 else []))
    if box.status["seccomp"].active:  # without it, a datagram may leave into the namespace's own loopback
        assert_refused(report, "udp", "socket_inet")
    inet = {k: v for k, v in reached.items() if k in ("tcp4", "tcp6", "udp")}
    assert not inet, f"the host's servers were reached: {inet}"


def test_cannot_reach_a_unix_socket_on_the_host(network_match: tuple[Played, dict[str, str], Servers]) -> None:
    played, reached, _ = network_match
    report = played.report(1)
    assert report["unix_host_tmp_visible"] is False, "the host's /tmp is visible inside the sandbox"
    assert_refused(report, "unix_host_tmp", "abstract")
    assert "unix_host_tmp" not in reached and "abstract" not in reached, reached


def test_cannot_reach_a_unix_socket_in_its_own_folder(
    box: Sandbox, network_match: tuple[Played, dict[str, str], Servers]
) -> None:
    """The bot's folder is visible inside (read-only), and a socket file there stays
    reachable across namespaces: only refusing ``socket()`` itself (seccomp) stops it."""
    needs(box, "seccomp")
    played, reached, _ = network_match
    report = played.report(1)
    assert report["unix_own_folder_visible"] is not box.status["resident"].active  # its copy holds only files
    assert_refused(report, "unix_own_folder")
    assert "unix_own_folder" not in reached, reached


def test_cannot_resolve_host_names(network_match: tuple[Played, dict[str, str], Servers]) -> None:
    played, _, _ = network_match
    assert_refused(played.report(1), "resolve_localhost", "resolve_example.com")


# ---------------------------------------------------------------------------------------
# Reading files


@pytest.fixture(scope="module")
def snoop_match(box: Sandbox) -> Played:
    needs_any(box, "bwrap", "uid", "landlock")
    bot = bot_copy("snoop")
    sibling = bot_copy("writer")  # another bot's folder, elsewhere under /tmp
    assert bot.folder is not None and sibling.folder is not None
    read = {
        "arena_package": inside(box, REPO / "arena" / "referee" / "__init__.py"),  # intended: the bot host needs it
        "arena_at_its_host_path": str(REPO / "arena" / "referee" / "__init__.py"),  # names the checkout
        "etc_passwd": "/etc/passwd",
        "etc_shadow": "/etc/shadow",
        "referee_pyproject": str(REPO / "pyproject.toml"),
        "referee_git_config": str(REPO / ".git" / "config"),
        "bundled_bot": str(REPO / "bots" / "random" / "bot.py"),
        "test_bot_in_repo": str(BOTS / "network" / "bot.py"),
        "sibling_copy": str(sibling.folder / "bot.py"),
        "referee_environ": f"/proc/{os.getpid()}/environ",
    }
    listing = {"list_etc": "/etc", "list_root": "/root", "list_home": "/home", "list_repo": str(REPO),
               "list_bots": str(REPO / "bots"), "list_sibling": str(sibling.folder)}

    def targets(bots: Sequence[Bot | BotFault]) -> None:
        other = bots[1]
        assert isinstance(other, Bot)
        targets = {"read": {**read, "sibling_scratch_listing": str(other.sandboxed.scratch)},
                   "list": {**listing, "list_sibling_scratch": str(other.sandboxed.scratch)}}
        tell(bots[2], "targets.json", json.dumps(targets))

    return play(box, [random_bot(), random_bot(), bot], reporters=[2], before_match=targets)


def test_snoop_plays_on_and_can_read_what_it_needs(snoop_match: Played) -> None:
    report = snoop_match.report(2)
    assert report["arena_package"].startswith("ok"), f"the arena package is not readable: {report}"
    assert report["own_folder"].startswith("ok"), f"its own folder is not readable: {report}"
    assert_clean(snoop_match)
    assert_nothing_left(snoop_match)


def test_cannot_read_etc_passwd(box: Sandbox, snoop_match: Played) -> None:
    needs(box, "bwrap")
    assert_refused(snoop_match.report(2), "etc_passwd", "etc_shadow", "list_etc")


def test_cannot_read_other_bots_folders(box: Sandbox, snoop_match: Played) -> None:
    """Only the bot's own folder is bound: not the bundled bots, not the test bots, not
    another bot's folder or scratch folder."""
    needs(box, "bwrap")
    assert_refused(snoop_match.report(2), "sibling_copy", "list_sibling", "sibling_scratch_listing",
                   "list_sibling_scratch", "bundled_bot", "list_bots", "test_bot_in_repo")


def test_cannot_read_the_referees_files(box: Sandbox, snoop_match: Played) -> None:
    """/root, /home, the referee's environment, and the repository beyond the arena package."""
    needs(box, "bwrap")
    assert_refused(snoop_match.report(2), "list_root", "list_home", "referee_environ", "referee_pyproject",
                   "referee_git_config", "list_repo", "arena_at_its_host_path")


# ---------------------------------------------------------------------------------------
# Writing files


def test_cannot_write_outside_its_scratch_folder(box: Sandbox) -> None:
    """Its own folder, /usr and the referee's folder (read-only binds, root's files), the
    host's /tmp and /dev/shm (world-writable: only bubblewrap's private mounts or Landlock
    keep the bot out of them)."""
    needs_any(box, "bwrap", "landlock")
    token = secrets.token_hex(6)
    bot = bot_copy("writer", {"targets.json": json.dumps({"token": token, "referee_dir": str(REPO)})})
    assert bot.folder is not None
    played = play(box, [bot, random_bot(), random_bot()], reporters=[0])
    report = played.report(0)
    scratch = SCRATCH_DIR if box.status["bwrap"].active else str(played.watch(0).sandboxed.scratch)
    assert report["cwd"] == report["home"] == report["tmpdir"] == scratch, report
    assert report["scratch"].startswith("ok"), f"the bot cannot write its own scratch folder: {report}"
    assert_refused(report, "own_folder", "own_folder_chmod", "usr", "referee_dir")
    marker = f"arena-marker-{token}"
    leaked = [p for p in (Path("/tmp") / marker, Path("/dev/shm") / marker, Path("/usr") / marker, REPO / marker,
                          bot.folder / marker) if p.exists()]
    for path in leaked:
        path.unlink()
    assert not leaked, f"the bot's files reached the host: {leaked} (its report: {report})"
    assert oct(bot.folder.stat().st_mode & 0o777) == oct(0o755), "the bot changed its folder's mode"
    assert_clean(played)
    assert_nothing_left(played)  # the scratch folder and what the bot wrote there are gone


def test_cannot_write_a_file_over_the_size_limit(box: Sandbox) -> None:
    needs(box, "rlimits")
    token = secrets.token_hex(6)
    bot = bot_copy("writer", {"targets.json": json.dumps({"token": token, "referee_dir": str(REPO)})})
    played = play(box, [random_bot(), bot, random_bot()], reporters=[1])
    report = played.report(1)
    assert report["scratch_32mb"] == "EFBIG", report
    assert report["scratch_32mb_size_mb"] == f"ok: {box.limits.file_size_mb}", report
    assert_clean(played)
    assert_nothing_left(played)


# ---------------------------------------------------------------------------------------
# Other bots


def _sysv_keys() -> set[int]:
    with open("/proc/sysvipc/shm") as handle:
        return {int(line.split()[0]) for line in handle.read().splitlines()[1:] if line.strip()}


def test_bots_at_one_table_cannot_share_a_secret(box: Sandbox) -> None:
    """One bot leaves a secret in /dev/shm, /tmp and System V shared memory before the
    match; another looks for it at every decision.  Neither it nor the host may see it."""
    needs(box, "bwrap")
    token = secrets.token_hex(8)
    key = int(token[:7], 16)
    writer = bot_copy("secret-writer", {"token.txt": token})
    reader = bot_copy("secret-reader", {"token.txt": token})
    played = play(box, [writer, reader, random_bot()], reporters=[0, 1])
    left = played.report(0)
    found = played.report(1)
    assert found["decisions"] >= 2, found
    seen = {k: v for k, v in found.items() if isinstance(v, str) and token in v}
    assert not seen, f"the reader found the writer's secret: {seen} (the writer left: {left})"
    on_host = [p for p in (Path("/dev/shm") / f"arena-secret-{token}", Path("/tmp") / f"arena-secret-{token}")
               if p.exists()]
    for path in on_host:
        path.unlink()
    sysv_on_host = key in _sysv_keys()
    if sysv_on_host:  # remove it, then fail
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmctl(libc.shmget(key, 0, 0), 0, None)  # IPC_RMID
    assert not on_host, f"the secret reached the host: {on_host}"
    assert not sysv_on_host, "the System V shared memory segment reached the host's IPC namespace"
    assert_clean(played)
    assert_nothing_left(played)


def test_bots_cannot_signal_through_futexes_on_a_shared_read_only_file(box: Sandbox) -> None:
    """Two colluders map a read-only file every Python bot sees alike (the standard
    library's ``os.py``: one inode in every sandbox).  A futex on a file's page is keyed by
    the inode and offset, so the sender's threads waiting at the offsets of its cards were
    found by the receiver's ``FUTEX_WAKE`` (it returns how many it woke): the receiver read
    the sender's whole hand, with no writable file, lock, socket or timing.  A wake that is
    not private is refused now."""
    needs(box, "bwrap", "seccomp")
    played, got, hand = colluders(box, "futex-colluder")
    assert_not_read(played, got, hand, "futexes")


def test_bots_cannot_signal_through_the_wake_the_kernel_sends_when_a_thread_exits(box: Sandbox) -> None:
    """The same channel with no wake by a system call: a thread's exit wakes its
    ``clear_child_tid`` address (``set_tid_address``), and the kernel's wake is not private.
    The sender ended one thread per card with that address on the shared page, and the
    receiver's threads waiting there read its hand.  A wait that is not private answers
    EAGAIN now (the waiter spins, as on a word that changed), so no one sleeps where the
    kernel's wake could be seen."""
    needs(box, "bwrap", "seccomp")
    played, got, hand = colluders(box, "exit-colluder")
    assert_not_read(played, got, hand, "thread exits")


def test_a_bot_thinking_with_processes_of_its_own_plays_on(box: Sandbox) -> None:
    """A semaphore shared between a bot's own processes waits and wakes on a futex that is
    not private, as every lock shared between processes does.  When the filter refused
    such wakes, the C library aborted the bot at the first release that had to wake the
    other process (it timed out at its fifth decision); now a shared wait spins and a
    shared wake wakes no one, and every decision is made."""
    needs(box, "bwrap", "seccomp")
    played = play(box, [bot_copy("process-team"), random_bot(), random_bot()], reporters=[0])
    assert_clean(played)
    decisions = sum(1 for e in played.result.log if e["event"] == "action" and e["seat"] == 0)
    assert played.report(0)["decisions"] == decisions > 0
    assert_nothing_left(played)


# ---------------------------------------------------------------------------------------
# The referee's process


CATCHABLE = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR1, signal.SIGUSR2)


def test_cannot_signal_the_referee_or_other_bots(box: Sandbox) -> None:
    needs_any(box, "uid", "bwrap")
    received: list[str] = []
    bot = bot_copy("signaller")
    assert bot.folder is not None

    def victims(bots: Sequence[Bot | BotFault]) -> None:
        pids = []
        for other in (bots[0], bots[2]):
            assert isinstance(other, Bot)
            cgroup = other.sandboxed.cgroup
            pids += sorted({other.sandboxed.pid, *(cgroup.pids() if cgroup else ())})
        tell(bots[1], "victims.json", json.dumps({"referee": os.getpid(), "bots": pids}))

    def record(signum: int, _frame: object) -> None:
        received.append(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, record) for sig in CATCHABLE}
    try:
        played = play(box, [random_bot(), bot, random_bot()], reporters=[1], before_match=victims)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    report = played.report(1)
    assert not received, f"the referee received {received} from the bot (its report: {report})"
    assert failed(report["referee"]["SIGTERM"]), report
    assert failed(report["referee"].get("SIGKILL")), report
    assert report["bots"], "the bot was told no other bots' pids"
    for pid, outcome in report["bots"].items():
        assert failed(outcome["SIGTERM"]) and failed(outcome.get("SIGKILL")), f"bot process {pid}: {outcome}"
    assert_clean(played)  # the other bots played on, unharmed; so did the signaller
    assert_nothing_left(played)


# ---------------------------------------------------------------------------------------
# Privileges and limits


@pytest.fixture(scope="module")
def escalate_match(box: Sandbox) -> Played:
    needs(box, "rlimits")
    needs_any(box, "uid", "bwrap")
    return play(box, [random_bot(), random_bot(), bot_copy("escalate")], reporters=[2])


def test_cannot_raise_its_limits(escalate_match: Played, box: Sandbox) -> None:
    report = escalate_match.report(2)
    assert_refused(report, "setrlimit_as", "setrlimit_cpu", "setrlimit_nproc", "setrlimit_nofile")
    assert report["limits_after"] == report["limits_before"], report
    assert report["limits_after"]["RLIMIT_AS"] == [box.limits.memory_mb * 1024 * 1024] * 2, report
    assert_clean(escalate_match)
    assert_nothing_left(escalate_match)


def test_cannot_become_root(escalate_match: Played) -> None:
    report = escalate_match.report(2)
    assert report["uid"] != 0 and report["euid"] != 0, report
    assert_refused(report, "setuid_0", "setgid_0", "setgroups_0", "nice_minus_5", "chroot")


def test_cannot_leave_its_namespaces_or_groups(escalate_match: Played, box: Sandbox) -> None:
    needs(box, "seccomp")
    assert_refused(escalate_match.report(2), "unshare_user", "mount_tmpfs", "ptrace_parent", "leave_cgroup")
