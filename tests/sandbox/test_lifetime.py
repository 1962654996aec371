"""A sandboxed bot lives as long as the referee that started it, however long that is.

Bubblewrap's ``--die-with-parent`` kills the sandbox when the *thread* that forked it
exits.  Bots used to be forked from one of trio's worker threads, which exit after 10 s
idle: every sandboxed bot then died mid-tournament.  Here a bot stays idle well past
that, then plays again.
"""

from __future__ import annotations

import trio
from hostile import needs, random_bot

from arena.referee import Bot, TimeControl, open_bots, play_match
from arena.rules import get_variant
from arena.sandbox import Sandbox

TRIO_WORKER_IDLE_S = 10
"""How long an idle trio worker thread lives (trio._core._thread_cache.IDLE_TIMEOUT)."""


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
