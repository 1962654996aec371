"""Plays a random legal action, seeded per match and seat like ``random``, after 10 ms.

Its results are as reproducible as ``random``'s; its slowness only gives the tests of
stopping and resuming a run time to stop it halfway."""

import random
import time

from arena.sdk import MatchInfo, hookimpl

THINK_S = 0.01
rng = random.Random()


@hookimpl
def match_start(match: MatchInfo) -> None:
    rng.seed(f"{match.match_id}/{match.seat}")


@hookimpl
def choose(legal: list[str]) -> str:
    time.sleep(THINK_S)
    return rng.choice(legal)
