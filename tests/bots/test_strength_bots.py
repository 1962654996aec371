"""The strength bots (survival, tracker, ismcts) play real matches through the referee.

Each bot runs in its own sandboxed process, one set of processes per test serving every
match, as in a tournament.  Every variant a bot claims is played over several seeds and
table sizes without a fault; the search bot plays with a short time control, a small bank
and no extra first-move time, and must answer on average well inside ``move_ms``.
"""

from __future__ import annotations

import pytest
import trio

from arena.botspec import find_bot
from arena.referee import Bot, MatchResult, TimeControl, open_bots, play_match
from arena.rules import get_variant

pytestmark = pytest.mark.alone  # measures time or CPU shares: run with the machine to itself

SCAT_FAMILY = (
    "scat",
    "scat-trips",
    "dollar-bill",
    "eenendertigen",
    "california-quick",
    "west-lansing",
    "no-elimination",
    "banking",
)
WIDOW_FAMILY = ("schwimmen", "stop-the-bus", "switch")
BASELINE_SEEDS = (1, 2, 3, 4, 5, 6)
SEARCH_SEEDS = (1, 2)
SEARCH_CONTROL = TimeControl(move_ms=100, bank_ms=300, first_move_ms=0, startup_ms=10_000)
"""No first-move allowance, and a bank of three decisions' time per match for a loaded
machine's delays: a decision that overran move_ms by more than what is left of it is a
timeout fault."""
MEAN_SHARE = 0.75
"""The search bot thinks for at most 60% of move_ms (less 5 ms) of CPU: its mean CPU a
decision, reading and replying included, must stay under this share of it."""
TABLE = ("{bot}", "random", "tracker", "survival", "random")
"""Seats of the processes opened per test: a table of k players takes the first k, rotated.
Every bot here loads the rules engine before it answers hello, so no first move needs
extra time."""
WIDOW_TABLE = ("{bot}", "random", "{bot}", "random", "random")
"""The same for the widow family, which the baselines do not play: two search bots."""


def _check(result: MatchResult, players: int) -> None:
    assert result.faults == [], result.faults
    placements = result.outcome.placements
    assert sorted(placements)[0] == 1 and all(1 <= p <= players for p in placements), placements


async def _play(
    name: str, variants: tuple[str, ...], table: tuple[str, ...], seeds: tuple[int, ...], control: TimeControl
) -> list[tuple[str, int, MatchResult]]:
    manifests = [find_bot(entry.format(bot=name)) for entry in table]
    assert all(find_bot(name).plays(v) for v in variants)
    results = []
    async with open_bots(manifests, time_control=control) as bots:
        assert all(isinstance(bot, Bot) for bot in bots), bots
        for index, variant in enumerate(variants):
            for seed in seeds:
                players = 2 + (seed + index) % 4
                shift = seed % players
                table = bots[:players][shift:] + bots[:players][:shift]
                result = await play_match(get_variant(variant), table, seed=seed, time_control=control,
                                          match_id=f"{variant}-{seed}")
                results.append((variant, players, result))
    return results


def _seats_of(name: str, result: MatchResult) -> list[int]:
    label = find_bot(name).label
    return [seat for seat, bot in enumerate(result.bots) if bot == label]


@pytest.mark.parametrize("name", ["survival", "tracker"])
def test_baseline_plays_every_scat_variant_without_faults(name: str) -> None:
    results = trio.run(_play, name, SCAT_FAMILY, TABLE, BASELINE_SEEDS, TimeControl(move_ms=500, bank_ms=2000))
    assert len(results) == len(SCAT_FAMILY) * len(BASELINE_SEEDS)
    for variant, players, result in results:
        _check(result, players)
        assert any(result.timings[s].decisions for s in _seats_of(name, result)), (variant, result.bots)


def test_baselines_play_schwimmen_without_faults() -> None:
    """threshold, survival and tracker carry their rules over to Schwimmen (tables of 2 to 5)."""
    table = ("threshold", "survival", "tracker", "heuristic", "random")
    control = TimeControl(move_ms=500, bank_ms=2000)
    results = trio.run(_play, "threshold", ("schwimmen",), table, BASELINE_SEEDS, control)
    for _, players, result in results:
        _check(result, players)
    for name in ("threshold", "survival", "tracker"):
        assert find_bot(name).plays("schwimmen")
        assert sum(result.timings[s].decisions for _, _, result in results for s in _seats_of(name, result)) > 0


@pytest.mark.parametrize(("variants", "table"), [(SCAT_FAMILY, TABLE), (WIDOW_FAMILY, WIDOW_TABLE)])
def test_search_bot_plays_every_variant_within_its_time(variants: tuple[str, ...], table: tuple[str, ...]) -> None:
    """Through the referee, with a bank of three moves: no decision is charged more than its
    time (a bot that ignored its budget would use the bank up at once and time out), and
    where the sandbox counts the bot's CPU the bot used on average well under ``move_ms``
    of it (it plans on 60%).  Each decision's CPU time is checked in test_ismcts_time.py."""
    results = trio.run(_play, "ismcts", variants, table, SEARCH_SEEDS, SEARCH_CONTROL)
    move_s = SEARCH_CONTROL.move_ms / 1000
    decisions = 0
    cpu_s = 0.0
    for _, players, result in results:
        _check(result, players)  # no timeout: no decision was charged more than move_ms and the bank
        for seat in _seats_of("ismcts", result):
            timing = result.timings[seat]
            decisions += timing.decisions
            cpu_s += timing.cpu_s
    assert decisions > 20 * len(variants)
    if cpu_s > 0:  # the sandbox counts the bot's CPU: what the bot used, whatever the machine's load
        assert cpu_s / decisions <= MEAN_SHARE * move_s, f"{1000 * cpu_s / decisions:.0f} ms of CPU a decision"
