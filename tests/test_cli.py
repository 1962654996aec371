"""The real `arena` command, run as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena import __version__


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=120)


def test_version() -> None:
    result = arena("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"arena {__version__}"


def test_hand_prints_31_for_a_blitz() -> None:
    result = arena("hand", "Ah Kh Th", "--variant", "scat")
    assert result.returncode == 0
    assert result.stdout.split()[0] == "31"
    assert "blitz" in result.stdout


def test_hand_json_has_the_value() -> None:
    result = arena("hand", "7c 7d 7h", "-v", "scat-trips", "--json")
    assert json.loads(result.stdout)["value"] == 30
    result = arena("hand", "7c 7d 7h", "-v", "scat", "-o", "trips=30.5", "--json")
    assert json.loads(result.stdout)["value"] == 30.5


def test_hand_compares_several_hands() -> None:
    result = arena("hand", "Kh Qh 5c", "Ts Js 2d", "9s 5s Jd", "--json")
    hands = json.loads(result.stdout)["hands"]
    assert [h["rank"] for h in hands] == [1, 1, 3]
    text = arena("hand", "Kh Qh 5c", "9s 5s Jd").stdout
    assert "Kh Qh 5c beats 9s 5s Jd" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["hand", "Xx Kh Th"], "invalid card 'Xx'"),
        (["hand", "Ah Kh"], "3 cards"),
        (["hand", "Ah Ah Th"], "appears twice"),
        (["hand", "2c 3c 4c", "-v", "eenendertigen"], "32-card deck"),
        (["hand", "Ah Kh Th", "-v", "nope"], "unknown variant 'nope'"),
        (["hand", "Ah Kh Th", "-o", "lives=zero"], "option 'lives'"),
        (["hand", "Ah Kh Th", "-o", "colour=red"], "unknown option 'colour'"),
        (["hand", "Ah Kh Th", "-o", "lives"], "name=value"),
    ],
)
def test_user_errors_are_one_clear_line(args: list[str], message: str) -> None:
    result = arena(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_variants_lists_every_variant_with_players() -> None:
    result = arena("variants")
    assert result.returncode == 0
    for name in ("scat", "scat-trips", "dollar-bill", "eenendertigen", "california-quick", "west-lansing",
                 "no-elimination", "banking"):
        assert name in result.stdout
    assert "2-9" in result.stdout


def test_variants_name_lists_options_with_defaults() -> None:
    data = json.loads(arena("variants", "dollar-bill", "--json").stdout)[0]
    assert data["options"]["lives"]["default"] == 4
    assert data["options"]["free_ride"]["default"] is True
    text = arena("variants", "west-lansing").stdout
    assert "knocker_must_beat" in text


def test_match_plays_subprocess_bots_and_reports_placements(tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "match.json"
    result = arena("match", "-v", "scat", "-b", "random", "-b", "random", "-b", "random", "--seed", "5",
                   "--json", "--log", str(log))
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert sorted(record["placements"]) in ([1, 2, 3], [1, 2, 2], [1, 1, 3], [1, 3, 3])
    assert record["faults"] == []
    assert record["seed"] == 5
    saved = json.loads(log.read_text())
    assert saved["log"][0]["event"] == "round_start"
    assert saved["log"][-1]["event"] == "match_end"
    again = json.loads(arena("match", "-v", "scat", "-b", "random", "-b", "random", "-b", "random",
                             "--seed", "5", "--json").stdout)
    assert again["outcome"] == record["outcome"]  # same seed, same seeded bots: same match


def test_match_refuses_bad_input_before_starting_bots() -> None:
    assert "unknown bot 'ghost'" in arena("match", "-v", "scat", "-b", "random", "-b", "ghost").stderr
    assert "at least two" in arena("match", "-v", "scat", "-b", "random").stderr
    assert "for 2 to 9 players" in arena("match", "-v", "scat", *["-b", "random"] * 10).stderr


SCENARIO = json.loads((Path(__file__).parent / "rules" / "vectors" / "rounds" /
                       "01-knock-lowest-alone-loses-one.json").read_text(encoding="utf-8"))
DEEP_JSON = "not a readable JSON file (JSON nested deeper than 16 arrays and objects)"
REFUSED_SCENARIOS = [
    # (file text, what the one line on stderr must say)
    ("[" * 100_000 + "]" * 100_000, DEEP_JSON),
    ('{"expect": ' * 100_000 + "{}" + "}" * 100_000, DEEP_JSON),
    ('{"players": ' + "9" * 5000 + "}", "not a readable JSON file (not JSON: Exceeds the limit (4300 digits)"),
    (json.dumps({**SCENARIO, "expect": {"rounds": [1]}}), "expected round 1 must be an object of round_end fields"),
    (json.dumps({**SCENARIO, "expect": {"rounds": "showdown"}}), "'rounds' must be a list, not 'showdown'"),
    (json.dumps({**SCENARIO, "expect": {"rounds": [{"\x1b[2Jend": "showdown"}]}}),
     "expected round 1: '\\x1b[2Jend' is not the name of a round_end field"),
    (json.dumps({**SCENARIO, "expect": {"over": [1]}}), "'over' must be true or false, not [1]"),
    (json.dumps({**SCENARIO, "expect": {"placements": {"a": 1}}}), "'placements' must be a list, not {'a': 1}"),
    (json.dumps({**SCENARIO, "name": {"a": 1}}), "'name' must be a string, not {'a': 1}"),
    (json.dumps({**SCENARIO, "name": "\ud800"}), "'name' must be one line of printable text, not '\\ud800'"),
    (json.dumps({**SCENARIO, "name": "\x1b]0;owned\x07"}), "'name' must be one line of printable text"),
]


@pytest.mark.parametrize(("text", "message"), REFUSED_SCENARIOS, ids=[m[:30] for _, m in REFUSED_SCENARIOS])
def test_replay_refuses_a_scenario_it_cannot_read_in_one_line(tmp_path: Path, text: str, message: str) -> None:
    """A scenario file comes from whoever reports a bug: 100,000 levels raised RecursionError,
    odd expectations AttributeError or TypeError, a name with escapes reached the terminal."""
    path = tmp_path / "scenario.json"
    path.write_text(text, encoding="utf-8")
    result = arena("replay", str(path))
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith(f"error: {path}: "), result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1 and "\x1b" not in result.stdout + result.stderr, result.stderr


def test_every_command_names_its_arguments_in_capitals_in_its_usage() -> None:
    """``arena test --help`` showed ``{new} {base}``: an argument's name read as a literal."""
    import typer
    from typer.core import TyperArgument

    from arena.cli import app

    def walk(command: Any, path: str) -> list[tuple[str, str]]:
        found = [(path, p.metavar or p.name) for p in command.params if isinstance(p, TyperArgument)]
        for name, sub in getattr(command, "commands", {}).items():
            found += walk(sub, f"{path} {name}")
        return found

    arguments = walk(typer.main.get_command(app), "arena")
    assert ("arena test", "NEW") in arguments and len(arguments) >= 15
    assert [(c, name) for c, name in arguments if name != name.upper()] == []
