"""Real matches through the referee for the bot tests, each bot in its own process.

One set of bot processes serves every match of a test, as in a tournament: the tables
are rotated so that the bot under test sits in different seats.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import trio

from arena.botspec import find_bot
from arena.referee import Bot, MatchResult, open_bots, play_match
from arena.rules import get_variant

Played = tuple[str, int, int, MatchResult]
"""One match: variant, seed, players, result."""


def check_result(result: MatchResult, players: int, reasons: Collection[str] = ()) -> None:
    """No fault, one placement a seat in competition ranking, and (if given) one of ``reasons`` as the end."""
    assert result.faults == [], result.faults
    placements = result.outcome.placements
    assert len(placements) == players
    assert all(1 <= p <= players for p in placements)
    for p in placements:  # competition ranking: a seat placed p has exactly p - 1 seats placed ahead of it
        assert p == 1 + sum(1 for q in placements if q < p), placements
    if reasons:
        assert result.outcome.reason in reasons, result.outcome


def play_variants(
    name: str, table: Sequence[str], variants: Sequence[str], seeds: Sequence[int], size: Callable[[int, int], int]
) -> list[Played]:
    """Every variant over every seed with one set of processes: ``table`` names the bot of
    each process (``{bot}`` stands for ``name``); a match of ``size(seed, variant index)``
    players takes the first processes, rotated by the seed."""

    async def main() -> list[Played]:
        results = []
        async with open_bots([find_bot(entry.format(bot=name)) for entry in table]) as bots:
            assert all(isinstance(bot, Bot) for bot in bots), bots
            for index, variant in enumerate(variants):
                for seed in seeds:
                    players = size(seed, index)
                    shift = seed % players
                    seated = bots[:players][shift:] + bots[:players][:shift]
                    result = await play_match(get_variant(variant), seated, seed=seed, match_id=f"{variant}-{seed}")
                    results.append((variant, seed, players, result))
        return results

    return trio.run(main)


def check_played(name: str, played: Sequence[Played], reasons: Collection[str] = ()) -> None:
    """Every match passes :func:`check_result` and the bot ``name`` made decisions in it."""
    label = find_bot(name).label
    for variant, seed, players, result in played:
        try:
            check_result(result, players, reasons)
        except AssertionError as error:
            raise AssertionError(f"{name} in {variant}, seed {seed}, {players} players: {error}") from None
        bot_seats = [s for s, bot in enumerate(result.bots) if bot == label]
        assert bot_seats, result.bots
        assert any(result.timings[s].decisions for s in bot_seats)


def average_place(name: str, variant: str, matches: int, seed_base: int = 0, reasons: Collection[str] = ()) -> float:
    """The bot ``name``'s average placement in ``matches`` four-player matches against three
    random bots, sitting in every seat in turn (match m has seed ``seed_base + m``)."""

    async def main() -> float:
        total = 0
        async with open_bots([find_bot(name), find_bot("random"), find_bot("random"), find_bot("random")]) as bots:
            assert all(isinstance(bot, Bot) for bot in bots), bots
            for m in range(1, matches + 1):
                seat = m % 4
                others = bots[1:]
                seated = others[:seat] + [bots[0]] + others[seat:]
                result = await play_match(get_variant(variant), seated, seed=seed_base + m, match_id=f"strength-{m}")
                check_result(result, 4, reasons)
                total += result.outcome.placements[seat]
        return total / matches

    return trio.run(main)
