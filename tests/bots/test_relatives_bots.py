"""The bundled bots play the four- and five-card relatives (fifty-one, fifty-one-chinese,
empat-satu) through the referee, each bot in its own process, without a fault; the
heuristic bot clearly beats random play in each of them.
"""

from __future__ import annotations

import shutil

import pytest
from botmatch import average_place, check_played, play_variants

from arena.botspec import find_bot

VARIANTS = ("fifty-one", "fifty-one-chinese", "empat-satu")
SEEDS = range(1, 7)
TABLE = ("{bot}", "random", "{bot}", "random", "{bot}")
"""Seats of the processes opened per bot: tables of 2 to 5 take the first seats, rotated."""
REASONS = ("rounds played", "target reached")


@pytest.mark.parametrize("name", ["random", "heuristic", "node-random"])
def test_bundled_bot_plays_the_relatives_without_faults(name: str) -> None:
    if name == "node-random" and shutil.which("node") is None:
        pytest.skip("node not found: bots/node-random needs Node.js (`node`) on the PATH")
    assert all(find_bot(name).plays(v) for v in VARIANTS)
    played = play_variants(name, TABLE, VARIANTS, SEEDS, lambda seed, v: 2 + (seed + v) % 4)  # 2 to 5 seats
    assert len(played) == len(VARIANTS) * len(SEEDS)
    check_played(name, played, REASONS)


@pytest.mark.parametrize("variant", VARIANTS)
def test_heuristic_beats_random_play(variant: str) -> None:
    average = average_place("heuristic", variant, 8, seed_base=100, reasons=REASONS)
    assert average < 1.75, f"heuristic in {variant}: average placement {average:.2f} against three random bots"
