"""The baselines' rules of thumb, checked on hand-made positions (the bots' own modules,
loaded as the bot host loads them; the referee tests play them for real)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.rules import get_variant
from arena.sdk import MatchInfo

BOTS = Path(__file__).resolve().parents[2] / "bots"


def _module(bot: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"{bot}_bot_under_test", BOTS / bot / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


survival = _module("survival")
tracker = _module("tracker")


@pytest.mark.parametrize(("players", "row"), [
    (2, [18, 20]),
    (3, [14, 15, 17]),
    (4, [13, 13, 14, 15]),
    (5, [11, 12, 13, 13, 15]),
    (6, [11, 11, 12, 12, 13, 13]),
    (9, [11, 11, 11, 12, 12, 12, 13, 13, 13]),
])
def test_survival_first_turn_table(players: int, row: list[int]) -> None:
    assert [survival.first_turn_threshold(players, k) for k in range(players)] == row


def test_survival_needs_more_after_its_first_turn() -> None:
    scat = get_variant("scat").resolve()
    assert survival.knock_threshold(4, 0, 0, scat) == 13
    assert survival.knock_threshold(4, 0, 2, scat) == 19
    assert survival.knock_threshold(4, 3, 9, scat) == survival.LATE_CAP
    assert survival.knock_threshold(4, 0, 0, get_variant("eenendertigen").resolve()) == 13 + survival.DECK32_SHIFT


def test_survival_place_counts_from_the_dealers_left_over_seats_still_in() -> None:
    observation = {"seat": 0, "dealer": 2, "active": [True, False, True, True]}
    assert survival.turn_place(observation) == (3, 1)  # order: 3, 0, 2


def _tracker(events: list[dict[str, Any]]) -> Any:
    match = MatchInfo("m", "scat", get_variant("scat").resolve(), 0, 3, {"move_ms": 1000})
    bot = tracker.Tracker(match)
    for event in events:
        bot.memory.follow(event)
    return bot


ROUND = [{"event": "round_start", "round": 1, "dealer": 2, "lives": [3, 3, 3], "active": [True, True, True]}]
COLLECTS_HEARTS = [
    {"event": "action", "seat": 1, "action": "take", "card": "Kh"},
    {"event": "action", "seat": 1, "action": "discard 2c"},
    {"event": "action", "seat": 1, "action": "take", "card": "Th"},
    {"event": "action", "seat": 1, "action": "discard 3d"},
]
AFTER_DRAW = {"seat": 0, "phase": "discard", "hand": ["Ah", "9c", "8c", "7c"], "knocker": None,
              "active": [True, True, True], "dealer": 2, "discard_top": "3d"}


def test_tracker_never_feeds_the_next_player_a_blitz() -> None:
    legal = [f"discard {c}" for c in AFTER_DRAW["hand"]]
    assert _tracker(ROUND).choose(AFTER_DRAW, legal) == "discard Ah"  # the greedy discard
    assert _tracker(ROUND + COLLECTS_HEARTS).choose(AFTER_DRAW, legal) == "discard 7c"


def test_tracker_knocks_at_22_first_then_30() -> None:
    turn = {"seat": 0, "phase": "turn", "hand": ["Kc", "Qc", "2c"], "knocker": None, "discard_top": "3d",
            "active": [True, True, True], "dealer": 2}
    legal = ["draw", "take", "knock"]
    assert _tracker(ROUND).choose(turn, legal) == "knock"
    later = ROUND + [{"event": "action", "seat": 0, "action": "draw"}, {"event": "action", "seat": 0,
                                                                       "action": "discard 4h"}]
    assert _tracker(later).choose(turn, legal) == "draw"


def test_tracker_takes_on_a_gain_of_seven_or_a_30() -> None:
    turn = {"seat": 0, "phase": "turn", "hand": ["Kc", "4d", "2h"], "knocker": None,
            "active": [True, True, True], "dealer": 2}
    legal = ["draw", "take", "knock"]
    assert _tracker(ROUND).choose({**turn, "discard_top": "7c"}, legal) == "take"  # 10 -> 17
    assert _tracker(ROUND).choose({**turn, "discard_top": "5c"}, legal) == "draw"  # 10 -> 15


SCHWIMMEN = get_variant("schwimmen").resolve()
WIDOW_ROUND = [
    {"event": "round_start", "round": 1, "dealer": 2, "lives": [3, 3, 3], "active": [True, True, True]},
    {"event": "turn_up", "cards": ["Ah", "8c", "7d"]},
]


def _widow_tracker(events: list[dict[str, Any]]) -> Any:
    match = MatchInfo("m", "schwimmen", SCHWIMMEN, 0, 3, {"move_ms": 1000})
    bot = tracker.Tracker(match)
    for event in events:
        bot.memory.follow(event)
    return bot


def _widow_turn(hand: list[str], widow: list[str], knock: bool) -> tuple[dict[str, Any], list[str]]:
    observation = {"seat": 0, "round": 1, "phase": "turn", "hand": hand, "widow": widow, "knocker": None,
                   "active": [True, True, True], "dealer": 2}
    legal = [f"swap_one {g} {t}" for g in hand for t in widow] + ["swap_all", "pass"] + (["knock"] if knock else [])
    return observation, legal


def test_tracker_in_schwimmen_never_lays_down_the_next_players_31() -> None:
    observation, legal = _widow_turn(["Qh", "9s", "8s"], ["Ts", "7c", "7d"], knock=False)
    assert _widow_tracker(WIDOW_ROUND).choose(observation, legal) == "swap_one Qh Ts"  # 17 -> 27 in spades
    takes_hearts = WIDOW_ROUND + [  # seat 1 (next to move) takes Ah, then Kh, from the widow
        {"event": "action", "seat": 1, "action": "swap_one 9d Ah"},
        {"event": "action", "seat": 2, "action": "swap_one Kh 9d"},
        {"event": "action", "seat": 0, "action": "pass"},
        {"event": "action", "seat": 1, "action": "swap_one 9c Kh"},
    ]
    assert _widow_tracker(takes_hearts).memory.known[1] == ["Ah", "Kh"]
    assert _widow_tracker(takes_hearts).choose(observation, legal) == "pass"  # Qh would complete 31


def test_tracker_in_schwimmen_knocks_at_22_first_then_30() -> None:
    observation, legal = _widow_turn(["Kc", "Qc", "7c"], ["7d", "8d", "9h"], knock=True)
    bot = _widow_tracker(WIDOW_ROUND)
    assert bot.choose(observation, legal) == "knock"  # 27: over 22 on its first turn knocking is allowed
    assert bot.choose(observation, legal) != "knock"  # under 30 on a later one


def test_survival_in_schwimmen_counts_from_its_first_turn_knocking_is_allowed() -> None:
    turns = survival.WidowTurns()
    observation, legal = _widow_turn(["Kc", "Qc", "7d"], ["7h", "8h", "9h"], knock=True)
    assert turns.count(observation, legal[:-1]) == 0  # the first orbit: no knock yet
    assert turns.count(observation, legal) == 0  # the first turn knocking is allowed
    assert turns.count(observation, legal) == 1
    assert turns.count({**observation, "round": 2}, legal) == 0
