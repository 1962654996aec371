"""Plays legal[0], then never answers its 3rd decision of a match (sleeps forever)."""

import time

from arena.sdk import MatchInfo, hookimpl

BAD_DECISION = 3
decisions = 0


@hookimpl
def match_start(match: MatchInfo) -> None:
    global decisions
    decisions = 0


@hookimpl
def choose(legal: list[str]) -> str:
    global decisions
    decisions += 1
    if decisions == BAD_DECISION:
        while True:
            time.sleep(3600)
    return legal[0]
