"""Writes FLOOD_MB of junk to stderr when a match starts (then a marker), then plays legal[0]."""

import os

from arena.sdk import MatchInfo, hookimpl

FLOOD_MB = 50
MARKER = b"\nflood-stderr: END OF FLOOD\n"


@hookimpl
def match_start(match: MatchInfo) -> None:
    chunk = (b"flood-stderr: junk line to fill the referee's memory " * 20 + b"\n")[:1023] + b"\n"
    block = chunk * 1024  # 1 MiB
    for _ in range(FLOOD_MB):
        view = memoryview(block)
        while view:
            view = view[os.write(2, view):]
    os.write(2, MARKER)


@hookimpl
def choose(legal: list[str]) -> str:
    return legal[0]
