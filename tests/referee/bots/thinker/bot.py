"""Thinks (spins on the CPU) for THINK of ``move_ms`` at every decision, then plays legal[0].

It measures its own CPU time (``time.process_time``), as a search bot with a budget does:
on a busy machine the thinking takes longer on the wall clock, never more CPU.
"""

import time

from arena.sdk import MatchInfo, hookimpl

THINK = 0.8
think_s = 0.0


@hookimpl
def match_start(match: MatchInfo) -> None:
    global think_s
    think_s = THINK * match.time["move_ms"] / 1000


@hookimpl
def choose(legal: list[str]) -> str:
    until = time.process_time() + think_s
    while time.process_time() < until:
        pass
    return legal[0]
