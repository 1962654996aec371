"""Plays legal[0], then answers its 3rd decision with a number: {"action": 42} (wrong type)."""

from arena.sdk import MatchInfo, hookimpl

BAD_DECISION = 3
decisions = 0


@hookimpl
def match_start(match: MatchInfo) -> None:
    global decisions
    decisions = 0


@hookimpl
def choose(legal: list[str]) -> object:
    global decisions
    decisions += 1
    if decisions == BAD_DECISION:
        return 42
    return legal[0]
