"""Every conformance vector (``tests/rules/vectors``), one test each.

Vectors for variants that are not registered yet are skipped with a message naming the
variant; every vector of a registered variant must run and pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.cards import parse_cards
from arena.rules import Variant, get_variant, variants
from arena.rules.scenario import Scenario, replay

VECTORS = Path(__file__).resolve().parent / "vectors"


def _load(name: str) -> list[dict[str, Any]]:
    path = VECTORS / name
    return json.loads(path.read_text()) if path.is_file() else []


HANDS = _load("hands.json")
ROUNDS = sorted((VECTORS / "rounds").glob("*.json"))


def _variant_or_skip(name: str) -> Variant:
    if name not in variants():
        pytest.skip(f"variant {name} not implemented yet")
    return get_variant(name)


def test_vectors_are_present(vectors_dir: Path) -> None:
    assert vectors_dir == VECTORS
    assert (vectors_dir / "hands.json").is_file()
    assert len(HANDS) >= 30 and len(ROUNDS) >= 10, f"vectors missing from {VECTORS}"
    assert {v["kind"] for v in HANDS} == {"value", "order", "tie"}


def test_some_vectors_run() -> None:
    """Guard against every vector being skipped: the built-in variants have vectors."""
    assert sum(v["variant"] in variants() for v in HANDS) >= 10
    assert sum(json.loads(p.read_text())["variant"] in variants() for p in ROUNDS) >= 5


def _hand_id(index: int, vector: dict[str, Any]) -> str:
    cards = vector.get("hand") or f"{vector.get('higher', vector.get('a'))}|{vector.get('lower', vector.get('b'))}"
    return f"{index}-{vector['kind']}-{vector['variant']}-{cards}".replace(" ", "_")


@pytest.mark.parametrize("vector", HANDS, ids=[_hand_id(i, v) for i, v in enumerate(HANDS)])
def test_hand_vector(vector: dict[str, Any]) -> None:
    variant = _variant_or_skip(vector["variant"])
    note = vector.get("note")
    if vector["kind"] == "value":
        assert variant.evaluate(parse_cards(vector["hand"])).value == vector["value"], note
    elif vector["kind"] == "order":
        higher = variant.evaluate(parse_cards(vector["higher"]))
        lower = variant.evaluate(parse_cards(vector["lower"]))
        assert lower.loses_to(higher) and not higher.loses_to(lower), note
    else:
        assert vector["kind"] == "tie"
        a = variant.evaluate(parse_cards(vector["a"]))
        b = variant.evaluate(parse_cards(vector["b"]))
        assert not a.loses_to(b) and not b.loses_to(a), note


@pytest.mark.parametrize("path", ROUNDS, ids=[p.stem for p in ROUNDS])
def test_round_vector(path: Path) -> None:
    """Each round vector is a scenario: every action legal, the round over after the last,
    and its expected result met (through the same code as ``arena replay``)."""
    data = json.loads(path.read_text())
    result = replay(Scenario.from_dict(data))
    assert len(result.rounds) == 1 and not result.mismatches, result.mismatches
    expected = data["expect"]["rounds"][0]
    assert "end" in expected and len(expected) >= 2, "a round vector states its end and at least one result"


def test_replay_command_checks_every_round_vector() -> None:
    """``arena replay`` as a user runs it on the vectors: status 0, one report per file."""
    done = subprocess.run([sys.executable, "-m", "arena.cli", "replay", "--json", *map(str, ROUNDS)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["file"] for r in reports] == [str(p) for p in ROUNDS]
    assert all(not r["mismatches"] and len(r["rounds"]) == 1 for r in reports)
