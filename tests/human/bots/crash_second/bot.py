"""Plays legal[0], then exits at once with status 3 on its 2nd decision of a match."""

import os
import sys

from arena.sdk import MatchInfo, hookimpl

decisions = 0


@hookimpl
def match_start(match: MatchInfo) -> None:
    global decisions
    decisions = 0


@hookimpl
def choose(legal: list[str]) -> str:
    global decisions
    decisions += 1
    if decisions == 2:
        print("crash-second: leaving with status 3", file=sys.stderr, flush=True)
        os._exit(3)
    return legal[0]
