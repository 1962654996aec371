"""The heuristic bot's Skat: its hand evaluation on hands with known answers (the module
loaded as the bot host loads it), and real matches through the referee, each bot in its
own process: legal play without a fault, and clearly better scores than random play.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
import trio
from botmatch import Played, check_played, check_result, play_variants

from arena.botspec import find_bot
from arena.referee import Bot, open_bots, play_match
from arena.rules import get_variant

FOLDER = Path(__file__).resolve().parents[2] / "bots" / "heuristic"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("heuristic_skat_under_test", FOLDER / "skat.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


skat = _module()


def _cards(text: str) -> list[int]:
    return [skat.INDEX[name] for name in text.split()]


def test_four_jacks_and_five_clubs_bid_clubs() -> None:
    plan = skat.plan(_cards("Jc Js Jh Jd Ac Tc 9c 8c 7c 7d"))
    assert plan.game == "clubs"
    assert not plan.hand
    assert plan.limit >= 24
    assert plan.limit == 12 * (6 + 1)  # with 6 (Jc Js Jh Jd Ac Tc; Kc missing), game 7


def test_weak_hands_pass() -> None:
    assert skat.plan(_cards("Jd 9h 8h 7h Kh Qs 8s Td 7d 8c")).limit == 0
    assert skat.plan(_cards("Tc Kc Td Qd 9d Th Qh 8h Ks 7s")).game is None


def test_a_middling_hand_bids_its_suit_with_one() -> None:
    plan = skat.plan(_cards("Jc Jh Ah Kh 9h 7h As 9s Tc 8d"))
    assert (plan.game, plan.hand, plan.limit) == ("hearts", False, 20)


def test_a_strong_hand_is_played_hand() -> None:
    plan = skat.plan(_cards("Jc Js Ac Tc Kc 9c As Ts Ah 7d"))
    assert plan.hand
    assert plan.limit >= 12 * 3  # clubs with 2, hand


def test_low_cards_only_bid_null() -> None:
    plan = skat.plan(_cards("7c 9c Jc 7d 9d 7h 9h 7s 8s 9s"))
    assert (plan.game, plan.limit) == ("null", 23)
    assert skat.null_danger(_cards("7c 9c Jc 7d 9d 7h 9h 7s 8s 9s")) == 0
    assert skat.null_danger(_cards("8c 7d Ad")) == 2


def test_the_discard_keeps_jacks_and_trumps() -> None:
    twelve = _cards("Jc Js Jd Ac Kc 9c 8c As Th Kh 7d Td")
    game, pair = skat.choose_game(twelve, 18)
    assert game == "clubs"
    assert all(card >> 2 != skat.JACK and card & 3 != 0 for card in pair)
    assert skat.INDEX["Th"] in pair or skat.INDEX["Td"] in pair  # an unguarded ten is put away safe


def test_the_evaluation_counts_winners() -> None:
    # ten trumps: every one a winner (its points + 5 a trick), and half a trick per side void
    expected = 2 * 4 + 11 + 10 + 4 + 3 + 10 * 5 + 3 * 0.5 * 5
    assert skat.evaluate(_cards("Jc Js Jh Jd Ac Tc Kc Qc 9c 8c"), "clubs") == pytest.approx(expected)
    assert skat.evaluate(_cards("7c 8c 9c 7d 8d 9d 7h 8h 9h 7s"), "grand") == 0


SEEDS = range(1, 9)
TABLE = ("{bot}", "random", "{bot}", "random")
REASONS = ("rounds played",)


def test_heuristic_plays_skat_without_faults() -> None:
    assert find_bot("heuristic").plays("skat")
    played: list[Played] = play_variants("heuristic", TABLE, ("skat",), SEEDS, lambda seed, v: 3 + seed % 2)
    assert {players for _, _, players, _ in played} == {3, 4}  # a table of four: the dealer sits out
    check_played("heuristic", played, REASONS)
    for _, _, _, result in played:
        declared = [e for e in result.log if e.get("end") == "played"]
        assert declared, "no game was played to its end"


MATCHES = 5
"""Three-player matches of 12 deals each: 60 deals, the heuristic bot in every seat in turn."""


async def _scores() -> tuple[int, list[int], list[int]]:
    """The heuristic bot's total score over MATCHES matches against two random bots, the
    random bots' totals, and the heuristic bot's placements."""
    mine = 0
    theirs = [0, 0]
    places = []
    async with open_bots([find_bot("heuristic"), find_bot("random"), find_bot("random")]) as bots:
        assert all(isinstance(bot, Bot) for bot in bots), bots
        for m in range(MATCHES):
            seat = m % 3
            others = bots[1:]
            seated = others[:seat] + [bots[0]] + others[seat:]
            result = await play_match(get_variant("skat"), seated, seed=500 + m, match_id=f"skat-strength-{m}")
            check_result(result, 3, REASONS)
            scores = [int(s) for s in result.outcome.scores]
            mine += scores[seat]
            rest = scores[:seat] + scores[seat + 1:]
            theirs = [theirs[0] + rest[0], theirs[1] + rest[1]]
            places.append(result.outcome.placements[seat])
    return mine, theirs, places


def test_heuristic_beats_random_at_skat() -> None:
    mine, theirs, places = trio.run(_scores)
    assert mine > 0, (mine, theirs)
    assert all(mine > t + 500 for t in theirs), (mine, theirs)
    assert sum(places) <= MATCHES + 1, places  # first in (nearly) every match
