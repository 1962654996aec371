"""Plays a uniformly random legal action, seeded per match so its play can be replayed."""

import random

from arena.sdk import MatchInfo, hookimpl

rng = random.Random()


@hookimpl
def match_start(match: MatchInfo) -> None:
    rng.seed(f"{match.match_id}/{match.seat}")


@hookimpl
def choose(legal: list[str]) -> str:
    return rng.choice(legal)
