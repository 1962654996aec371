"""Sleeps DOZE_S before each answer, using no CPU, then plays legal[0]: on a CPU clock that
charged only CPU it would stretch every match for free."""

import time

from arena.sdk import hookimpl

DOZE_S = 0.4


@hookimpl
def choose(legal: list[str]) -> str:
    time.sleep(DOZE_S)
    return legal[0]
