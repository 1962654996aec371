"""The referee worker's table loop, with real bot processes: each seat rotation is played
by bot processes of its own (no process sees a deal twice), and a bot kept alive across a
long table is started again before its lifetime CPU limit could kill it mid-match."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from arena.botspec import load_manifest
from arena.deals import deal_key
from arena.referee import Bot, FaultPolicy, TimeControl, open_bots, play_match
from arena.rules import get_variant
from arena.sandbox import Limits, Sandbox
from arena.tournament import worker
from arena.tournament.jobs import BotRef, MatchSpec, Played, TableDone, TableJob
from arena.tournament.scheduler import rotation_matches
from arena.tournament.worker import _play_table

SPINNER = Path(__file__).resolve().parent / "bots" / "spinner"
MATCHES = 8
"""Matches of the table: 8 x 0.3 s of the spinner's CPU, more than twice its 1 s limit."""
LIMIT = Limits(cpu_seconds=1)


def table() -> TableJob:
    return TableJob(
        id="long", variant="scat", options={}, bots=[BotRef("spinner", str(SPINNER)), BotRef("random", None)],
        matches=[MatchSpec(f"long-{n}", n, deal_key(b"k" * 32, n), (0, 1) if n % 2 else (1, 0), n, 0, f"p{n}")
                 for n in range(MATCHES)],
        time=TimeControl(), policy=FaultPolicy(),
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


def test_each_rotation_is_played_by_processes_that_never_saw_its_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process kept for every rotation of a deal remembers the cards of the earlier ones
    (it predicted 61 of 61 stock cards): each generation gets processes of its own, and the
    previous generation's are gone before they start."""
    key = b"g" * 32
    specs = rotation_matches(key, "gen", "scat", 3, [0, 1], 0)
    job = TableJob(id="gen", variant="scat", options={},
                   bots=[BotRef("random", None), BotRef("threshold", None), BotRef("random", None)],
                   matches=list(specs), time=TimeControl(), policy=FaultPolicy())
    seen: dict[int, set[bytes]] = {}  # bot process -> the deals it played
    launched: list[tuple[int, set[int]]] = []  # (its pid, earlier processes still alive at its launch)
    real_play = worker.play_match

    async def watched(variant: Any, bots: list[Bot], **kwargs: Any) -> Any:
        for bot in bots:
            if bot.sandboxed.pid not in seen:
                launched.append((bot.sandboxed.pid, {pid for pid in seen if _alive(pid)}))
            seen.setdefault(bot.sandboxed.pid, set())
            assert kwargs["seed"] not in seen[bot.sandboxed.pid], "a process was dealt a deal it had seen"
            seen[bot.sandboxed.pid].add(kwargs["seed"])
        return await real_play(variant, bots, **kwargs)

    monkeypatch.setattr(worker, "play_match", watched)
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    trio.run(_play_table, job, trio.run(Sandbox.probe), send)
    assert [m.id for m in sent if isinstance(m, Played)] == [m.id for m in specs]
    assert len(seen) == 3 * 3, "three generations of three processes"
    assert all(len(deals) == 2 for deals in seen.values())  # each plays its rotation of both deals
    generations = [launched[i:i + 3] for i in range(0, 9, 3)]
    for earlier, later in zip(generations, generations[1:]):
        for _, alive in later:
            assert not alive & {pid for pid, _ in earlier}, "a generation started before the last was gone"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().split(b") ", 1)[1][:1] not in (b"Z", b"X")
    except OSError:
        return False


def test_a_registered_copy_that_no_longer_loads_forfeits_its_seat_and_the_table_plays_on(tmp_path: Path) -> None:
    """A version whose copy's bot.toml does not load (a build that rewrote it, an entry left
    out of the copy) made the worker raise at the table's start: the worker died, then the
    next, and the table was given up ("3 referee workers died") for every bot seated with
    it.  Its seat now forfeits every match with a start-up fault, and the others play."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text("name = [\n", encoding="utf-8")
    job = TableJob(id="broken", variant="scat", options={},
                   bots=[BotRef("broken", str(broken)), BotRef("random", None), BotRef("random", None)],
                   matches=list(rotation_matches(b"b" * 32, "broken", "scat", 3, [0], 0)),
                   time=TimeControl(), policy=FaultPolicy())
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    trio.run(_play_table, job, Sandbox(), send)
    played = [m for m in sent if isinstance(m, Played)]
    assert [m.id for m in played] == [m.id for m in job.matches]
    for match, spec in zip(played, job.matches):
        seat = spec.seats.index(0)
        [fault] = match.faults
        assert (fault["seat"], fault["kind"], fault["penalty"]) == (seat, "startup", "forfeit")
        assert "its registered copy does not load" in fault["detail"] and str(broken) not in fault["detail"]
        assert match.outcome.placements[seat] == max(match.outcome.placements)  # out first: last place
    assert isinstance(sent[-1], TableDone)
