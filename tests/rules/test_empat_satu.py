"""Empat Satu (docs/RULES.md 5.3, source text 000): four cards, draw or take, stop, net suit scores.

Scenarios use explicit decks (top card first, see ``deals.build_deck``): four cards
each, one at a time from the dealer's left, then the stock.  In the first hand the
dealer plays first.
"""

from __future__ import annotations

from typing import Any

import pytest
from deals import build_deck, events, play, texts

from arena.cards import parse_cards
from arena.rules import Action, IllegalActionError, OptionError, RulesError, get_variant

EMPAT = get_variant("empat-satu")


def empat(hands: dict[int, str], stock: str = "", *, dealer: int = 0, **options: Any) -> Any:
    n = len(hands)
    order = [(dealer + k) % n for k in range(1, n + 1)]
    return EMPAT.new_match(n, options=options, decks=[build_deck(hands, order, stock)], dealer=dealer)


THREE = {1: "Ac Kc Qc 2d", 2: "Ah Kh Qh 3d", 0: "9s 8s 2c 3h"}


def test_values_are_net_suit_scores_of_four_cards() -> None:
    assert EMPAT.evaluate(parse_cards("Ac Kc Qc 2d")).value == 29
    assert EMPAT.evaluate(parse_cards("9h 9d 9s 9c")).value == -18
    with pytest.raises(RulesError, match="4 cards"):
        EMPAT.evaluate(parse_cards("Ac Kc Qc 2d 3d"))


def test_equal_scores_are_ordered_by_the_lowest_card_of_the_counted_suit() -> None:
    high = EMPAT.evaluate(parse_cards("Kc Qc 9c 3d"))  # 29 - 3, lowest counted card 9
    low = EMPAT.evaluate(parse_cards("Kh Jh 8h 2s"))  # 28 - 2, lowest counted card 8
    assert high.value == low.value == 26
    assert high.low_key > low.low_key and high.high_key > low.high_key
    same = EMPAT.evaluate(parse_cards("Kh Th 9h 3s"))
    assert same.low_key == high.low_key


def test_deal_four_each_from_the_dealers_left_and_the_dealer_plays_first() -> None:
    state = empat(THREE)
    assert state.to_move == 0
    assert state.observe(1)["hand"] == ["Ac", "Kc", "Qc", "2d"]
    assert state.observe(0)["stock"] == 52 - 12
    assert state.observe(0)["discard_top"] is None
    assert events(state, "round_start")[0]["first"] == 0


def test_the_very_first_turn_must_draw() -> None:
    state = empat(THREE)
    assert texts(state) == {"draw"}
    with pytest.raises(IllegalActionError):
        state.apply(Action.of("take"))


def test_draw_then_discard_any_card_and_play_passes_left() -> None:
    state = empat(THREE, "5c")
    play(state, "0:draw")
    assert texts(state) == {f"discard {c}" for c in ("9s", "8s", "2c", "3h", "5c")}
    play(state, "0:discard 5c")
    assert state.to_move == 1 and state.observe(1)["discard_top"] == "5c"
    assert texts(state) == {"draw", "take"}


def test_a_taken_card_cannot_be_discarded_the_same_turn() -> None:
    state = empat(THREE, "5c")
    play(state, "0:draw", "0:discard 5c", "1:take")
    assert state.observe(1)["must_keep"] == "5c"
    assert texts(state) == {f"discard {c}" for c in ("Ac", "Kc", "Qc", "2d")}
    play(state, "1:discard 2d")
    assert state.observe(2)["discard_top"] == "2d"


def test_stop_before_drawing_with_four_of_a_suit_ends_the_hand() -> None:
    hands = {1: "Ac Kc Qc 2d", 2: "Ah Kh Qh 3d", 0: "9s 8s 7s 6s"}
    state = empat(hands)
    assert texts(state) == {"stop", "draw"}
    play(state, "0:stop")
    end = events(state, "round_end")[0]
    assert end["end"] == "stop"
    assert end["values"] == {"0": 30, "1": 29, "2": 28}
    assert end["hands"]["2"] == ["Ah", "Kh", "Qh", "3d"]
    assert end["winners"] == [0] and end["losers"] == [2]


def test_no_stop_after_drawing() -> None:
    hands = {1: "Ac Kc Qc 2d", 2: "Ah Kh Qh 3d", 0: "9s 8s 7s 2c"}
    state = empat(hands, "6s")
    play(state, "0:draw")
    assert "stop" not in texts(state)
    play(state, "0:discard 2c")  # four spades now: stop waits for the next turn
    play(state, "1:draw", "1:discard 2d", "2:draw", "2:discard 3d")
    assert "stop" in texts(state)


def test_highest_wins_lowest_loses_ties_by_the_lowest_counted_card() -> None:
    hands = {1: "Kc Qc 9c 3d", 2: "Kh Jh 8h 2s", 0: "As Ks Qs Js"}
    state = empat(hands)
    play(state, "0:stop")
    end = events(state, "round_end")[0]
    assert end["values"] == {"0": 41, "1": 26, "2": 26}
    assert end["winners"] == [0] and end["losers"] == [2]
    assert end["wins"] == [1, 0, 0] and end["losses"] == [0, 0, 1]
    assert end["totals"] == [41, 26, 26]


def test_the_loser_deals_and_the_winner_plays_first() -> None:
    first = build_deck({1: "Kc Qc 9c 3d", 2: "Kh Jh 8h 2s", 0: "As Ks Qs Js"}, [1, 2, 0])
    second = build_deck({0: "2c 3c 4c 5c", 1: "2d 3d 4d 5d", 2: "2h 3h 4h 5h"}, [0, 1, 2])
    state = EMPAT.new_match(3, decks=[first, second], options={"rounds": 2})
    play(state, "0:stop")
    start = events(state, "round_start")[1]
    assert start["dealer"] == 2 and start["first"] == 0
    assert state.to_move == 0
    assert state.observe(0)["hand"] == ["2c", "3c", "4c", "5c"]  # dealt from the loser's left


def test_all_equal_hands_have_no_winner_and_the_deal_passes_left() -> None:
    hands = {1: "2c 3c 4c 5c", 2: "2d 3d 4d 5d", 0: "2h 3h 4h 5h"}
    state = empat(hands)
    play(state, "0:stop")
    end = events(state, "round_end")[0]
    assert end["winners"] == [] and end["losers"] == []
    start = events(state, "round_start")[1]
    assert start["dealer"] == 1 and start["first"] == 1 and state.to_move == 1


def test_empty_stock_play_goes_on_while_players_take() -> None:
    state = EMPAT.new_match(2, seed=8)
    while state.observe(0)["stock"]:
        state.apply(Action.of("draw"))
        state.apply(state.legal_actions()[-1])  # throw the drawn card back
    legal = texts(state)
    assert "draw" not in legal and {"take", "pass"} <= legal
    state.apply(Action.of("take"))
    state.apply(state.legal_actions()[0])
    assert not events(state, "round_end")
    seat = state.to_move
    state.apply(Action.of("pass"))
    end = events(state, "round_end")[0]
    assert end["end"] == "stock_out" and end["hands"] and seat is not None


def test_match_is_rounds_hands_placed_by_wins_minus_losses_then_total() -> None:
    hands = {1: "Kc Qc 9c 3d", 2: "Kh Jh 8h 2s", 0: "As Ks Qs Js"}
    state = empat(hands, rounds=1)
    play(state, "0:stop")
    assert state.outcome is not None and state.outcome.reason == "rounds played"
    assert state.outcome.scores == (1.0, 0.0, -1.0)
    assert state.outcome.placements == (1, 2, 3)
    default = EMPAT.new_match(4, seed=3)
    while not default.is_over:
        legal = default.legal_actions()
        default.apply(next((a for a in legal if a.kind in ("stop", "pass")), legal[0]))
    assert default.outcome is not None and default.outcome.rounds == 8  # 2 x players


def test_placements_tie_on_wins_minus_losses_break_by_total_score() -> None:
    hands = {1: "Kc Qc 9c 3d", 2: "Kh Jh 8h 2s", 3: "Kd Td 9d 3h", 0: "As Ks Qs Js"}
    state = empat(hands, rounds=1)
    play(state, "0:stop")
    # seat 0 wins; seat 2 (26, lowest 8) loses; seats 1 and 3 (26, lowest 9) are in between
    assert state.outcome is not None and state.outcome.placements == (1, 2, 4, 2)


def test_two_to_eight_players() -> None:
    assert EMPAT.new_match(8, seed=1).to_move == 0
    with pytest.raises(RulesError, match="2 to 8"):
        EMPAT.new_match(9)


def test_options_are_checked_and_caps_apply() -> None:
    assert EMPAT.defaults() == {"rounds": None, "max_rounds": None, "max_turns": 500}
    with pytest.raises(OptionError, match="unknown option"):
        EMPAT.resolve({"target": 41})
    with pytest.raises(OptionError):
        EMPAT.resolve({"rounds": "two"})
    state = EMPAT.new_match(2, seed=4, options={"max_turns": 3, "rounds": 1})
    for _ in range(3):
        state.apply(Action.of("draw"))
        state.apply(state.legal_actions()[0])
    end = events(state, "round_end")[0]
    assert end["end"] == "turn_cap" and "winners" not in end and end["wins"] == [0, 0]
    assert state.outcome is not None and state.outcome.placements == (1, 1)


def test_forfeit_of_the_seat_to_move_passes_the_turn() -> None:
    state = empat(THREE, "5c")
    play(state, "0:draw")
    state.forfeit(0)
    assert state.to_move == 1 and texts(state) == {"draw"}
    play(state, "1:draw", "1:discard 2d", "2:take")
    state.forfeit(1)  # the last player in wins; later forfeits place higher
    assert state.outcome is not None and state.outcome.placements == (3, 2, 1)
