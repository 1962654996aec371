"""Scenario files (``arena replay``): what a file may say, and what a mistake in one gets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.rules import get_variant
from arena.rules.scenario import Scenario, ScenarioError, replay


def one_round(**fields: Any) -> dict[str, Any]:
    """Two players of scat with one life and no free ride: one knock ends the match."""
    return {"variant": "scat", "players": 2, "options": {"lives": 1, "free_ride": False}, "seed": 11, **fields}


def test_a_whole_match_with_its_placements() -> None:
    state = get_variant("scat").new_match(2, seed=11, options={"lives": 1, "free_ride": False})
    data = one_round(actions=["1: knock", "0: stand"])
    result = replay(Scenario.from_dict(data))
    assert result.outcome is not None and result.state.is_over
    values = result.rounds[0]["values"]
    loser = min(values, key=values.get)
    expected = [2, 2]
    expected[1 - int(loser)] = 1
    assert list(result.outcome.placements) == expected
    # The same match replayed with the right expectation, then a wrong one.
    assert not replay(Scenario.from_dict({**data, "expect": {"placements": expected, "over": True}})).mismatches
    wrong = replay(Scenario.from_dict({**data, "expect": {"placements": expected[::-1]}})).mismatches
    assert wrong == (f"placements are {expected}, expected {expected[::-1]}",)
    assert state.to_move == 1  # the file's seats are the engine's


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"actions": ["0: knock"]}, "the file says seat 0, but seat 1 is to move"),
        ({"actions": ["stand"]}, "not legal for seat 1 now; legal: draw, take, knock"),
        ({"actions": ["1: knock", "0: stand", "1: draw"]}, "the match is already over"),
        ({"decks": ["As Kd"]}, "an explicit deck must hold each card of the 52-card deck once"),
        ({"decks": ["As Zz"]}, "deck 1"),
        ({"colour": "red"}, "unknown field(s) colour"),
        ({"players": "2"}, "'players' must be a whole number"),
        ({"variant": "snap"}, "snap"),
        ({"expect": {"winner": 1}}, "unknown expectation(s) winner"),
        ({"actions": [3]}, "action 1 must be a string"),
    ],
)
def test_mistakes_are_named(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        replay(Scenario.from_dict(one_round(**fields)))
    assert message in str(caught.value)


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=60)


def test_replay_exit_status_says_whether_expectations_hold(tmp_path: Path) -> None:
    good, bad, broken = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "broken.json"
    good.write_text(json.dumps(one_round(actions=["1: knock", "0: stand"], expect={"over": True})))
    bad.write_text(json.dumps(one_round(actions=["1: knock"], expect={"rounds": [{"end": "showdown"}]})))
    broken.write_text("{not json")
    done = arena("replay", str(good))
    assert done.returncode == 0 and "match over after 1 round (" in done.stdout
    assert "every expectation met" in done.stdout
    done = arena("replay", str(good), str(bad))
    assert done.returncode == 1
    assert "NOT AS EXPECTED: expected 1 finished round(s), got 0" in done.stdout
    assert "match not over: seat 0 to move (legal: draw, take, stand)" in done.stdout
    done = arena("replay", str(broken))
    assert done.returncode == 2 and "not a readable JSON file" in done.stderr and "Traceback" not in done.stderr
