"""The bundled bots (bots/) play real matches through the referee, each in its own process.

Every bundled bot plays every draw-and-discard variant over several seeds and table sizes
against the random bot; one set of processes per bot serves all of its matches, as in a
tournament.  The heuristic bot must also clearly beat random play.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest
import trio

from arena.botspec import find_bot
from arena.referee import Bot, MatchResult, open_bots, play_match
from arena.rules import get_variant

VARIANTS = (
    "scat",
    "scat-trips",
    "dollar-bill",
    "eenendertigen",
    "california-quick",
    "west-lansing",
    "no-elimination",
    "banking",
)
SEEDS = (1, 2, 3, 4)
TABLE = ("{bot}", "random", "{bot}", "random", "{bot}")
"""Seats of the processes opened per bot: tables of 2 to 5 take the first seats, rotated."""


def _bundled(name: str) -> Any:
    manifest = find_bot(name)
    if name == "node-random" and shutil.which("node") is None:
        pytest.skip("node not found: bots/node-random needs Node.js (`node`) on the PATH")
    return manifest


def _check_result(result: MatchResult, players: int) -> None:
    assert result.faults == [], result.faults
    placements = result.outcome.placements
    assert len(placements) == players
    assert all(1 <= p <= players for p in placements)
    # competition ranking: a seat placed p has exactly p - 1 seats placed ahead of it
    for p in placements:
        assert p == 1 + sum(1 for q in placements if q < p), placements


async def _play_every_variant(name: str) -> list[tuple[str, int, int, MatchResult]]:
    manifests = [find_bot(entry.format(bot=name)) for entry in TABLE]
    results = []
    async with open_bots(manifests) as bots:
        assert all(isinstance(bot, Bot) for bot in bots), bots
        for variant in VARIANTS:
            for seed in SEEDS:
                players = 2 + (seed + VARIANTS.index(variant)) % 4  # 2 to 5 seats
                table = bots[:players]
                shift = seed % players
                table = table[shift:] + table[:shift]
                result = await play_match(get_variant(variant), table, seed=seed, match_id=f"{variant}-{seed}")
                results.append((variant, seed, players, result))
    return results


@pytest.mark.parametrize("name", ["random", "threshold", "heuristic", "node-random"])
def test_bundled_bot_plays_every_variant_without_faults(name: str) -> None:
    manifest = _bundled(name)
    assert manifest.name == name
    assert all(manifest.plays(v) for v in VARIANTS)
    results = trio.run(_play_every_variant, name)
    assert len(results) == len(VARIANTS) * len(SEEDS)
    for variant, seed, players, result in results:
        try:
            _check_result(result, players)
        except AssertionError as error:
            raise AssertionError(f"{name} in {variant}, seed {seed}, {players} players: {error}") from None
        bot_seats = [s for s, label in enumerate(result.bots) if label == manifest.label]
        assert bot_seats, result.bots
        assert any(result.timings[s].decisions for s in bot_seats)


async def _average_place(name: str, variant: str, matches: int) -> float:
    manifests = [find_bot(name), find_bot("random"), find_bot("random"), find_bot("random")]
    total = 0
    async with open_bots(manifests) as bots:
        assert all(isinstance(bot, Bot) for bot in bots), bots
        for m in range(1, matches + 1):
            seat = m % 4  # the bot under test sits in every seat in turn
            others = bots[1:]
            table = others[:seat] + [bots[0]] + others[seat:]
            result = await play_match(get_variant(variant), table, seed=m, match_id=f"strength-{m}")
            _check_result(result, 4)
            total += result.outcome.placements[seat]
    return total / matches


@pytest.mark.parametrize("name", ["heuristic", "threshold"])
def test_bot_beats_random_in_four_player_scat(name: str) -> None:
    average = trio.run(_average_place, name, "scat", 40)
    assert average < 2.5, f"{name}: average placement {average:.2f} against three random bots"


async def _replay(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    async with open_bots([find_bot(name), find_bot("random")]) as bots:
        first = await play_match(get_variant("scat"), bots, seed=7, match_id="replay")
        second = await play_match(get_variant("scat"), bots, seed=7, match_id="replay")
    _check_result(first, 2)
    _check_result(second, 2)
    return first.log, second.log


@pytest.mark.parametrize("name", ["heuristic", "node-random"])
def test_bot_replays_the_same_match(name: str) -> None:
    _bundled(name)
    first, second = trio.run(_replay, name)
    assert first == second
