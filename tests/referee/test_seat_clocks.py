"""Seats with their own time control, and matches abandoned from outside the table.

A person's seat plays the same referee as the bots at its table, under its own (long) clock,
and a person who leaves stops the match: both are general referee features, tested here
with real bot processes.
"""

from __future__ import annotations

import trio
from faulty import MATCH_TIMEOUT_S, SCAT, manifest

from arena.referee import Abandon, Bot, FaultKind, MatchResult, TimeControl, open_bots, play_match

LONG = TimeControl(move_ms=60_000, bank_ms=0, first_move_ms=0, startup_ms=5000)
SHORT = TimeControl(move_ms=300, bank_ms=0, first_move_ms=0, startup_ms=5000)


def test_a_seat_plays_under_its_own_clock() -> None:
    """The ``slow`` bot overruns, on its 3rd decision, whatever time its ``match_start``
    gave it: so it was told its seat's clock, and the referee held it to that one."""

    async def main() -> MatchResult:
        with trio.fail_after(MATCH_TIMEOUT_S):
            async with open_bots([manifest("random"), manifest("slow")], time_control=LONG) as bots:
                return await play_match(SCAT, bots, seed=3, time_control=LONG, seat_time={1: SHORT})

    result = trio.run(main)
    assert [(f.seat, f.kind) for f in result.faults] == [(1, FaultKind.TIMEOUT)]
    assert "no answer within 300 ms" in result.faults[0].detail
    assert result.outcome.placements == (1, 2)


def test_an_abandoned_match_stops_at_once_and_keeps_what_was_played() -> None:
    """The ``hang`` bot never answers its 3rd decision and its clock is a minute long: the
    match stops when abandoned, with no fault of anyone's, and its log and outcome say so."""
    abandon = Abandon()

    async def main() -> MatchResult:
        with trio.fail_after(MATCH_TIMEOUT_S):
            async with open_bots([manifest("random"), manifest("hang")], time_control=LONG) as bots:
                async with trio.open_nursery() as nursery:
                    async def leave() -> None:
                        await trio.sleep(0.5)
                        abandon("the operator stopped it")

                    nursery.start_soon(leave)
                    result = await play_match(SCAT, bots, seed=3, time_control=LONG, abandon=abandon)
                alive = [bot.alive for bot in bots if isinstance(bot, Bot)]
                assert alive == [True, True]  # the caller closes them, as after any match
                return result

    result = trio.run(main)
    assert result.outcome.reason == "abandoned: the operator stopped it"
    assert result.outcome.placements == (1, 1)
    assert result.faults == []
    assert result.duration_s < 10
    assert result.log[-1] == {"event": "match_end", **result.outcome.to_dict()}
    played = [e for e in result.log if e["event"] == "action"]
    assert played and result.decisions == len(played) + 1  # the hanging decision was asked, never applied


def test_abandoning_before_play_still_records_the_deal() -> None:
    abandon = Abandon()
    abandon("nobody came")

    async def main() -> MatchResult:
        async with open_bots([manifest("random"), manifest("random")], time_control=LONG) as bots:
            return await play_match(SCAT, bots, seed=3, time_control=LONG, abandon=abandon)

    result = trio.run(main)
    assert result.outcome.reason == "abandoned: nobody came"
    assert [e["event"] for e in result.log][:2] == ["round_start", "deal"]
    assert result.decisions == 0
