"""Plays legal[0], then raises an exception on its 3rd decision of a match (a crash)."""

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
        raise RuntimeError("boom: deliberate crash on decision 3")
    return legal[0]
