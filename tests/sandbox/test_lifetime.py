"""A sandboxed bot lives as long as the referee that started it, however long that is,
and not longer.

Bubblewrap's ``--die-with-parent`` kills the sandbox when the *thread* that forked it
exits.  Bots used to be forked from one of trio's worker threads, which exit after 10 s
idle: every sandboxed bot then died mid-tournament.  Here a bot stays idle well past
that, then plays again.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import trio
from hostile import needs, random_bot

from arena.botspec import load_manifest
from arena.referee import Bot, TimeControl, open_bots, play_match
from arena.rules import get_variant
from arena.sandbox import Sandbox, tree
from arena.sandbox.cgroups import detect

TRIO_WORKER_IDLE_S = 10
"""How long an idle trio worker thread lives (trio._core._thread_cache.IDLE_TIMEOUT)."""
PR_GET_CHILD_SUBREAPER = 37


def test_a_sandboxed_bot_outlives_an_idle_pause_of_the_referee(box: Sandbox) -> None:
    needs(box, "bwrap")
    scat = get_variant("scat")
    time_control = TimeControl(move_ms=2000, bank_ms=2000, first_move_ms=5000, startup_ms=10_000)

    async def main() -> tuple[list[list[str]], list[int | None]]:
        async with open_bots([random_bot(), random_bot()], time_control=time_control, sandbox=box) as bots:
            first = await play_match(scat, bots, seed=1, time_control=time_control)
            await trio.sleep(TRIO_WORKER_IDLE_S + 3)
            codes = [b.sandboxed.process.returncode for b in bots if isinstance(b, Bot)]
            second = await play_match(scat, bots, seed=2, time_control=time_control)
        return [[f.kind for f in first.faults], [f.detail for f in second.faults]], codes

    faults, codes = trio.run(main)
    assert codes == [None, None], f"the bots died while the referee paused: exit statuses {codes}"
    assert faults == [[], []], faults


def test_a_table_stopped_while_its_bots_start_leaves_nothing_behind(box: Sandbox) -> None:
    """A worker told to stop (its runner gone, Ctrl+C) cancels tables whose bots are still
    starting.  A bot launched but not yet through its handshake was not yet one of the
    table's bots, so nothing closed it: its processes, scratch folder and groups stayed
    behind (a dozen scratch folders after every stopped ladder)."""
    silent = load_manifest(Path(__file__).resolve().parents[1] / "referee" / "bots" / "silent_start")

    def scratch() -> set[Path]:  # this process's bots' folders (not its lifelong /proc stand-ins)
        return {p for p in Path(tempfile.gettempdir()).glob(f"arena-bot-{os.getpid()}-*")
                if not any(kind in p.name for kind in ("-proc-", "-copy-", "-probe-"))}

    before = scratch()

    async def main() -> None:
        with trio.CancelScope() as stop:
            async with trio.open_nursery() as nursery:
                async def stop_once_launched() -> None:
                    while len(scratch() - before) < 2:
                        await trio.sleep(0.01)
                    stop.cancel()

                nursery.start_soon(stop_once_launched)
                async with open_bots([silent, silent], time_control=TimeControl(startup_ms=600_000), sandbox=box):
                    raise AssertionError("a bot that never answers hello was greeted")

    trio.run(main)
    assert scratch() - before == set(), "a bot stopped while starting left its scratch folder"


def test_a_new_arena_process_sweeps_up_after_a_killed_one(box: Sandbox) -> None:
    """A referee killed with SIGKILL cannot clean up: its bots' groups (with any process
    still in them) and scratch folders stay behind.  The next sandbox set up kills and
    removes them, and leaves those of live arena processes alone."""
    needs(box, "cgroup")
    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid now names an arena process that is gone
    support = detect()
    stale = f"arena-bot-{dead.pid}-left"
    live = f"arena-bot-{os.getpid()}-kept"
    groups = {name: support.create(name, memory_mb=64, max_pids=8) for name in (stale, live)}
    scratch = {name: Path(tempfile.gettempdir()) / name for name in (stale, live)}
    for folder in scratch.values():
        folder.mkdir()
    orphan = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        for procs in groups[stale].procs_files():
            Path(procs).write_text(str(orphan.pid))
        trio.run(Sandbox.probe)
        assert orphan.wait(timeout=5) == -signal.SIGKILL, "the orphaned bot was not killed"
        assert not any(d.exists() for d in groups[stale].dirs), "the stale groups are still there"
        assert not scratch[stale].exists(), "the stale scratch folder is still there"
        assert all(d.exists() for d in groups[live].dirs), "a live process's groups were removed"
        assert scratch[live].exists(), "a live process's scratch folder was removed"
    finally:
        orphan.kill()
        orphan.wait()
        for name, group in groups.items():
            group.kill()
            group.remove()
            shutil.rmtree(scratch[name], ignore_errors=True)


def test_a_killed_bots_orphans_are_adopted_and_reaped_by_the_arena(box: Sandbox) -> None:
    """Killing a bot orphans the processes inside its sandbox; left to the machine's
    init they stay zombies for seconds, and the bot's user with them (closing a table
    of four took eight seconds).  The arena adopts them and reaps them itself."""
    needs(box, "uid")
    manifest = random_bot()

    async def main() -> int:
        sandboxed = await box.launch(manifest.argv(box.python), manifest.folder, confines_itself=manifest.is_python)
        assert sandboxed.lease is not None
        await sandboxed.kill()
        return sandboxed.lease.uid

    uid = trio.run(main)
    assert _is_subreaper(), "the arena process does not adopt its orphaned descendants"
    assert tree._members(None, uid) == {}, "a process of the killed bot's user is left"


def test_reaping_takes_only_this_process_s_own_zombies() -> None:
    child = os.fork()
    if child == 0:
        os._exit(3)
    while Path(f"/proc/{child}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z":
        time.sleep(0.001)
    assert tree._reap([child, 1]) == 1  # its own zombie; init is not its child
    assert not Path(f"/proc/{child}").exists()


def _is_subreaper() -> bool:
    flag = ctypes.c_int(0)
    assert ctypes.CDLL(None).prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0
    return flag.value == 1


def test_a_forked_arena_process_adopts_orphans_of_its_own() -> None:
    """The subreaper attribute is not inherited by fork: a child must set it again."""
    assert tree.adopt_orphans() and _is_subreaper()
    child = os.fork()
    if child == 0:
        os._exit(0 if tree.adopt_orphans() and _is_subreaper() else 1)
    assert os.waitpid(child, 0)[1] == 0, "the forked process is not a subreaper"
