"""Plays legal[0] twice, then answers "fly" (never legal) on every decision from its 3rd on."""

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
    if decisions >= BAD_DECISION:
        return "fly"
    return legal[0]
