"""The referee survives every kind of bot misbehaviour.

Each test plays a real ``scat`` match with a misbehaving bot (``tests/referee/bots/``) in
one seat and the bundled ``random`` bot in the others, then checks the fault record, that
the other seats played on to a normal end, and that nothing of the faulty bot is left:
no process (its own, its process group, its session, anything working in its scratch
folder) and no scratch folder.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio
from faulty import (
    FAST,
    SCAT,
    assert_gone,
    assert_went_on,
    manifest,
    pid_alive,
    play,
    processes,
    scripted_bot,
    seats,
    variant_bot,
)

from arena.protocol import MAX_LINE
from arena.referee import STDERR_KEEP, Bot, BotFault, FaultPolicy, TimeControl, open_bots, play_match
from arena.sandbox import Sandbox

SEAT = 1
"""The faulty bot's seat (of 4)."""

FORFEIT_CASES = [
    # bot folder, fault kind, fragments the detail must contain
    ("crash", "crash", ["exited with status 1", "RuntimeError: boom: deliberate crash on decision 3"]),
    ("crash_exit", "crash", ["exited with status 3"]),  # its stderr: test_crash_detail_always_has_...
    ("hang", "timeout", ["no answer within 2200 ms"]),
    ("slow", "timeout", ["no answer within 2200 ms"]),
    ("garbage", "malformed", ["this is not JSON {at all", "debug output belongs on stderr"]),
    ("unknown_field", "malformed", ["comment"]),
    ("wrong_type", "malformed", ["str", "int"]),
    ("oversized_line", "oversized", ["100000", "65536"]),
    ("oversized_flood", "oversized", ["longer than 65536"]),
    ("bad_utf8", "malformed", ["\\xff"]),
    ("wrong_id", "wrong_id", []),  # detail checked in the test: it depends on the request id
    ("illegal", "illegal_action", ["'fly'", "not one of"]),
    ("close_stdout", "closed_stdout", ["closed its stdout"]),
    ("grandchild_same_group", "crash", ["exited with status 1", "crashing with a child left behind"]),
]


def check_forfeit(bot: str, kind: str, fragments: list[str], players: int = 4) -> None:
    played = play(seats(bot, SEAT, players))
    result = played.result
    assert len(result.faults) == 1, result.faults
    fault = result.faults[0]
    assert (fault.seat, fault.kind, fault.penalty) == (SEAT, kind, "forfeit"), fault
    assert fault.bot == manifest(bot).label
    for fragment in fragments:
        assert fragment in fault.detail, f"{fragment!r} not in detail {fault.detail!r}"
    if kind == "wrong_id":
        assert fault.detail == f"answered request {fault.decision + 1}, expected {fault.decision}"

    # it misbehaved on its 3rd decision, after two normal ones; decisions are numbered from 1
    assert result.timings[SEAT].decisions == 3
    forfeit = played.forfeit_index(SEAT)
    actions_before = [e for e in result.log[:forfeit] if e["event"] == "action"]
    assert [e["seat"] for e in actions_before].count(SEAT) == 2
    assert fault.decision == len(actions_before) + 1
    assert_went_on(played, SEAT)

    # killed by play_match itself, not only when open_bots closes; the others are still alive
    assert_gone(played.after_match[SEAT], f"{bot} right after the match")
    for seat, seen in enumerate(played.after_match):
        if seat != SEAT:
            assert seen is not None and seen.pid_alive, f"seat {seat} (random) was killed"
    for seat, seen in enumerate(played.after_close):
        assert_gone(seen, f"seat {seat} after open_bots closed")


@pytest.mark.parametrize(("bot", "kind", "fragments"), FORFEIT_CASES, ids=[c[0] for c in FORFEIT_CASES])
def test_fault_forfeits_the_seat_and_the_match_goes_on(bot: str, kind: str, fragments: list[str]) -> None:
    check_forfeit(bot, kind, fragments)


def test_fault_in_a_two_player_match_ends_it_for_the_other() -> None:
    played = play(seats("crash", 0, 2))
    result = played.result
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "crash")]
    assert result.outcome.placements == (2, 1)
    assert result.outcome.reason == "every other player forfeited"
    assert_gone(played.after_match[0], "crash")


def test_crash_detail_always_has_the_stderr_tail() -> None:
    """The bot writes a line to stderr, then exits at once (``os._exit``): the crash detail
    must always carry that line.  Twelve matches run at once, to catch a race between
    noticing the exit and draining the bot's stderr."""
    runs = 12

    async def one(details: list[str]) -> None:
        async with open_bots([manifest("crash_exit"), manifest("random")], time_control=FAST) as bots:
            result = await play_match(SCAT, bots, seed=7, time_control=FAST)
            details += [f.detail for f in result.faults]

    async def main() -> list[str]:
        details: list[str] = []
        async with trio.open_nursery() as nursery:
            for _ in range(runs):
                nursery.start_soon(one, details)
        return details

    details = trio.run(main)
    assert len(details) == runs
    assert all(d.startswith("exited with status 3") for d in details), details
    missing = [d for d in details if "crash-exit: leaving with status 3" not in d]
    assert not missing, f"{len(missing)} of {runs} crash details lack the bot's last stderr line: {missing[0]!r}"


# ---------------------------------------------------------------------------------------
# Grandchildren


def _grandchild_pid(stderr: str) -> int:
    found = re.search(r"grandchild: started pid (\d+)", stderr)
    assert found, f"the bot did not report its child: {stderr[-500:]!r}"
    return int(found.group(1))


def test_child_in_the_bots_process_group_is_killed_with_it() -> None:
    played = play(seats("grandchild_same_group", SEAT, 4))
    assert [(f.seat, f.kind) for f in played.result.faults] == [(SEAT, "crash")]
    child = _grandchild_pid(played.stderr[SEAT])
    assert_gone(played.after_match[SEAT], "grandchild-same-group right after the match")
    assert not pid_alive(child)


def test_child_in_its_own_process_group_is_killed_with_the_bot() -> None:
    """A child that moved to a process group of its own (``process_group=0``, still in the
    bot's session: not ``setsid``) must die with the bot; the sandbox kills only the bot's
    process group."""
    played = play(seats("grandchild", SEAT, 4))
    result = played.result
    assert [(f.seat, f.kind, f.penalty) for f in result.faults] == [(SEAT, "crash", "forfeit")]
    assert "crashing with a child left behind" in result.faults[0].detail
    assert_went_on(played, SEAT)
    child = _grandchild_pid(played.stderr[SEAT])
    bot = played.bots[SEAT]
    assert isinstance(bot, Bot)
    assert_gone(played.after_match[SEAT], f"grandchild right after the match (child pid {child})")
    assert_gone(played.after_close[SEAT], f"grandchild after open_bots closed (child pid {child})")


# ---------------------------------------------------------------------------------------
# Substitute policy


SUBSTITUTE_TC = TimeControl(move_ms=500, bank_ms=0, first_move_ms=500, startup_ms=3000)
"""No bank: every decision has 500 ms, so a reply 250 ms late lands well before the next deadline."""


def test_substitute_plays_random_legal_actions_then_disqualifies_on_the_third_strike() -> None:
    played = play(seats("illegal", SEAT, 4), policy=FaultPolicy("substitute", strikes=3))
    result = played.result
    assert [(f.seat, f.kind, f.penalty) for f in result.faults] == [
        (SEAT, "illegal_action", "substituted"),
        (SEAT, "illegal_action", "substituted"),
        (SEAT, "illegal_action", "disqualified"),
    ]
    decisions = [f.decision for f in result.faults]
    assert decisions == sorted(set(decisions))
    assert all("'fly'" in f.detail for f in result.faults)
    # decisions 1-2 normal, 3-4 substituted (legal actions in the log), 5 disqualified
    assert result.timings[SEAT].decisions == 5
    forfeit = played.forfeit_index(SEAT)
    own = [e for e in result.log[:forfeit] if e["event"] == "action" and e["seat"] == SEAT]
    assert len(own) == 4
    assert all(e["action"] != "fly" for e in own)
    # the bot was told: the bot host prints the referee's error messages to stderr
    assert played.stderr[SEAT].count("a random legal action was played") == 2
    assert_went_on(played, SEAT)
    assert_gone(played.after_match[SEAT], "illegal after disqualification")


@pytest.mark.parametrize(
    ("bot", "kind"),
    [
        ("slow", "timeout"),
        ("garbage", "malformed"),
        ("unknown_field", "malformed"),
        ("wrong_type", "malformed"),
        ("wrong_id", "wrong_id"),
        ("oversized_line", "oversized"),
    ],
)
def test_substitute_one_strike_then_the_bot_plays_on(bot: str, kind: str) -> None:
    """One fault on decision 3 costs one strike; from decision 4 the bot answers normally.

    For ``slow`` this checks that the reply arriving after its timeout is skipped, not
    taken as the answer to (or a ``wrong_id`` for) the next request.  For
    ``oversized_line`` the bot sent one complete (newline-ended) line that was too long:
    it must be dropped, not read again for every later request."""
    played = play(
        seats(bot, SEAT, 4), policy=FaultPolicy("substitute", strikes=3), time_control=SUBSTITUTE_TC, seed=11
    )
    result = played.result
    assert [(f.seat, f.kind, f.penalty) for f in result.faults] == [(SEAT, kind, "substituted")], result.faults
    assert result.timings[SEAT].decisions > 4, "the bot did not get to play on"
    assert not any(e["event"] == "forfeit" for e in result.log)
    assert result.log[-1]["event"] == "match_end"
    assert "forfeit" not in result.outcome.reason
    seen = played.after_match[SEAT]
    assert seen is not None and seen.pid_alive, "a substituted bot must stay alive"
    if bot == "slow":
        assert "slow: late reply to decision 3" in played.stderr[SEAT]


def test_substitute_crash_disqualifies_at_once() -> None:
    played = play(seats("crash", SEAT, 4), policy=FaultPolicy("substitute", strikes=3))
    result = played.result
    assert [(f.seat, f.kind, f.penalty) for f in result.faults] == [(SEAT, "crash", "disqualified")]
    assert result.timings[SEAT].decisions == 3
    assert_went_on(played, SEAT)
    assert_gone(played.after_match[SEAT], "crash under substitute")


def test_substitute_closed_stdout_disqualifies_at_once() -> None:
    played = play(seats("close_stdout", SEAT, 4), policy=FaultPolicy("substitute", strikes=3))
    assert [(f.seat, f.kind, f.penalty) for f in played.result.faults] == [(SEAT, "closed_stdout", "disqualified")]
    assert_went_on(played, SEAT)
    assert_gone(played.after_match[SEAT], "close_stdout under substitute")


# ---------------------------------------------------------------------------------------
# Start-up faults


def _startup_case(name: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    if name == "crash_at_start":
        return manifest("crash_at_start"), FAST, ["exited with status 4", "refusing to say hello"]
    if name == "silent_start":
        return manifest("silent_start"), TimeControl(200, 200, 500, startup_ms=500), ["no hello within 0.5 s"]
    if name == "no_such_command":
        (tmp_path / "bot.toml").write_text(
            'name = "ghost"\nversion = "1.0.0"\ncommand = ["definitely-not-a-command-31"]\n', encoding="utf-8"
        )
        from arena.botspec import load_manifest

        return load_manifest(tmp_path), FAST, ["is not a program the sandbox has", "definitely-not-a-command-31"]
    if name in ("missing_program", "not_executable"):
        (tmp_path / "bot.toml").write_text('name = "lost"\nversion = "1.0.0"\ncommand = ["./bot"]\n', encoding="utf-8")
        if name == "not_executable":
            (tmp_path / "bot").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
            (tmp_path / "bot").chmod(0o644)
        from arena.botspec import load_manifest

        fix = "is not executable: `chmod +x bot`" if name == "not_executable" else "does not exist; build it"
        return load_manifest(tmp_path), FAST, [fix, "docs/BOTS.md"]
    hello = {"expect": {"type": "hello", "protocol": 1, "arena": "<str>"}}
    if name == "wrong_protocol":
        script = [{**hello, "reply": [{"type": "hello", "name": "old", "version": "1", "protocol": 2}]}]
        return scripted_bot(tmp_path, script, "old"), FAST, ["protocol 2"]
    if name == "action_before_hello":
        script = [{**hello, "reply": [{"type": "action", "id": 1, "action": "draw"}]}]
        return scripted_bot(tmp_path, script, "eager"), FAST, ["hello"]
    if name == "garbage_for_hello":
        script = [{**hello, "reply": ["not a hello"]}]
        return scripted_bot(tmp_path, script, "mumbler"), FAST, ["not a hello"]
    raise AssertionError(name)


@pytest.mark.parametrize(
    "name",
    ["crash_at_start", "silent_start", "no_such_command", "missing_program", "not_executable", "wrong_protocol",
     "action_before_hello", "garbage_for_hello"],
)
def test_startup_fault_forfeits_the_seat_at_once(name: str, tmp_path: Path) -> None:
    """open_bots yields a ``startup`` BotFault (documented: did not start, or no valid hello
    within startup_ms); play_match forfeits that seat before the first decision."""
    bad, time_control, fragments = _startup_case(name, tmp_path)
    played = play(seats(bad, SEAT, 4), time_control=time_control)
    entrant = played.bots[SEAT]
    assert isinstance(entrant, BotFault), entrant
    assert entrant.kind == "startup", f"kind {entrant.kind!r}, detail {entrant.detail!r}"
    for fragment in fragments:
        assert fragment in entrant.detail, f"{fragment!r} not in {entrant.detail!r}"
    result = played.result
    assert [(f.seat, f.kind, f.decision, f.penalty) for f in result.faults] == [(SEAT, "startup", 0, "forfeit")]
    assert result.faults[0].detail == entrant.detail
    assert result.faults[0].bot == result.bots[SEAT] == bad.label  # named, though it never said hello
    assert result.timings[SEAT].decisions == 0
    forfeit = played.forfeit_index(SEAT)
    assert not any(e["event"] == "action" for e in result.log[:forfeit]), "forfeited only after play began"
    assert_went_on(played, SEAT)
    for seat, seen in enumerate(played.after_close):
        if seat != SEAT:
            assert_gone(seen, f"seat {seat}")
    folder = str(bad.folder) if bad.folder else ""
    assert not [p for p in processes() if p.state != "Z" and folder and folder in p.cmdline]


# ---------------------------------------------------------------------------------------
# Bots that write a lot, or in the wrong place, but play correctly


def test_prints_go_to_stderr_and_are_no_fault() -> None:
    played = play(seats("prints", SEAT, 4), wait_for_stderr={SEAT: b"raw fd 1 write"})
    result = played.result
    assert result.faults == []
    assert result.timings[SEAT].decisions > 0
    stderr = played.stderr[SEAT]
    assert "prints: thinking about" in stderr
    assert "prints: raw fd 1 write" in stderr
    assert '"action": "fly"' in stderr  # the reply-shaped print went to stderr, not the referee
    assert result.log[-1]["event"] == "match_end"
    assert not any(e["event"] == "forfeit" for e in result.log)
    seen = played.after_match[SEAT]
    assert seen is not None and seen.pid_alive
    assert_gone(played.after_close[SEAT], "prints after close")


def test_stderr_flood_is_counted_and_only_a_tail_kept() -> None:
    flood = 50 * 1024 * 1024
    played = play(
        seats("flood_stderr", 0, 3),
        time_control=TimeControl(move_ms=2000, bank_ms=2000, first_move_ms=20_000, startup_ms=5000),
        wait_for_stderr={0: b"END OF FLOOD"},
    )
    result = played.result
    assert result.faults == []
    assert result.timings[0].decisions > 0
    assert result.log[-1]["event"] == "match_end"
    bot = played.bots[0]
    assert isinstance(bot, Bot)
    assert bot.stderr_bytes >= flood
    assert len(bot.stderr_tail) <= 2 * STDERR_KEEP
    assert bytes(bot.stderr_tail).endswith(b"flood-stderr: END OF FLOOD\n")
    assert_gone(played.after_close[0], "flood_stderr after close")


# ---------------------------------------------------------------------------------------
# The line limit, at the boundary


@pytest.mark.parametrize(("length", "fault"), [(MAX_LINE, None), (MAX_LINE + 1, "oversized")])
def test_line_limit_is_max_line_bytes_without_the_newline(length: int, fault: str | None, tmp_path: Path) -> None:
    bad = variant_bot(tmp_path, "padded", str(length), name="padded")
    played = play(seats(bad, SEAT, 3))
    kinds = [(f.seat, f.kind) for f in played.result.faults]
    assert kinds == ([] if fault is None else [(SEAT, fault)])
    if fault:
        assert f"a line of {length} bytes" in played.result.faults[0].detail


def test_a_sandbox_the_arena_cannot_set_up_is_not_the_bots_fault(tmp_path: Path) -> None:
    """Every sandbox user in use is the arena's failure: open_bots raises SandboxError
    instead of recording a start-up fault against the bot."""
    from arena.sandbox import SandboxError
    from arena.sandbox.uids import UidPool

    async def main() -> None:
        box = await Sandbox.probe()
        if not box.status["uid"].active:
            pytest.skip(f"the uid layer is not active here: {box.status['uid'].why}")
        pool = UidPool(lock_dir=tmp_path / "locks")  # a private pool: other runs keep theirs
        held = [pool.acquire() for _ in range(len(pool))]
        box.uids = pool
        try:
            with pytest.raises(SandboxError, match="in use"):
                async with open_bots([manifest("random")], time_control=FAST, sandbox=box):
                    raise AssertionError("the bot was launched without a user of its own")
        finally:
            for lease in held:
                lease.release()

    trio.run(main)


def test_how_a_bot_died_names_the_signal() -> None:
    """A shell or the sandbox's init reports a bot killed by a signal as status 128 + N."""
    from arena.referee.session import _exit_status

    assert _exit_status(-11) == "killed by SIGSEGV"
    assert _exit_status(139) == "exited with status 139: killed by SIGSEGV (a crash in its own code, e.g. a bad " \
        "memory access)"
    assert _exit_status(137) == "exited with status 137: killed by SIGKILL"
    assert _exit_status(3) == "exited with status 3"
