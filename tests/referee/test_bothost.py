"""The bot host (``python -m arena.bothost``) as a bot author meets it: real bot processes
spoken to line by line, and real matches through the referee.

The bot host calls plain hook functions directly and registers the module with pluggy
only when a hook needs more (wrappers, ``specname``, methods, decorated functions, an
argument pluggy must reject); both ways must call each hook exactly as pluggy would, with
only the arguments it names, and the direct way must not import pluggy at all.
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pluggy
import pytest
from faulty import FAST, play

from arena.bothost import direct_hooks
from arena.botspec import BotManifest, load_manifest
from arena.lightjson import json_loads, json_string
from arena.sdk import PROJECT, BotSpec, MatchInfo, hookimpl

REPO = Path(__file__).resolve().parents[2]
HELLO = {"type": "hello", "protocol": 1, "arena": "test"}
TIME = {"move_ms": 1000, "bank_ms": 10000, "first_move_ms": 5000, "startup_ms": 10000, "ponder": False,
        "min_turn_ms": 0, "clock": "cpu"}
START = {"type": "match_start", "match_id": "m1", "variant": "scat", "options": {}, "seat": 0, "players": 2,
         "time": TIME}


def decide(request: int, time_left_ms: int, legal: list[str] | None = None) -> dict[str, Any]:
    return {"type": "decide", "id": request, "observation": {"seat": 0}, "legal": legal or ["draw", "knock"],
            "time_left_ms": time_left_ms, "events": [{"event": "action", "seat": 1, "action": "draw"}]}


def write_bot(folder: Path, code: str, name: str = "host-test") -> BotManifest:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(textwrap.dedent(code), encoding="utf-8")
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1.0.0"\nentry = "bot.py"\n', encoding="utf-8")
    return load_manifest(folder)


def converse(bot: Path, messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str, int]:
    """Run the bot host on ``bot``, send ``messages`` (then close its stdin); its replies,
    its stderr and its exit status."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.run(
        [sys.executable, "-m", "arena.bothost", "--file", str(bot), "--name", "host-test", "--version", "1.0.0"],
        input="".join(json.dumps(m) + "\n" for m in messages).encode(), capture_output=True, env=env, timeout=60,
        cwd=bot.parent,
    )
    replies = [json.loads(line) for line in process.stdout.decode().splitlines()]
    return replies, process.stderr.decode(), process.returncode


def actions(replies: list[dict[str, Any]]) -> list[str]:
    return [r["action"] for r in replies if r["type"] == "action"]


# ---------------------------------------------------------------------------------------
# time_left_ms


TIME_LEFT_BOT = """
    import sys
    from arena.sdk import hookimpl

    @hookimpl
    def choose(legal, time_left_ms):
        sys.stderr.write(f"time_left_ms {time_left_ms}\\n")  # one write: a reader never sees half a line
        return legal[0] if time_left_ms > 2000 else legal[-1]
"""


def test_choose_may_ask_for_time_left_ms(tmp_path: Path) -> None:
    """A ``choose`` that names ``time_left_ms`` gets the decision's allowance, as sent."""
    bot = write_bot(tmp_path, TIME_LEFT_BOT).folder
    assert bot is not None
    replies, stderr, status = converse(
        bot / "bot.py", [HELLO, START, decide(1, 16000), decide(3, 1500), {"type": "bye"}],
    )
    assert status == 0, stderr
    assert replies[0] == {"type": "hello", "name": "host-test", "version": "1.0.0", "protocol": 1}
    assert actions(replies) == ["draw", "knock"]
    assert [r["id"] for r in replies[1:]] == [1, 3]
    assert "time_left_ms 16000" in stderr and "time_left_ms 1500" in stderr


def test_time_left_ms_reaches_a_bot_in_a_real_match(tmp_path: Path) -> None:
    """Through the referee: the first decision's ``time_left_ms`` is move + first move +
    bank (the documented total), later ones at most move + bank."""
    bot = write_bot(tmp_path / "timer", TIME_LEFT_BOT, name="timer")
    played = play([bot, "random"], time_control=FAST, wait_for_stderr={0: b"time_left_ms"})
    assert played.result.faults == [], played.stderr[0]
    seen = [int(line.split()[1]) for line in played.stderr[0].splitlines() if line.startswith("time_left_ms ")]
    assert seen, played.stderr[0]
    assert seen[0] == FAST.move_ms + FAST.first_move_ms + FAST.bank_ms
    assert all(0 < t <= FAST.move_ms + FAST.bank_ms for t in seen[1:])


# ---------------------------------------------------------------------------------------
# direct calls and the pluggy fallback


IMPORT_WATCH_BOT = """
    import sys
    from arena.sdk import MatchInfo, hookimpl

    HEAVY = ("pluggy", "inspect", "typing", "dataclasses", "ctypes", "platform", "json", "re", "arena.rules")
    print("at import:", [m for m in HEAVY if m in sys.modules], file=sys.stderr)

    @hookimpl
    def match_start(match: MatchInfo):
        print("match_start", match.match_id, match.seat, file=sys.stderr)

    @hookimpl
    def on_event(event):
        print("event", event["action"], file=sys.stderr)

    @hookimpl
    def choose(observation, legal, match, time_left_ms):
        print("choose", observation["seat"], match.match_id, time_left_ms, "pluggy" in sys.modules, file=sys.stderr)
        return legal[1]

    @hookimpl
    def match_end(match, outcome):
        print("match_end", outcome["reason"], len(match.events), file=sys.stderr)
"""


def test_plain_hooks_are_called_directly_with_the_arguments_they_name(tmp_path: Path) -> None:
    """Every hook gets exactly the arguments it names, in its own order; before ``hello``
    the bot host has imported neither pluggy nor anything else heavy."""
    bot = write_bot(tmp_path, IMPORT_WATCH_BOT).folder
    assert bot is not None
    end = {"type": "match_end", "match_id": "m1", "outcome": {"placements": [1, 2], "scores": [1, 0],
                                                               "reason": "test"}, "events": []}
    replies, stderr, status = converse(bot / "bot.py", [HELLO, START, decide(1, 900), end, {"type": "bye"}])
    assert status == 0, stderr
    assert actions(replies) == ["knock"]
    lines = stderr.splitlines()
    assert lines == ["at import: []", "match_start m1 0", "event draw", "choose 0 m1 900 False", "match_end test 1"]


FALLBACK_BOT = """
    import sys
    from arena.sdk import hookimpl

    @hookimpl(specname="choose")
    def pick(legal):
        return legal[0]

    @hookimpl(wrapper=True)
    def on_event(event, match):
        print("wrapped event", event["action"], file=sys.stderr)
        return (yield)

    @hookimpl
    def match_start(match):
        print("pluggy loaded:", "pluggy" in sys.modules, file=sys.stderr)
"""


def test_hooks_that_need_pluggy_still_work(tmp_path: Path) -> None:
    """``specname`` and wrappers: the bot host registers the module with pluggy, which
    finds the SDK's marks as its own."""
    bot = write_bot(tmp_path, FALLBACK_BOT).folder
    assert bot is not None
    replies, stderr, status = converse(bot / "bot.py", [HELLO, START, decide(1, 900), {"type": "bye"}])
    assert status == 0, stderr
    assert actions(replies) == ["draw"]
    assert "pluggy loaded: True" in stderr
    assert "wrapped event draw" in stderr


def test_an_argument_outside_the_specification_is_pluggys_error(tmp_path: Path) -> None:
    """A hook naming an argument the specification lacks fails at start-up with pluggy's
    own validation message (the referee records a start-up fault)."""
    bot = write_bot(tmp_path, """
        from arena.sdk import hookimpl

        @hookimpl
        def choose(legal, deadline):
            return legal[0]
    """)
    played = play([bot, "random"], time_control=FAST)
    faults = played.faults_of(0)
    assert [f.kind for f in faults] == ["startup"], faults
    assert "PluginValidationError" in faults[0].detail and "deadline" in faults[0].detail


def test_a_bot_without_choose_is_refused(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, """
        from arena.sdk import hookimpl

        @hookimpl
        def match_start(match):
            pass
    """).folder
    assert bot is not None
    replies, stderr, status = converse(bot / "bot.py", [HELLO])
    assert replies == [] and status != 0
    assert "implements no `choose` hook" in stderr


# ---------------------------------------------------------------------------------------
# the SDK's marks are pluggy's


def _module(**functions: Any) -> types.ModuleType:
    module = types.ModuleType("shapes")
    for name, function in functions.items():
        setattr(module, name, function)
    return module


def _pluggy_argnames(module: types.ModuleType) -> dict[str, tuple[str, ...]]:
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(BotSpec)
    manager.register(module)
    return {name: impls[0].argnames for name in ("choose", "match_start", "on_event", "match_end")
            if (impls := getattr(manager.hook, name).get_hookimpls())}


def test_direct_calls_name_the_arguments_pluggy_would_pass() -> None:
    """Positional parameters, defaults (never passed), positional-only and keyword-only
    parameters, any order: the direct path picks the same arguments as pluggy."""

    @hookimpl
    def choose(time_left_ms: int, /, legal: list[str], observation: Any, tries: int = 3, *, loud: bool = False) -> str:
        return legal[0]

    @hookimpl(tryfirst=True)
    def on_event(match: Any, event: Any = None) -> None:
        pass

    @hookimpl
    def match_end() -> None:
        pass

    def helper(legal: list[str]) -> None:  # unmarked: not a hook
        pass

    module = _module(choose=choose, on_event=on_event, match_end=match_end, match_start=helper, other=print)
    hooks = direct_hooks(module)
    assert hooks is not None
    assert {name: argnames for name, (_, argnames) in hooks.items()} == _pluggy_argnames(module)
    assert hooks["choose"][1] == ("time_left_ms", "legal", "observation")
    assert hooks["on_event"][1] == ("match",)


def _wrapper(function: Any) -> Any:
    def inner(*args: Any) -> Any:
        return function(*args)

    inner.__wrapped__ = function  # as functools.wraps does
    return hookimpl(inner)


class _Holder:
    @hookimpl
    def choose(self, legal: list[str]) -> str:
        return legal[0]


@pytest.mark.parametrize("module", [
    _module(choose=hookimpl(specname="choose")(lambda legal: legal[0]), pick=None),
    _module(choose=hookimpl(hookwrapper=True)(lambda legal: legal[0])),
    _module(choose=_wrapper(lambda legal: legal[0])),
    _module(choose=_Holder().choose),
    _module(choose=_Holder.choose),
    _module(choose=hookimpl(lambda legal, deadline: legal[0])),
], ids=["specname", "hookwrapper", "decorated", "bound method", "method function", "unknown argument"])
def test_hooks_beyond_plain_functions_go_to_pluggy(module: types.ModuleType) -> None:
    assert direct_hooks(module) is None


def test_match_info_compares_and_prints_by_value() -> None:
    a = MatchInfo("m", "scat", {}, 0, 2, {"move_ms": 1})
    b = MatchInfo("m", "scat", {}, 0, 2, {"move_ms": 1})
    assert a == b and a.events == [] and a.events is not b.events
    b.events.append({"event": "deal"})
    assert a != b
    assert repr(a) == "MatchInfo(match_id='m', variant='scat', options={}, seat=0, players=2, time={'move_ms': 1}, " \
                      "events=[])"


def _stale_bytecode(package: Path) -> list[str]:
    """Modules of ``package`` whose bytecode is missing or does not match the source."""
    stale = []
    for source in package.rglob("*.py"):
        cached = Path(importlib.util.cache_from_source(str(source)))
        try:
            header = cached.read_bytes()[:16]
        except OSError:
            stale.append(str(source))
            continue
        st = source.stat()
        if header[:4] != importlib.util.MAGIC_NUMBER or header[8:16] != struct.pack(
                "<II", int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF):
            stale.append(str(source))
    return stale


def test_python_bots_start_from_current_bytecode(tmp_path: Path) -> None:
    """A sandboxed bot may not write bytecode next to the arena's sources, so the launcher
    writes it before the first Python bot starts: an edited module is not compiled again
    by every bot."""
    import arena

    played = play([write_bot(tmp_path, "from arena.sdk import hookimpl\nchoose = hookimpl(lambda legal: legal[0])\n"),
                   "random"], time_control=FAST)
    assert played.result.faults == []
    assert _stale_bytecode(Path(arena.__file__).parent) == []


@pytest.mark.parametrize("text", [
    '{"type":"hello","protocol":1,"arena":"0.1.0"}', ' {"a": [1, 2.5, -3e2, true, false, null, "\\u00e9\\n"]}\r\n',
    b'{"read": ["/usr", "/tmp/caf\xc3\xa9"], "write": []}', "[]", '"x"', "12", '{"a": NaN, "b": -Infinity}',
])
def test_start_up_json_reads_what_json_reads(text: str | bytes) -> None:
    """The bot host reads the hello (and the Landlock rules) without importing json."""
    assert repr(json_loads(text)) == repr(json.loads(text))


@pytest.mark.parametrize("text", [" {bad", '{"a": 1} x', "", '{"a": 01}', "\ufeff{}", b"\xff{}"])
def test_start_up_json_rejects_what_json_rejects(text: str | bytes) -> None:
    with pytest.raises(ValueError) as theirs:
        json.loads(text)
    with pytest.raises(ValueError) as ours:
        json_loads(text)
    assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


@pytest.mark.parametrize("text", ["random", "1.0.0-rc.1", 'quo"te\\', "caf\u00e9 \u2028 \U0001f600"])
def test_start_up_json_writes_what_json_writes(text: str) -> None:
    assert json_string(text) == json.dumps(text)
