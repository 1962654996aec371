"""The protocol as the referee speaks it, checked line by line by a scripted peer, and the
strict decoding of what bots send.

The scripted peer (``bots/scripted/bot.py``, in the style of python-chess's mock engine)
is a raw protocol speaker that reads a JSON script: each step a pattern the referee's
next line must match and the replies to send.  It fails the match (exit 7, its reason
on stderr, which the referee records as a crash) at the first unexpected line, reports
``MATCH OK {summary}`` on stderr at each ``match_end`` and exits 0 only once the whole
script, down to ``bye``, has been played.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import trio
from faulty import BOTS, FAST, SCAT, assert_gone, manifest, play, scripted_bot

from arena.protocol import MAX_LINE, PROTOCOL_VERSION, ActionReply, BotHello, ProtocolError, decode_bot_message
from arena.referee import Bot, FaultPolicy, MatchResult, TimeControl, open_bots, play_match

SCRIPT = json.loads((BOTS / "scripted" / "script.json").read_text(encoding="utf-8"))
SCRIPT_TC = TimeControl(move_ms=1000, bank_ms=2000, first_move_ms=3000, startup_ms=5000)
"""The time control ``script.json`` expects in ``match_start``."""
OPTIONS = {"lives": 1, "free_ride": False}

HELLO, MATCH_START, DECIDES, MATCH_END, BYE = SCRIPT


def summaries(stderr: str) -> list[dict[str, Any]]:
    """The scripted bot's ``MATCH OK`` reports, in order."""
    return [json.loads(m) for m in re.findall(r"^MATCH OK (.*)$", stderr, re.M)]


def request_ids(result: MatchResult, seat: int) -> list[int]:
    """The ``decide`` ids ``seat`` must have been sent: requests count every seat's decisions."""
    actions = [e for e in result.log if e["event"] == "action"]
    assert len(actions) == result.decisions, "every decision is one action event"
    return [i for i, e in enumerate(actions, 1) if e["seat"] == seat]


def check_scripted(result: MatchResult, stderr: str) -> dict[str, Any]:
    assert result.faults == [], f"the scripted bot objected: {[f.detail for f in result.faults]}"
    assert "SCRIPT FAIL" not in stderr, stderr
    reports = summaries(stderr)
    assert len(reports) == 1, stderr[-2000:]
    return reports[0]


def test_referee_sends_the_documented_sequence_and_shapes() -> None:
    """hello (protocol 1) first; match_start with match_id, variant, options, seat, players
    and the time control; decide requests (increasing ids, observation, legal strings,
    time_left_ms, events); match_end with outcome and events; bye."""
    played = play(
        [manifest("scripted"), manifest("random")],
        seed=3, options=OPTIONS, match_id="proto-1", time_control=SCRIPT_TC,
        wait_for_stderr={0: (b"MATCH OK", b"SCRIPT FAIL")},
    )
    result = played.result
    bot = played.bots[0]
    assert isinstance(bot, Bot)
    report = check_scripted(result, played.stderr[0])
    assert report["ids"] == request_ids(result, 0)
    assert report["first_time_left_ms"] == 1000 + 3000 + 2000  # move + first move + bank
    assert report["events"] == len(result.log), "the seat must be shown every event of the match"
    # the bot got bye after match_end, matched it as the script's last step and exited 0
    assert bot.sandboxed.process.returncode == 0, played.stderr[0][-2000:]
    assert_gone(played.after_close[0], "scripted")


def test_time_left_ms_is_exact(tmp_path: Path) -> None:
    """``time_left_ms`` is the documented total: move_ms + first_move_ms + bank_ms for a
    seat's first decision, move_ms + bank_ms after."""
    script = copy.deepcopy(SCRIPT)
    script[1]["expect"]["time"] = FAST.to_dict()
    first = copy.deepcopy(DECIDES)
    first.pop("repeat")
    first["expect"]["time_left_ms"] = FAST.move_ms + FAST.first_move_ms + FAST.bank_ms
    later = copy.deepcopy(DECIDES)
    later["expect"]["time_left_ms"] = FAST.move_ms + FAST.bank_ms
    later["min"] = 0
    script[2:3] = [first, later]
    played = play(
        [scripted_bot(tmp_path, script), manifest("random")],
        seed=3, options=OPTIONS, match_id="proto-1", time_control=FAST,
        wait_for_stderr={0: (b"MATCH OK", b"SCRIPT FAIL")},
    )
    assert played.result.faults == [], f"time_left_ms: {[f.detail for f in played.result.faults]}"


def test_a_bot_process_plays_two_matches_in_a_row(tmp_path: Path) -> None:
    """match_start ... match_end twice on one process, each match's ids from its own start."""
    script = [HELLO]
    for match_id in ("first", "second"):
        start = copy.deepcopy(MATCH_START)
        start["expect"]["match_id"] = match_id
        end = copy.deepcopy(MATCH_END)
        end["expect"]["match_id"] = match_id
        script += [start, DECIDES, end]
    script.append(BYE)
    scripted = scripted_bot(tmp_path, script)

    async def main() -> tuple[Bot, list[MatchResult], str]:
        async with open_bots([scripted, manifest("random")], time_control=SCRIPT_TC) as bots:
            bot = bots[0]
            assert isinstance(bot, Bot)
            results = []
            for seed, match_id in ((1, "first"), (2, "second")):
                results.append(await play_match(
                    SCAT, bots, seed=seed, options=OPTIONS, match_id=match_id, time_control=SCRIPT_TC,
                ))
            with trio.move_on_after(5):
                while bot.stderr_tail.count(b"MATCH OK") < 2 and b"SCRIPT FAIL" not in bot.stderr_tail:
                    await trio.sleep(0.01)
            stderr = bot.stderr_text(100_000)
        return bot, results, stderr

    bot, results, stderr = trio.run(main)
    assert [r.faults for r in results] == [[], []], stderr[-2000:]
    reports = summaries(stderr)
    assert [r["ids"] for r in reports] == [request_ids(r, 0) for r in results]
    assert [r["events"] for r in reports] == [len(r.log) for r in results]
    assert bot.sandboxed.process.returncode == 0, stderr[-2000:]


def test_substitute_policy_sends_an_error_before_the_next_request(tmp_path: Path) -> None:
    """Under ``substitute`` an illegal answer is followed by an ``error`` message (and no
    reply is expected to it), then the match goes on."""
    fly = copy.deepcopy(DECIDES)
    fly.pop("repeat")
    fly["reply"] = [{"type": "action", "id": "$id", "action": "fly"}]
    error = {"expect": {"type": "error", "message": "<str>"}}
    rest = copy.deepcopy(DECIDES)
    rest["min"] = 0
    script = [HELLO, MATCH_START, fly, error, rest, MATCH_END, BYE]

    async def main() -> tuple[Bot, MatchResult, str]:
        async with open_bots([scripted_bot(tmp_path, script), manifest("random")], time_control=SCRIPT_TC) as bots:
            bot = bots[0]
            assert isinstance(bot, Bot)
            result = await play_match(
                SCAT, bots, seed=3, options=OPTIONS, match_id="proto-1", time_control=SCRIPT_TC,
                policy=FaultPolicy("substitute", strikes=3),
            )
            with trio.move_on_after(5):
                while b"MATCH OK" not in bot.stderr_tail and b"SCRIPT FAIL" not in bot.stderr_tail:
                    await trio.sleep(0.01)
            stderr = bot.stderr_text(100_000)
        return bot, result, stderr

    bot, result, stderr = trio.run(main)
    assert [(f.seat, f.kind, f.penalty) for f in result.faults] == [(0, "illegal_action", "substituted")], stderr
    assert "SCRIPT FAIL" not in stderr
    assert len(summaries(stderr)) == 1
    assert bot.sandboxed.process.returncode == 0, stderr[-2000:]


def test_a_bot_put_out_is_told_why_before_bye(tmp_path: Path) -> None:
    """Under ``forfeit`` an illegal answer puts the bot out: an ``error``, then ``bye``, and
    no ``match_end``; the scripted bot exits 0 only if that is what it read, in order."""
    fly = copy.deepcopy(DECIDES)
    fly.pop("repeat")
    fly["reply"] = [{"type": "action", "id": "$id", "action": "fly"}]
    error = {"expect": {"type": "error", "message": "<str>"}}
    script = [HELLO, MATCH_START, fly, error, BYE]

    async def main() -> tuple[Bot, MatchResult]:
        # a long grace: the bot is killed only once it has read its bye and exited
        async with open_bots([scripted_bot(tmp_path, script), manifest("random")], time_control=SCRIPT_TC,
                             grace_s=60) as bots:
            bot = bots[0]
            assert isinstance(bot, Bot)
            result = await play_match(SCAT, bots, seed=3, options=OPTIONS, match_id="proto-1",
                                      time_control=SCRIPT_TC)
            assert not bot.alive
        return bot, result

    bot, result = trio.run(main)
    fault, = result.faults
    assert (fault.seat, fault.kind, fault.penalty) == (0, "illegal_action", "forfeit")
    stderr = bot.stderr_text(100_000)
    assert "SCRIPT FAIL" not in stderr, stderr[-2000:]
    assert bot.sandboxed.process.returncode == 0, stderr[-2000:]


# ---------------------------------------------------------------------------------------
# decode_bot_message


def test_decodes_a_valid_hello() -> None:
    message = decode_bot_message(b'{"type":"hello","name":"random","version":"1.0.0","protocol":1}')
    assert message == BotHello(name="random", version="1.0.0", protocol=PROTOCOL_VERSION)


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"action","id":3,"action":"knock"}',
        b'{"action":"knock","id":3,"type":"action"}',  # any key order
        b'  {"type": "action", "id": 3, "action": "knock"}  ',  # whitespace around
        b'{"type":"action","id":3,"action":"knock"}\n',  # a trailing newline
    ],
)
def test_decodes_a_valid_action(line: bytes) -> None:
    assert decode_bot_message(line) == ActionReply(id=3, action="knock")


def test_decodes_unicode_action_text() -> None:
    line = '{"type":"action","id":1,"action":"caf\u00e9 \u2660"}'.encode()
    assert decode_bot_message(line) == ActionReply(id=1, action="caf\u00e9 \u2660")


def test_decodes_a_line_of_max_line_bytes() -> None:
    line = b'{"type":"action","id":1,"action":"draw"}'
    assert decode_bot_message(line + b" " * (MAX_LINE - len(line))) == ActionReply(id=1, action="draw")


INVALID = {
    # unknown fields
    "unknown field in action": b'{"type":"action","id":1,"action":"draw","comment":"hi"}',
    "unknown field in hello": b'{"type":"hello","name":"a","version":"1","protocol":1,"extra":true}',
    # wrong types
    "id as string": b'{"type":"action","id":"1","action":"draw"}',
    "id as float": b'{"type":"action","id":1.0,"action":"draw"}',
    "id as bool": b'{"type":"action","id":true,"action":"draw"}',
    "action as number": b'{"type":"action","id":1,"action":42}',
    "action as null": b'{"type":"action","id":1,"action":null}',
    "action as list": b'{"type":"action","id":1,"action":["draw"]}',
    "protocol as string": b'{"type":"hello","name":"a","version":"1","protocol":"1"}',
    "name as null": b'{"type":"hello","name":null,"version":"1","protocol":1}',
    # missing fields
    "action without id": b'{"type":"action","action":"draw"}',
    "action without action": b'{"type":"action","id":1}',
    "hello without version": b'{"type":"hello","name":"a","protocol":1}',
    "no type": b'{"id":1,"action":"draw"}',
    # types a bot may not send
    "unknown type": b'{"type":"fold","id":1}',
    "referee-only type bye": b'{"type":"bye"}',
    "referee-only type decide": b'{"type":"decide","id":1,"observation":{},"legal":[],"time_left_ms":1}',
    "type as number": b'{"type":1,"id":1,"action":"draw"}',
    # not a JSON object
    "not JSON": b"this is not JSON",
    "truncated JSON": b'{"type":"action","id":1,',
    "trailing characters": b'{"type":"action","id":1,"action":"draw"}{}',
    "two messages on one line": b'{"type":"action","id":1,"action":"draw"}\n{"type":"action","id":2,"action":"draw"}',
    "JSON array": b'[{"type":"action","id":1,"action":"draw"}]',
    "JSON string": b'"hello"',
    "JSON null": b"null",
    "empty line": b"",
    "single quotes": b"{'type':'action','id':1,'action':'draw'}",
    # not UTF-8
    "bare non-UTF-8 bytes": b"\xff\xfe\xfd",
    "invalid UTF-8 in a string": b'{"type":"action","id":1,"action":"dr\xffaw"}',
    "truncated UTF-8 sequence in a string": b'{"type":"action","id":1,"action":"\xc3("}',
    "UTF-16 surrogate as UTF-8 in a string": b'{"type":"hello","name":"\xed\xa0\x80","version":"1","protocol":1}',
    "lone surrogate escape": b'{"type":"action","id":1,"action":"draw\\ud800"}',
    "UTF-8 BOM": b'\xef\xbb\xbf{"type":"action","id":1,"action":"draw"}',
}


@pytest.mark.parametrize("line", list(INVALID.values()), ids=list(INVALID))
def test_rejects_invalid_lines_with_protocol_error(line: bytes) -> None:
    with pytest.raises(ProtocolError, match="invalid message"):
        decode_bot_message(line)


def test_protocol_error_says_what_is_wrong() -> None:
    with pytest.raises(ProtocolError, match="comment"):
        decode_bot_message(b'{"type":"action","id":1,"action":"draw","comment":"hi"}')
    with pytest.raises(ProtocolError, match=r"\$\.id"):
        decode_bot_message(b'{"type":"action","id":"1","action":"draw"}')
    with pytest.raises(ProtocolError, match="id"):
        decode_bot_message(b'{"type":"action","action":"draw"}')
