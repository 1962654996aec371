"""The search bot's default choices and its opponent model, on hand-made positions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.cards import parse_cards
from arena.rules import Action, get_variant

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bots" / "ismcts"))

from advice import ScatAdvisor, Situation  # noqa: E402
from budget import CHECK_EVERY, MIN_DEALS, Budget, budget_for, deals_while  # noqa: E402
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


def test_the_budget_follows_the_clock_the_referee_charges() -> None:
    """CPU clock: 60% of move_ms in CPU time, the wall clock stretched to 2.4 x move_ms (a
    third of it past 0.1 s is still inside the move); once the bank has been drawn on (the
    referee charged more than the CPU used), and on the wall clock, 60% on the wall clock;
    a fixed number of deals knows no clock."""
    cpu = {"move_ms": 200, "bank_ms": 2000, "clock": "cpu"}
    fresh = budget_for(cpu, 2200)
    assert fresh.cpu_s == pytest.approx(0.115) and fresh.wall_s == pytest.approx(0.475)
    assert (fresh.wall_s - 0.1) / 3 < 0.2  # what the referee charges for the wall time is inside the move
    drawn = budget_for(cpu, 200 + 1700)  # 300 ms of the bank gone
    assert drawn.cpu_s == drawn.wall_s == pytest.approx(0.115)
    wall = budget_for({**cpu, "clock": "wall"}, 2200)
    assert wall.cpu_s == wall.wall_s == pytest.approx(0.115)
    assert budget_for({"move_ms": 60_000, "bank_ms": 0}).cpu_s == pytest.approx(2.0 - 0.005)  # at most 2 s
    no_bank = budget_for({"move_ms": 200, "bank_ms": 0, "clock": "cpu"}, 200)  # wall time charged: still in time
    assert no_bank.wall_s <= 0.2 and no_bank.cpu_s == pytest.approx(0.115)
    small = budget_for({"move_ms": 200, "bank_ms": 100, "clock": "cpu"}, 300)
    assert small.wall_s == pytest.approx(0.2 + 0.05 - 0.005)  # risks half the bank, no more
    fixed = budget_for(cpu, 2200, deals=7)
    assert fixed.deals == 7 and fixed.allows(6, 1e9, 1e9) and not fixed.allows(7, 0.0, 0.0)


def test_a_search_samples_its_deals_until_the_budget_or_a_settled_answer_stops_it() -> None:
    """Every search's loop: all the deals allowed, or fewer once the answer is settled,
    asked only from MIN_DEALS on and every CHECK_EVERY deals."""
    assert list(deals_while(Budget.fixed(30), lambda: False)) == list(range(30))
    asked: list[int] = []

    def settled() -> bool:
        asked.append(len(asked))
        return len(asked) == 2

    assert len(list(deals_while(Budget.fixed(100), settled))) == MIN_DEALS + CHECK_EVERY
    assert list(deals_while(Budget(0.0, 0.0), lambda: False)) == []  # no time: not one deal
