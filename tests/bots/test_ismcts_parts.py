"""The search bot's default choices and its opponent model, on hand-made positions."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.cards import parse_cards
from arena.rules import Action, get_variant

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bots" / "ismcts"))

from advice import ScatAdvisor, Situation  # noqa: E402
from opponents import KnockModel  # noqa: E402
from playout import ScatPlayout, View  # noqa: E402

SCAT = get_variant("scat").resolve()


def _advisor() -> ScatAdvisor:
    return ScatAdvisor(ScatPlayout(SCAT), SCAT)


def _view(hand: str, phase: str = "turn", top: str = "2d") -> View:
    return View({"seat": 0, "hand": hand.split(), "knocker": None, "discard_top": top, "phase": phase})


def _unseen(*seen: str) -> list[int]:
    known = set(parse_cards(" ".join(seen)))
    return [c for c in range(52) if c not in known]


def test_the_advisor_never_hands_the_next_player_a_blitz() -> None:
    view = _view("Ah 9c 8c 7c", phase="discard")
    legal = [Action.parse(f"discard {c}") for c in ("Ah", "9c", "8c", "7c")]
    unseen = _unseen("Ah 9c 8c 7c Kh Th")
    calm = Situation(unseen, turns=1, players=3, next_holds=[])
    assert _advisor().choose(view, legal, calm).text == "discard Ah"
    danger = Situation(unseen, turns=1, players=3, next_holds=parse_cards("Kh Th"))
    assert _advisor().choose(view, legal, danger).text != "discard Ah"


def test_the_advisor_knocks_sooner_with_fewer_players_and_turns() -> None:
    view = _view("Kc Qc 3c")  # 23
    legal = [Action.parse(a) for a in ("draw", "take", "knock")]
    unseen = _unseen("Kc Qc 3c 2d")
    assert _advisor().choose(view, legal, Situation(unseen, turns=0, players=2, next_holds=[])).text == "knock"
    assert _advisor().choose(view, legal, Situation(unseen, turns=2, players=4, next_holds=[])).text != "knock"


def test_the_advisor_takes_a_card_that_builds_its_suit() -> None:
    view = _view("Kc Qc 3d", top="Ac")
    legal = [Action.parse(a) for a in ("draw", "take", "knock")]
    situation = Situation(_unseen("Kc Qc 3d Ac"), turns=2, players=4, next_holds=[])
    assert _advisor().choose(view, legal, situation).text == "take"


def test_the_knock_model_learns_each_opponents_knock_values() -> None:
    model = KnockModel(me=0)
    events = [
        {"event": "round_end", "knocker": 1, "values": {"0": 20, "1": 15, "2": 24}},
        {"event": "round_end", "knocker": 1, "values": {"0": 22, "1": 17, "2": 21}},
        {"event": "round_end", "knocker": 0, "values": {"0": 27, "1": 19, "2": 25}},
        {"event": "round_end", "knocker": 2, "values": {"2": 31}, "blitz": [2]},
    ]
    model.follow(events)
    assert model.threshold(1, 24.0) < 20  # knocked with 15 and 17
    assert model.threshold(2, 24.0) > 24  # knocked with 31
    assert model.threshold(3, 24.0) == 24.0  # never knocked: the default
    assert 0 not in model.values  # its own knocks teach it nothing about the others
    assert set(model.by_replayed_seat((0, 1, 2), 24.0)) == {1, 2}
