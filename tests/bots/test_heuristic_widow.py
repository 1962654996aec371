"""The bundled bots play the widow family (schwimmen, stop-the-bus, switch) through the
referee, each bot in its own process, without a fault; the heuristic bot clearly beats
random play in each of them.
"""

from __future__ import annotations

import pytest
from botmatch import average_place, check_played, play_variants

from arena.botspec import find_bot

VARIANTS = ("schwimmen", "stop-the-bus", "switch")
SEEDS = range(1, 7)
TABLE = ("{bot}", "random", "{bot}", "random", "{bot}", "{bot}", "random", "{bot}", "{bot}")
"""Seats of the processes opened per bot: tables of 2 to 9 take the first seats, rotated."""
REASONS = ("last player in", "round cap")


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_bundled_bot_plays_the_widow_family_without_faults(name: str) -> None:
    assert all(find_bot(name).plays(v) for v in VARIANTS)
    played = play_variants(name, TABLE, VARIANTS, SEEDS, lambda seed, v: 2 + (seed * 3 + v) % 8)  # 2 to 9 seats
    assert len(played) == len(VARIANTS) * len(SEEDS)
    assert {players for _, _, players, _ in played} >= {2, 9}
    check_played(name, played, REASONS)


@pytest.mark.parametrize("variant", VARIANTS)
def test_heuristic_beats_random_play(variant: str) -> None:
    average = average_place("heuristic", variant, 8, seed_base=100, reasons=REASONS)
    assert average < 1.75, f"heuristic in {variant}: average placement {average:.2f} against three random bots"
