"""The SDK's hand values (arena/sdk.py): ``match.value`` by names or card ints, and the fast
``match.evaluator()`` bots use in their searches, both the rules engine's own values."""

from __future__ import annotations

import random
import subprocess
import sys
from itertools import combinations, permutations

import pytest

from arena.cards import CARDS, CardError, new_deck, parse_cards
from arena.rules import RulesError, get_variant, variants
from arena.sdk import PROJECT, MatchInfo, hookimpl, hookspec

HAND_SIZES = {"thirty-one": 3, "widow": 3, "fifty-one": 5, "fifty-one-chinese": 5, "empat-satu": 4, "skat": 10}


def match(variant: str, options: dict[str, object] | None = None) -> MatchInfo:
    return MatchInfo("m", variant, options or {}, 0, 3, {"move_ms": 1000})


@pytest.mark.parametrize("variant", list(variants()))
def test_value_and_evaluator_are_the_engines_values(variant: str) -> None:
    info = match(variant)
    rules = get_variant(variant)
    options = rules.resolve()
    deck = new_deck(options.get("deck", 32 if rules.family.name == "skat" else 52))
    evaluate = info.evaluator()
    rng = random.Random(variant)
    for _ in range(50):
        hand = rng.sample(deck, HAND_SIZES[rules.family.name])
        expected = rules.family.evaluate(hand, options)
        assert info.value([str(c) for c in hand]) == expected
        assert info.value(hand) == expected
        assert info.value([int(c) for c in hand]) == expected
        assert evaluate([int(c) for c in hand]) == expected
        assert evaluate(tuple(reversed(hand))) is evaluate(hand), "each distinct hand is evaluated once"


def test_every_three_card_hand_of_an_option_set() -> None:
    info = match("scat", {"trips": "30.5", "three_aces": "33", "blitz_only_akt": True})
    family, options = info.rules.family, info.resolved_options
    evaluate = info.evaluator()
    for hand in combinations(CARDS, 3):
        assert evaluate(hand) == family.evaluate(hand, options)
    for hand in permutations(parse_cards("Ah Ad Ac")):
        assert evaluate(hand).value == 33


def test_malformed_hands_are_refused_even_once_their_cards_are_known() -> None:
    info = match("eenendertigen")
    evaluate = info.evaluator()
    ace, king, ten, deuce = (int(c) for c in parse_cards("As Ks Ts 2c"))
    assert evaluate((ace, king, ten)).value == 31
    for hand in ((ace, king), (ace, king, ten, ten), (ace, ace, king, ten), (ace, king, deuce)):
        with pytest.raises(RulesError):
            evaluate(hand)
        with pytest.raises((RulesError, CardError)):
            info.value(hand)
    for bad in ([ace, king, 52], [ace, king, -1], ["As", "Ks", "Zz"]):
        with pytest.raises(CardError):
            info.value(bad)


def test_matches_with_the_same_rules_share_an_evaluator() -> None:
    a, b = match("scat"), match("scat", {"lives": 3})
    assert a.evaluator() is b.evaluator()  # the same option values
    assert match("scat-trips").evaluator() is not a.evaluator()
    assert match("scat", {"trips": "30"}).evaluator() is not a.evaluator()
    a.resolved_options["trips"] = "30"  # a bot that writes into its match's options
    assert match("scat").evaluator()(parse_cards("7c 7d 7h")).value == 7  # not 30: the changed dict is not used


def test_the_sdk_loads_the_rules_engine_only_when_a_value_is_asked() -> None:
    code = ("import sys; from arena.sdk import MatchInfo; m = MatchInfo('m', 'scat', {}, 0, 2, {});"
            "print('arena.rules' in sys.modules, 'pluggy' in sys.modules);"
            "m.evaluator(); print('arena.rules' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "True"]


@pytest.mark.parametrize("arguments", [
    {}, {"tryfirst": True}, {"trylast": True}, {"hookwrapper": True}, {"wrapper": True}, {"optionalhook": True},
    {"specname": "choose"},
])
def test_hookimpl_marks_a_function_as_pluggys_marker_does(arguments: dict[str, object]) -> None:
    import pluggy

    def ours() -> None: ...

    def theirs() -> None: ...

    hookimpl(**arguments)(ours)
    pluggy.HookimplMarker(PROJECT)(**arguments)(theirs)
    assert getattr(ours, f"{PROJECT}_impl") == getattr(theirs, f"{PROJECT}_impl")
    assert hookimpl(ours) is ours


@pytest.mark.parametrize("arguments", [{}, {"firstresult": True}, {"historic": True}])
def test_hookspec_marks_a_function_as_pluggys_marker_does(arguments: dict[str, object]) -> None:
    import pluggy

    def ours() -> None: ...

    def theirs() -> None: ...

    hookspec(**arguments)(ours)
    pluggy.HookspecMarker(PROJECT)(**arguments)(theirs)
    assert getattr(ours, f"{PROJECT}_spec") == getattr(theirs, f"{PROJECT}_spec")
