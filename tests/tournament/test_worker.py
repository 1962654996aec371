"""The referee worker's table loop, with real bot processes: a bot kept alive across a
long table is started again before its lifetime CPU limit could kill it mid-match."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from arena.botspec import load_manifest
from arena.referee import TimeControl, open_bots, play_match
from arena.rules import get_variant
from arena.sandbox import Limits, Sandbox
from arena.tournament.worker import BotRef, MatchJob, Played, TableDone, TableJob, _play_table

SPINNER = Path(__file__).resolve().parent / "bots" / "spinner"
MATCHES = 8
"""Matches of the table: 8 x 0.3 s of the spinner's CPU, more than twice its 1 s limit."""
LIMIT = Limits(cpu_seconds=1)


def table() -> TableJob:
    return TableJob(
        id="long", variant="scat", options={}, bots=[BotRef("spinner", str(SPINNER)), BotRef("random", None)],
        matches=[MatchJob(f"long-{n}", seed=n, seats=[0, 1] if n % 2 else [1, 0]) for n in range(MATCHES)],
        time=TimeControl().to_dict(), policy="forfeit", strikes=3,
    )


def test_one_spinner_process_reaches_its_cpu_limit_within_the_table() -> None:
    """The control: the same matches with one process for the whole table crash it."""
    variant = get_variant("scat")

    async def main() -> list[str]:
        kinds: list[str] = []
        manifests = [load_manifest(SPINNER), load_manifest(SPINNER.parents[3] / "bots" / "random")]
        async with open_bots(manifests, sandbox=Sandbox(LIMIT)) as bots:
            for match in table().matches:
                result = await play_match(variant, [bots[i] for i in match.seats], seed=match.seed)
                kinds += [f.kind for f in result.faults]
                if kinds:
                    break
        return kinds

    assert trio.run(main) == ["crash"]


def test_a_long_table_restarts_a_bot_before_its_cpu_limit_and_plays_every_match_without_fault() -> None:
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    trio.run(_play_table, table(), Sandbox(LIMIT), send)
    played = [m for m in sent if isinstance(m, Played)]
    assert [m.id for m in played] == [f"long-{n}" for n in range(MATCHES)]
    assert [f for m in played for f in m.faults] == []
    assert isinstance(sent[-1], TableDone)
    spinner_think = [m.seat_think_s[1 if n % 2 == 0 else 0] for n, m in enumerate(played)]
    assert sum(spinner_think) > 2 * LIMIT.cpu_seconds  # more than one process could have spent
