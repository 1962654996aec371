"""Scenarios: a match written down as data, to check a ruling or report a bug with a file.

A scenario names a variant, its options, the table size, the deck of each deal in order
(top card first) and every decision in the protocol's text form.  :func:`replay` plays it
through the rules engine and says what happened; ``arena replay`` is its command line,
and the conformance vectors (``tests/rules/vectors/rounds``) are scenarios.  The format is
documented in ``docs/RULES-NOTES.md``, "Scenario files".

Pure: the caller reads the file; this module only checks and plays the data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.cards import Card, Seed, parse_cards
from arena.rules.game import Action, MatchState, Outcome, RulesError
from arena.rules.registry import get_variant
from arena.text import has_controls

__all__ = ["MAX_DEPTH", "Replay", "Scenario", "ScenarioError", "replay"]

MAX_DEPTH: Final = 16
"""How deep a scenario file's arrays and objects may nest (a round's expectations are five
levels down): the file comes from whoever reports a bug, and JSON is read by recursion."""
_KEYS: Final = {"name", "note", "variant", "players", "dealer", "options", "seed", "decks", "actions", "expect"}
_SEAT: Final = re.compile(r"^\s*(\d+)\s*:\s*(.*)$")
_FIELD: Final = re.compile(r"[a-z][a-z0-9_]*")
"""The name of a round_end field (an expectation's key, printed as it is)."""
_UNPRINTABLE: Final = re.compile(r"[\ud800-\udfff]")
"""Lone surrogates (JSON's ``\\ud800``): no terminal or file can show them."""


class ScenarioError(RulesError):
    """A scenario that cannot be played as written (bad field, illegal action...)."""


@dataclass(frozen=True)
class Step:
    """One decision: the seat that must make it (when the file says) and the action."""

    seat: int | None
    action: Action
    text: str


@dataclass(frozen=True)
class Scenario:
    """A checked scenario, ready to play."""

    variant: str
    players: int
    dealer: int
    options: Mapping[str, Any]
    seed: Seed
    decks: tuple[tuple[Card, ...], ...]
    steps: tuple[Step, ...]
    expect: Mapping[str, Any]
    name: str = ""

    @classmethod
    def from_dict(cls, data: object) -> Scenario:
        """Check a decoded JSON object; ScenarioError names the field that is wrong."""
        if not isinstance(data, dict):
            raise ScenarioError("a scenario is a JSON object (see docs/RULES-NOTES.md, 'Scenario files')")
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise ScenarioError(f"unknown field(s) {', '.join(unknown)}; a scenario has {', '.join(sorted(_KEYS))}")
        for field in ("variant", "players"):
            if field not in data:
                raise ScenarioError(f"the scenario has no '{field}'")
        variant = _typed(data, "variant", str)
        players = _typed(data, "players", int)
        dealer = _typed(data, "dealer", int, 0)
        options = _typed(data, "options", dict, {})
        seed = _typed(data, "seed", int, 0)
        decks = tuple(_deck(i, text) for i, text in enumerate(_typed(data, "decks", list, [])))
        steps = tuple(_step(i, text) for i, text in enumerate(_typed(data, "actions", list, [])))
        expect = _typed(data, "expect", dict, {})
        unknown = sorted(set(expect) - {"rounds", "placements", "over"})
        if unknown:
            raise ScenarioError(f"unknown expectation(s) {', '.join(unknown)}; use rounds, placements, over")
        _check_rounds(_typed(expect, "rounds", list, []))
        _typed(expect, "placements", list, [])
        _typed(expect, "over", bool, False)
        name = _typed(data, "name", str, "")
        if has_controls(name) or _UNPRINTABLE.search(name):
            raise ScenarioError(f"'name' must be one line of printable text, not {name!r}")
        return cls(variant, players, dealer, options, seed, decks, steps, expect, name)


def _typed(data: Mapping[str, Any], field: str, kind: type, default: Any = None) -> Any:
    value = data.get(field, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ScenarioError(f"'{field}' must be {_KIND_NAMES[kind]}, not {value!r}")
    return value


_KIND_NAMES: Final = {str: "a string", int: "a whole number", dict: "an object", list: "a list", bool: "true or false"}


def _check_rounds(rounds: list[Any]) -> None:
    """ScenarioError unless each expected round is an object keyed by round_end field names."""
    for number, wanted in enumerate(rounds, 1):
        if not isinstance(wanted, dict):
            raise ScenarioError(f"expected round {number} must be an object of round_end fields, not {wanted!r}")
        for key in wanted:
            if not _FIELD.fullmatch(key):
                raise ScenarioError(f"expected round {number}: {key!r} is not the name of a round_end field")


def _deck(index: int, text: object) -> tuple[Card, ...]:
    if isinstance(text, list):
        text = " ".join(str(card) for card in text)
    if not isinstance(text, str):
        raise ScenarioError(f"deck {index + 1} must be a string of cards (top card first)")
    try:
        return tuple(parse_cards(text))
    except ValueError as error:
        raise ScenarioError(f"deck {index + 1}: {error}") from None


def _step(index: int, text: object) -> Step:
    if not isinstance(text, str):
        raise ScenarioError(f"action {index + 1} must be a string such as \"1: draw\" or \"discard 5h\", not {text!r}")
    seat = None
    match = _SEAT.match(text)
    if match:
        seat, text = int(match.group(1)), match.group(2)
    try:
        action = Action.parse(text)
    except ValueError as error:
        raise ScenarioError(f"action {index + 1} ({text!r}): {error}") from None
    return Step(seat, action, text.strip())


@dataclass(frozen=True)
class Replay:
    """What a scenario's play produced: each finished round, the outcome if the match
    ended, and every expectation the file states that was not met."""

    state: MatchState
    rounds: tuple[Mapping[str, Any], ...]
    outcome: Outcome | None
    mismatches: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``arena replay --json``)."""
        state = self.state
        return {
            "variant": state.variant.name,
            "players": state.players,
            "rounds": [dict(r) for r in self.rounds],
            "outcome": self.outcome.to_dict() if self.outcome else None,
            "to_move": state.to_move,
            "legal": [str(a) for a in state.legal_actions()],
            "mismatches": list(self.mismatches),
        }


def replay(scenario: Scenario) -> Replay:
    """Play every step; ScenarioError at the first step that cannot be played."""
    try:
        state = get_variant(scenario.variant).new_match(
            scenario.players, seed=scenario.seed, options=scenario.options, decks=scenario.decks,
            dealer=scenario.dealer)
    except ValueError as error:
        raise ScenarioError(str(error)) from None
    for number, step in enumerate(scenario.steps, 1):
        where = f"action {number} ({step.text!r})"
        if state.is_over:
            raise ScenarioError(f"{where}: the match is already over")
        if step.seat is not None and step.seat != state.to_move:
            raise ScenarioError(f"{where}: the file says seat {step.seat}, but seat {state.to_move} is to move")
        if not state.can_apply(step.action):
            legal = ", ".join(str(a) for a in state.legal_actions())
            raise ScenarioError(f"{where}: not legal for seat {state.to_move} now; legal: {legal}")
        state.apply(step.action)
    rounds = tuple(e.public for e in state.log if e.kind == "round_end")
    return Replay(state, rounds, state.outcome, tuple(_mismatches(scenario.expect, rounds, state)))


def _mismatches(expect: Mapping[str, Any], rounds: Sequence[Mapping[str, Any]], state: MatchState) -> list[str]:
    """Each expectation the play did not meet: round results key by key, placements, over."""
    found = []
    wanted_rounds = expect.get("rounds", [])
    if len(rounds) < len(wanted_rounds):
        found.append(f"expected {len(wanted_rounds)} finished round(s), got {len(rounds)}")
    for number, (wanted, got) in enumerate(zip(wanted_rounds, rounds), 1):
        for key, value in wanted.items():
            if got.get(key) != value:
                found.append(f"round {number}: {key} is {got.get(key)!r}, expected {value!r}")
    if "over" in expect and expect["over"] != state.is_over:
        found.append(f"the match is {'' if state.is_over else 'not '}over, expected the opposite")
    if "placements" in expect:
        got_placements = list(state.outcome.placements) if state.outcome else None
        if got_placements != expect["placements"]:
            found.append(f"placements are {got_placements}, expected {expect['placements']}")
    return found
