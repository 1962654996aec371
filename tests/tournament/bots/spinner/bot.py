"""Plays the first legal action; its first decision of each match spins the CPU for 0.3 s."""

import time

from arena.sdk import MatchInfo, hookimpl

SPIN_S = 0.3
fresh_match = False


@hookimpl
def match_start(match: MatchInfo) -> None:
    global fresh_match
    fresh_match = True


@hookimpl
def choose(legal: list[str]) -> str:
    global fresh_match
    if fresh_match:
        fresh_match = False
        end = time.process_time() + SPIN_S
        while time.process_time() < end:
            pass
    return legal[0]
