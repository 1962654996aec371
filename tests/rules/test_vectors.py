"""Every conformance vector (``tests/rules/vectors``), one test each.

Vectors for variants that are not registered yet are skipped with a message naming the
variant; every vector of a registered variant must run and pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.cards import parse_card, parse_cards
from arena.rules import Action, Variant, get_variant, variants

VECTORS = Path(__file__).resolve().parent / "vectors"


def _load(name: str) -> list[dict[str, Any]]:
    path = VECTORS / name
    return json.loads(path.read_text()) if path.is_file() else []


HANDS = _load("hands.json")
ROUNDS = _load("rounds.json")


def _variant_or_skip(name: str) -> Variant:
    if name not in variants():
        pytest.skip(f"variant {name} not implemented yet")
    return get_variant(name)


def test_vectors_are_present(vectors_dir: Path) -> None:
    assert vectors_dir == VECTORS
    assert (vectors_dir / "hands.json").is_file() and (vectors_dir / "rounds.json").is_file()
    assert len(HANDS) >= 30 and len(ROUNDS) >= 10, f"vectors missing from {VECTORS}"
    assert {v["kind"] for v in HANDS} == {"value", "order", "tie"}


def test_some_vectors_run() -> None:
    """Guard against every vector being skipped: the built-in variants have vectors."""
    assert sum(v["variant"] in variants() for v in HANDS) >= 10
    assert sum(v["variant"] in variants() for v in ROUNDS) >= 5


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
        assert higher.low_key > lower.low_key, note
        assert not lower.low_key > higher.low_key, note
    else:
        assert vector["kind"] == "tie"
        a = variant.evaluate(parse_cards(vector["a"]))
        b = variant.evaluate(parse_cards(vector["b"]))
        assert a.low_key == b.low_key, note


def _engine_actions(step: dict[str, Any]) -> list[Action]:
    """A vector step as engine actions: draw/take and the discard are two decisions."""
    do = step["do"]
    if do in ("draw", "take"):
        return [Action.of(do), Action.of("discard", parse_card(step["discard"]))]
    if do == "swap_one":
        return [Action.of("swap_one", parse_card(step["give"]), parse_card(step["take"]))]
    return [Action.of(do)]


@pytest.mark.parametrize("vector", ROUNDS, ids=[f"{i}-{v['name']}" for i, v in enumerate(ROUNDS)])
def test_round_vector(vector: dict[str, Any]) -> None:
    variant = _variant_or_skip(vector["variant"])
    players = vector["players"]
    assert len(vector["lives"]) == players
    lives = set(vector["lives"])
    assert len(lives) == 1, "vectors with unequal starting lives need a per-seat start"
    options = dict(vector.get("options", {}))
    start = lives.pop()
    if start != variant.resolve(options)["lives"]:
        options["lives"] = start
    state = variant.new_match(players, options=options, decks=[parse_cards(vector["deck"])], dealer=vector["dealer"])
    starts = [e.public for e in state.log if e.kind == "round_start"]
    assert starts[0]["lives"] == vector["lives"]
    assert starts[0]["dealer"] == vector["dealer"]
    for step in vector["actions"]:
        assert not any(e.kind == "round_end" for e in state.log), "the round ended before the last action"
        assert state.to_move == step["seat"]
        for action in _engine_actions(step):
            assert action in state.legal_actions(), f"{action} not legal; legal: {state.legal_actions()}"
            state.apply(action)
    ends = [e.public for e in state.log if e.kind == "round_end"]
    assert ends, "the round did not end after the last action"
    assert ends[0]["end"] == vector["expect"]["end"]
    assert ends[0]["lives_lost"] == vector["expect"]["lives_lost"]
    assert ends[0]["cancelled"] is False
    assert ends[0]["lives"] == [a - b for a, b in zip(vector["lives"], vector["expect"]["lives_lost"])]
