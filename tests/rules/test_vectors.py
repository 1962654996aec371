"""Every public conformance vector (shared/vectors), one test each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.cards import parse_card, parse_cards
from arena.rules import Action, get_variant, variants

SHARED_VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors"


def _load(name: str) -> list[dict[str, Any]]:
    return json.loads((SHARED_VECTORS / name).read_text()) if SHARED_VECTORS.is_dir() else []


HANDS = _load("hands.json")
ROUNDS = _load("rounds.json")


def _variant_or_skip(name: str):  # type: ignore[no-untyped-def]
    if name not in variants():
        pytest.skip(f"variant {name} not implemented yet")
    return get_variant(name)


def test_vectors_are_present() -> None:
    assert len(HANDS) >= 30 and len(ROUNDS) >= 10, f"vectors missing from {SHARED_VECTORS}"


@pytest.mark.parametrize("vector", HANDS, ids=[f"{i}-{v['kind']}-{v['variant']}" for i, v in enumerate(HANDS)])
def test_hand_vector(vector: dict[str, Any]) -> None:
    variant = _variant_or_skip(vector["variant"])
    if vector["kind"] == "value":
        assert variant.evaluate(parse_cards(vector["hand"])).value == vector["value"]
    elif vector["kind"] == "order":
        higher = variant.evaluate(parse_cards(vector["higher"]))
        lower = variant.evaluate(parse_cards(vector["lower"]))
        assert higher.low_key > lower.low_key, vector.get("note")
    else:
        a = variant.evaluate(parse_cards(vector["a"]))
        b = variant.evaluate(parse_cards(vector["b"]))
        assert a.low_key == b.low_key, vector.get("note")


def _engine_actions(step: dict[str, Any]) -> list[Action]:
    if step["do"] in ("draw", "take"):
        return [Action.of(step["do"]), Action.of("discard", parse_card(step["discard"]))]
    if step["do"] == "swap_one":
        return [Action.of("swap_one", parse_card(step["give"]), parse_card(step["take"]))]
    return [Action.of(step["do"])]


@pytest.mark.parametrize("vector", ROUNDS, ids=[v["name"] for v in ROUNDS])
def test_round_vector(vector: dict[str, Any]) -> None:
    variant = _variant_or_skip(vector["variant"])
    lives = set(vector["lives"])
    assert len(lives) == 1, "vectors with unequal starting lives need a per-seat start"
    options = {"lives": lives.pop(), **vector.get("options", {})}
    state = variant.new_match(vector["players"], options=options, decks=[parse_cards(vector["deck"])],
                              dealer=vector["dealer"])
    for step in vector["actions"]:
        assert not any(e.kind == "round_end" for e in state.log), "the round ended before the last action"
        assert state.to_move == step["seat"]
        for action in _engine_actions(step):
            state.apply(action)
    ends = [e.public for e in state.log if e.kind == "round_end"]
    assert ends, "the round did not end after the last action"
    assert ends[0]["end"] == vector["expect"]["end"]
    assert ends[0]["lives_lost"] == vector["expect"]["lives_lost"]
