"""Plays a random legal action, seeded per match and seat like ``random``; crashes at the
start of a match that gives its seat another ``move_ms`` than its folder's
``expect_ms.txt`` says, so a seat's time control shows as a fault (or its absence)."""

import random
from pathlib import Path

from arena.sdk import MatchInfo, hookimpl

EXPECTED_MS = int((Path(__file__).resolve().parent / "expect_ms.txt").read_text())
rng = random.Random()


@hookimpl
def match_start(match: MatchInfo) -> None:
    if match.time["move_ms"] != EXPECTED_MS:
        raise SystemExit(f"told move_ms {match.time['move_ms']}, expected {EXPECTED_MS}")
    rng.seed(f"{match.match_id}/{match.seat}")


@hookimpl
def choose(legal: list[str]) -> str:
    return rng.choice(legal)
