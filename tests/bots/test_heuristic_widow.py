"""The bundled bots play the widow family (schwimmen, stop-the-bus, switch) through the
referee, each bot in its own process, without a fault; the heuristic bot clearly beats
random play in each of them.
"""

from __future__ import annotations

import pytest
import trio

from arena.botspec import find_bot
from arena.referee import Bot, MatchResult, open_bots, play_match
from arena.rules import get_variant

VARIANTS = ("schwimmen", "stop-the-bus", "switch")
SEEDS = range(1, 7)
TABLE = ("{bot}", "random", "{bot}", "random", "{bot}", "{bot}", "random", "{bot}", "{bot}")
"""Seats of the processes opened per bot: tables of 2 to 9 take the first seats, rotated."""


def _check_result(result: MatchResult, players: int) -> None:
    assert result.faults == [], result.faults
    placements = result.outcome["placements"]
    assert len(placements) == players
    for p in placements:  # competition ranking: a seat placed p has p - 1 seats ahead of it
        assert p == 1 + sum(1 for q in placements if q < p), placements
    assert result.outcome["reason"] in ("last player in", "round cap"), result.outcome


async def _play_all(name: str) -> list[tuple[str, int, int, MatchResult]]:
    manifests = [find_bot(entry.format(bot=name)) for entry in TABLE]
    results = []
    async with open_bots(manifests) as bots:
        assert all(isinstance(bot, Bot) for bot in bots), bots
        for variant in VARIANTS:
            for seed in SEEDS:
                players = 2 + (seed * 3 + VARIANTS.index(variant)) % 8  # 2 to 9 seats
                shift = seed % players
                table = bots[:players][shift:] + bots[:players][:shift]
                result = await play_match(get_variant(variant), table, seed=seed, match_id=f"{variant}-{seed}")
                results.append((variant, seed, players, result))
    return results


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_bundled_bot_plays_the_widow_family_without_faults(name: str) -> None:
    manifest = find_bot(name)
    assert all(manifest.plays(v) for v in VARIANTS)
    results = trio.run(_play_all, name)
    assert len(results) == len(VARIANTS) * len(SEEDS)
    assert {players for _, _, players, _ in results} >= {2, 9}
    for variant, seed, players, result in results:
        try:
            _check_result(result, players)
        except AssertionError as error:
            raise AssertionError(f"{name} in {variant}, seed {seed}, {players} players: {error}") from None
        bot_seats = [s for s, label in enumerate(result.bots) if label == manifest.label]
        assert any(result.timings[s].decisions for s in bot_seats)


async def _average_place(variant: str, matches: int) -> float:
    manifests = [find_bot("heuristic"), find_bot("random"), find_bot("random"), find_bot("random")]
    total = 0
    async with open_bots(manifests) as bots:
        for m in range(1, matches + 1):
            seat = m % 4  # the heuristic bot sits in every seat in turn
            others = bots[1:]
            table = others[:seat] + [bots[0]] + others[seat:]
            result = await play_match(get_variant(variant), table, seed=100 + m, match_id=f"strength-{m}")
            _check_result(result, 4)
            total += result.outcome["placements"][seat]
    return total / matches


@pytest.mark.parametrize("variant", VARIANTS)
def test_heuristic_beats_random_play(variant: str) -> None:
    average = trio.run(_average_place, variant, 8)
    assert average < 1.75, f"heuristic in {variant}: average placement {average:.2f} against three random bots"
