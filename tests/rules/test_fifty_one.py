"""Fifty-One, Japanese (docs/RULES.md 5.1) and Chinese (5.2, source text 000), and the net suit score (2).

Scenarios use explicit decks (top card first, see ``deals.build_deck``) so every hand
is exact.  Japanese deals one card at a time from the dealer's left, then five table
cards; Chinese deals counter-clockwise from the dealer's right, then the first
drawer's sixth card.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from deals import build_deck, events, play, texts

from arena.cards import Stock, derive_seed, parse_cards
from arena.rules import Action, IllegalActionError, OptionError, RulesError, get_variant
from arena.rules.fifty_one_chinese import hand_points
from arena.rules.net_suit import net_suit_value, suit_sum_value
from arena.rules.series import RESHUFFLE

JAPANESE = get_variant("fifty-one")
CHINESE = get_variant("fifty-one-chinese")

# ---------------------------------------------------------------------------------------
# net suit score (docs/RULES.md 2)


@pytest.mark.parametrize(
    ("hand", "value", "label"),
    [
        ("2c 8c Kc Tc 4d", 26, "clubs 30 - 4"),  # source text 000's Empat Satu picture, in clubs
        ("Ac Kc Qc Jc 9c", 50, "clubs 50"),
        ("Ac Kc Qc Jc Tc", 51, "clubs 51"),
        ("2h 3d 4s 5c 6h", -4, "hearts 8 - 12"),
        ("As 2c 3c 4c 5c", 3, "clubs 14 - 11"),  # four low clubs beat the lone ace
        ("9h 9d 9s 9c", -18, "spades 9 - 27"),  # four equal choices: the last suit
    ],
)
def test_net_suit_score_chooses_the_best_suit_and_names_it(hand: str, value: int, label: str) -> None:
    result = net_suit_value(parse_cards(hand))
    assert result.value == value
    assert result.label == label
    assert sorted(result.cards) == sorted(parse_cards(hand))


def test_net_suit_lists_the_counted_suit_first() -> None:
    assert [str(c) for c in net_suit_value(parse_cards("4d 2c 8c Kc Tc")).cards] == ["Kc", "Tc", "8c", "2c", "4d"]


def test_two_equal_suits_count_the_one_with_the_higher_lowest_card() -> None:
    result = net_suit_value(parse_cards("Tc 5c Jd 4d"), lowest_tiebreak=True)  # 15 - 14 = 1 either way
    assert result.value == 1 and result.label.startswith("clubs")
    assert result.low_key == (1, parse_cards("5c")[0].rank)


def test_arena_hand_shows_the_net_suit_score_and_the_counted_suit() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", "hand", "2c 8c Kc Tc 4d", "--variant", "fifty-one"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["26", "clubs", "30", "-", "4:", "Kc", "Tc", "8c", "2c", "4d"]


def test_fifty_one_evaluates_five_card_hands_only() -> None:
    assert JAPANESE.evaluate(parse_cards("2c 8c Kc Tc 4d")).value == 26
    with pytest.raises(RulesError, match="5 cards"):
        JAPANESE.evaluate(parse_cards("2c 8c Kc Tc"))
    with pytest.raises(RulesError, match="5 cards"):
        CHINESE.evaluate(parse_cards("2c 8c Kc Tc 4d 5d"))


def test_chinese_hand_value_is_the_suit_sum_and_an_option_gives_the_net_score() -> None:
    hand = parse_cards("2c 8c Kc Tc 4d")
    assert CHINESE.evaluate(hand).value == 30
    assert CHINESE.evaluate(hand, {"hand_value": "net_suit"}).value == 26
    clear = CHINESE.evaluate(parse_cards("Ac Kc Qc Jc Tc"))
    assert clear.value == 51 and "clear count" in clear.label
    assert suit_sum_value(parse_cards("Ah 5h Kd 3d 3s")).label == "hearts 16"


# ---------------------------------------------------------------------------------------
# Japanese Fifty-One (docs/RULES.md 5.1)


def japanese(hands: dict[int, str], table: str, stock: str = "", *, dealer: int = 0, **options: Any) -> Any:
    n = len(hands)
    order = [(dealer + k) % n for k in range(1, n + 1)]
    deck = build_deck(hands, order, table, stock)
    return JAPANESE.new_match(n, options=options, decks=[deck], dealer=dealer)


THREE = {1: "Ac Kc Qc 2d 3d", 2: "Ah Kh 4s 5s 6s", 0: "2h 3h 4h 5h 7c"}


def test_japanese_deal_five_each_five_face_up_and_the_rest_is_the_stock() -> None:
    state = japanese(THREE, "Jc 9d 9h 8s 7s")
    assert state.to_move == 1  # left of the dealer
    obs = state.observe(1)
    assert obs["hand"] == ["Ac", "Kc", "Qc", "2d", "3d"]
    assert obs["table"] == ["Jc", "9d", "9h", "8s", "7s"]
    assert obs["stock"] == 52 - 15 - 5
    deal = events(state, "deal")[0]
    assert deal["table"] == obs["table"] and deal["stock"] == 32


def test_japanese_exchange_swaps_one_hand_card_for_one_table_card() -> None:
    state = japanese(THREE, "Jc 9d 9h 8s 7s")
    legal = texts(state)
    assert "swap_one 2d Jc" in legal and "swap_one 2d Jc stop" in legal
    assert len(legal) == 50  # 5 x 5 swaps, each with or without a stop; no clear on a first turn
    play(state, "1:swap_one 2d Jc")
    assert state.observe(1)["hand"] == ["Ac", "Kc", "Qc", "3d", "Jc"]
    assert state.observe(2)["table"] == ["2d", "9d", "9h", "8s", "7s"]
    assert state.to_move == 2


def test_japanese_clear_only_from_the_second_turn_and_then_a_swap_must_follow() -> None:
    state = japanese(THREE, "Jc 9d 9h 8s 7s", "2c 3c 4c 5c 6c")
    assert "clear" not in texts(state)
    play(state, "1:swap_one 2d Jc", "2:swap_one 4s 9h", "0:swap_one 7c 4s")
    assert "clear" in texts(state)  # seat 1's second turn
    play(state, "1:clear")
    obs = state.observe(1)
    assert obs["table"] == ["2c", "3c", "4c", "5c", "6c"]
    assert obs["phase"] == "must_swap" and obs["cleared"] == 5
    assert not {"2d", "9d", "7c", "8s", "7s"} & set(json.dumps(obs).replace('"', " ").split())
    legal = texts(state)
    assert "clear" not in legal and all(t.startswith("swap_one") for t in legal)
    assert state.to_move == 1
    play(state, "1:swap_one 3d 6c")
    assert state.to_move == 2


def test_japanese_clear_reshuffles_the_cleared_cards_when_the_stock_is_short() -> None:
    seed = 11
    state: Any = JAPANESE.new_match(8, seed=seed)  # 40 + 5 dealt: the stock holds 7
    for _ in range(8):
        state.apply(state.legal_actions()[0])
    first_table = list(state.table)
    state.apply(Action.of("clear"))  # 5 from the stock: 2 left
    state.apply(state.legal_actions()[0])
    assert len(state.stock) == 2 and state.cleared == first_table
    rest = state.stock.clone().deal_many(2)
    cleared = first_table + state.table  # the table being cleared is cleared too
    expected = Stock(rest + cleared, derive_seed(seed, RESHUFFLE, 1, 1)).deal_many(5)
    state.apply(Action.of("clear"))
    assert state.table == expected
    assert events(state, "reshuffle") == [{"stock": 12}]
    assert state.cleared == [] and len(state.stock) == 7
    twin: Any = JAPANESE.new_match(8, seed=seed)
    for _, action in state.actions():
        twin.apply(action)
    assert twin.table == state.table


def test_japanese_clear_at_nine_players_reshuffles_at_once() -> None:
    state: Any = JAPANESE.new_match(9, seed=3)  # 45 + 5 dealt: the stock holds 2
    for _ in range(9):
        state.apply(state.legal_actions()[0])
    assert "clear" in texts(state)
    state.apply(Action.of("clear"))
    assert events(state, "reshuffle") == [{"stock": 7}]
    assert len(state.stock) == 2 and len(state.table) == 5


def test_japanese_stop_gives_every_other_player_one_last_turn() -> None:
    state = japanese(THREE, "Jc 9d 9h 8s 7s")
    play(state, "1:swap_one 2d Jc stop")
    assert state.observe(2)["stopper"] == 1 and state.observe(2)["phase"] == "last_turn"
    assert not any(t.endswith("stop") for t in texts(state))  # nobody stops twice
    play(state, "2:swap_one 4s 9h")
    assert not events(state, "round_end")
    play(state, "0:swap_one 7c 9d")
    end = events(state, "round_end")[0]
    assert end["end"] == "showdown" and end["stopper"] == 1
    # seat 1: Ac Kc Qc Jc 3d = 41 - 3; seat 2: Ah Kh 9h 5s 6s = 30 - 11; seat 0: hearts 14 - 9
    assert end["values"] == {"0": 5, "1": 38, "2": 19}
    assert end["winners"] == [1] and end["hands_won"] == [0, 1, 0]
    assert end["totals"] == [5, 38, 19]


def test_japanese_non_stopper_tied_with_the_stopper_wins_instead() -> None:
    state = japanese({1: "Ac Kc Qc 2d 3d", 0: "Ah Kh Qh 3s 5s"}, "Jc Jh 9s 8s 7s")
    play(state, "1:swap_one 2d Jc stop", "0:swap_one 5s Jh")
    end = events(state, "round_end")[0]
    assert end["values"] == {"0": 38, "1": 38}
    assert end["winners"] == [0]


def test_japanese_ties_without_the_stopper_all_win() -> None:
    hands = {1: "2c 3d 5h 5s 7c", 2: "Ac Kc Qc Jc 3h", 0: "Ad Kd Qd Jd 4h"}
    state = japanese(hands, "3s 9h 8s 8d 2s")
    play(state, "1:swap_one 2c 2s stop", "2:swap_one 3h 3s", "0:swap_one 4h 3h")
    end = events(state, "round_end")[0]
    assert end["values"]["2"] == end["values"]["0"] == 38
    assert sorted(end["winners"]) == [0, 2]


def test_japanese_match_is_rounds_hands_placed_by_hands_won_then_total() -> None:
    state = japanese(THREE, "Jc 9d 9h 8s 7s", rounds=1)
    play(state, "1:swap_one 2d Jc stop", "2:swap_one 4s 9h", "0:swap_one 7c 9d")
    assert state.outcome is not None and state.outcome.reason == "rounds played"
    assert state.outcome.placements == (3, 1, 2)  # seat 1 won; then 19 beats 5
    assert state.outcome.scores == (0.0, 1.0, 0.0)
    default = JAPANESE.new_match(3, seed=1)
    hands = 0
    while not default.is_over:
        action = next((a for a in default.legal_actions() if a.arg == "stop"), default.legal_actions()[0])
        default.apply(action)
        hands = default.round
    assert hands == 6 and events(default, "round_start")[-1]["round"] == 6  # 2 x players


def test_japanese_dealer_passes_left_each_hand() -> None:
    state = JAPANESE.new_match(3, seed=2, options={"rounds": 3})
    while not state.is_over:
        action = next((a for a in state.legal_actions() if a.arg == "stop"), state.legal_actions()[0])
        state.apply(action)
    assert [e["dealer"] for e in events(state, "round_start")] == [0, 1, 2]


def test_japanese_turn_cap_ends_a_hand_without_a_winner() -> None:
    state = JAPANESE.new_match(2, seed=5, options={"max_turns": 4, "rounds": 1})
    for _ in range(4):
        state.apply(next(a for a in state.legal_actions() if not a.arg))
    end = events(state, "round_end")[0]
    assert end["end"] == "turn_cap" and end["hands_won"] == [0, 0]
    assert state.outcome is not None and state.outcome.placements == (1, 1)


def test_japanese_forfeit_in_the_last_turns_skips_that_turn() -> None:
    state = japanese(THREE, "Jc 9d 9h 8s 7s")
    play(state, "1:swap_one 2d Jc stop")
    state.forfeit(2)
    assert state.to_move == 0
    play(state, "0:swap_one 7c 9d")
    end = events(state, "round_end")[0]
    assert set(end["values"]) == {"0", "1"}
    state = japanese(THREE, "Jc 9d 9h 8s 7s")
    play(state, "1:swap_one 2d Jc stop", "2:swap_one 4s 9h")
    state.forfeit(0)  # the last owed turn: the hand is scored at once
    assert events(state, "round_end")[0]["winners"] == [1]


def test_japanese_options_are_checked() -> None:
    assert JAPANESE.defaults() == {"rounds": None, "max_rounds": None, "max_turns": 500}
    with pytest.raises(OptionError, match="unknown option"):
        JAPANESE.resolve({"lives": 3})
    with pytest.raises(OptionError):
        JAPANESE.resolve({"rounds": 0})
    with pytest.raises(OptionError):
        JAPANESE.resolve({"max_turns": "many"})
    state = JAPANESE.new_match(2, seed=1, options={"rounds": 5, "max_rounds": 2})
    while not state.is_over:
        state.apply(next((a for a in state.legal_actions() if a.arg == "stop"), state.legal_actions()[0]))
    assert state.outcome is not None and state.outcome.reason == "round cap" and state.outcome.rounds == 2


def test_japanese_plays_two_to_nine() -> None:
    with pytest.raises(RulesError):
        JAPANESE.new_match(10)
    with pytest.raises(RulesError):
        JAPANESE.new_match(1)
    assert JAPANESE.new_match(9).to_move == 1


def test_japanese_illegal_actions_are_refused() -> None:
    state = japanese(THREE, "Jc 9d 9h 8s 7s")
    for text in ("clear", "swap_one 2h Jc", "swap_one 2d 2h", "draw", "swap_one 2d Jc knock"):
        with pytest.raises(IllegalActionError):
            state.apply(Action.parse(text))
    assert state.to_move == 1 and len(state.log) == 2


# ---------------------------------------------------------------------------------------
# Chinese Fifty-One (docs/RULES.md 5.2, source text 000)


def chinese(hands: dict[int, str], sixth: str, stock: str = "", *, dealer: int = 0, **options: Any) -> Any:
    """Hands as dealt: the first drawer (right of the dealer) gets ``sixth`` on top."""
    n = len(hands)
    order = [(dealer - k) % n for k in range(1, n + 1)]
    deck = build_deck(hands, order, sixth, stock)
    return CHINESE.new_match(n, options=options, decks=[deck], dealer=dealer)


FOUR = {3: "2h 3h 4h 5h 6h", 2: "Ac Kc 2d 3d 4s", 1: "Ad Kd Qd 5s 6s", 0: "9c 8c 7c 2s 3s"}


def test_chinese_deal_draws_counter_clockwise_and_the_first_drawer_discards_a_sixth() -> None:
    state = chinese(FOUR, "Th")
    assert state.to_move == 3  # right of dealer 0
    assert state.observe(3)["hand"] == ["2h", "3h", "4h", "5h", "6h", "Th"]
    assert state.observe(3)["phase"] == "first_discard"
    assert texts(state) == {f"discard {c}" for c in ("2h", "3h", "4h", "5h", "6h", "Th")}
    play(state, "3:discard 2h")
    assert state.observe(0)["face_up"] == ["2h"]
    assert state.to_move == 2  # the first drawer's right has the first turn
    play(state, "2:draw", "2:discard 4s")
    assert state.to_move == 1  # counter-clockwise
    assert events(state, "deal")[0]["first"] == 3


def test_chinese_turn_offers_draw_trade_and_knock_and_a_swap_only_with_five_face_up() -> None:
    state = chinese(FOUR, "Th")
    play(state, "3:discard Th")
    legal = texts(state)
    assert {"draw", "knock", "trade 2d", "trade Ac"} <= legal
    assert not any(t.startswith("swap_one") for t in legal)
    assert len([t for t in legal if t.startswith("trade")]) == 5  # one face-up card: one of five given


def test_chinese_trade_takes_every_face_up_card_for_as_many_from_the_hand() -> None:
    state = chinese(FOUR, "Th", "Qs Js")
    play(state, "3:discard Th", "2:draw", "2:discard 4s", "1:draw")
    assert len([t for t in texts(state) if t.startswith("discard")]) == 6
    play(state, "1:discard 5s")
    face_up = state.observe(0)["face_up"]
    assert face_up == ["Th", "4s", "5s"]
    trades = {t for t in texts(state) if t.startswith("trade")}
    assert len(trades) == 10 and "trade 2s 3s 9c" in trades  # three of the five hand cards
    assert not any(c in t for t in trades for c in face_up)  # never the cards just taken
    play(state, "0:trade 2s 3s 9c")
    assert sorted(state.observe(0)["hand"]) == sorted(["8c", "7c", "Th", "4s", "5s"])
    assert sorted(state.observe(3)["face_up"]) == ["2s", "3s", "9c"]


def test_chinese_draw_with_five_face_up_puts_them_out_of_play_first() -> None:
    state = chinese(FOUR, "Th", "Qs Js Ts 9s 8s 7s")
    play(state, "3:discard Th", "2:draw", "2:discard Qs", "1:draw", "1:discard Js", "0:draw", "0:discard Ts")
    play(state, "3:draw", "3:discard 9s")
    assert len(state.observe(2)["face_up"]) == 5
    assert any(t.startswith("swap_one") for t in texts(state))
    play(state, "2:swap_one 2d 9s")
    assert "9s" in state.observe(2)["hand"] and "2d" in state.observe(2)["face_up"]
    play(state, "1:draw")
    assert state.observe(1)["face_up"] == [] and state.observe(1)["out_of_play"] == 5
    assert events(state, "action")[-1]["out_of_play"] == 5
    play(state, "1:discard 5s")
    assert state.observe(1)["face_up"] == ["5s"]


def test_chinese_knock_opens_the_challenge_round_in_turn() -> None:
    state = chinese(FOUR, "Th")
    play(state, "3:discard Th", "2:knock")
    assert state.observe(1)["phase"] == "challenge" and state.observe(1)["caller"] == 2
    assert texts(state) == {"challenge", "pass"}
    play(state, "1:challenge")
    assert state.observe(0)["challengers"] == [1]
    play(state, "0:pass", "3:challenge")
    end = events(state, "round_end")[0]
    assert end["end"] == "knock" and end["caller"] == 2 and end["challengers"] == [1, 3]
    # caller 2: clubs 21; challengers 1: diamonds 31, 3: hearts 20; non-challenger 0: clubs 24
    assert end["values"] == {"0": 24, "1": 31, "2": 21, "3": 20}
    assert end["points_won"] == [24, 31 + 21 + 20, 0, 0]
    assert end["points"] == end["points_won"]


def test_chinese_no_challenge_scores_everyone_their_own_hand() -> None:
    state = chinese(FOUR, "Th")
    play(state, "3:discard Th", "2:knock", "1:pass", "0:pass", "3:pass")
    assert events(state, "round_end")[0]["points_won"] == [24, 31, 21, 20]


# The challenge scoring of source text 000, case by case: values by seat, the caller, the
# challengers in the order they challenged, and every seat's points.
CHALLENGES = [
    # nobody challenges: the caller scores its hand, and so does everyone else
    ({0: 30, 1: 25, 2: 20}, 0, [], {0: 30, 1: 25, 2: 20}),
    # one challenger, lower: the caller takes both hands, the challenger scores 0
    ({0: 30, 1: 25, 2: 20}, 0, [1], {0: 55, 1: 0, 2: 20}),
    # one challenger, equal: the challenger takes both, the caller scores 0
    ({0: 30, 1: 30, 2: 20}, 0, [1], {0: 0, 1: 60, 2: 20}),
    # one challenger, higher
    ({0: 30, 1: 35, 2: 20}, 0, [1], {0: 0, 1: 65, 2: 20}),
    # several challengers, the caller highest: it takes every challenger's hand
    ({0: 40, 1: 35, 2: 20, 3: 15}, 0, [1, 2], {0: 95, 1: 0, 2: 0, 3: 15}),
    # several challengers, one above the caller: it takes the caller's and every challenger's
    ({0: 30, 1: 35, 2: 20, 3: 15}, 0, [2, 1], {0: 0, 1: 85, 2: 0, 3: 15}),
    # challengers tied for highest above the caller: the last to challenge wins
    ({0: 30, 1: 35, 2: 35, 3: 15}, 0, [2, 1], {0: 0, 1: 100, 2: 0, 3: 15}),
    ({0: 30, 1: 35, 2: 35, 3: 15}, 0, [1, 2], {0: 0, 1: 0, 2: 100, 3: 15}),
    # several challengers, the best equal to the caller: a challenger wins ties with the caller
    ({0: 30, 1: 30, 2: 20, 3: 15}, 0, [1, 2], {0: 0, 1: 80, 2: 0, 3: 15}),
    # the caller sits anywhere; challengers in turn after it
    ({0: 10, 1: 12, 2: 31, 3: 11}, 2, [1, 0], {0: 0, 1: 0, 2: 53, 3: 11}),
]


@pytest.mark.parametrize(("values", "caller", "challengers", "points"), CHALLENGES)
def test_chinese_challenge_scoring_table(
    values: dict[int, int], caller: int, challengers: list[int], points: dict[int, int]
) -> None:
    assert hand_points(values, caller, challengers) == points


def test_chinese_clear_count_scores_102_five_of_a_suit_their_value_and_others_0() -> None:
    values = {0: 51, 1: 20, 2: 30}
    assert hand_points(values, None, (), clear=[0], one_suited=[0, 1]) == {0: 102, 1: 20, 2: 0}
    # a clear count decides even a challenged knock
    assert hand_points(values, 2, [0], clear=[0], one_suited=[0]) == {0: 102, 1: 0, 2: 0}


def test_chinese_clear_count_knock_ends_the_hand() -> None:
    hands = {1: "2h 3h 4h 5h 6h", 0: "Ac Kc Qc Jc 2d"}
    state = chinese(hands, "Tc")  # two players, dealer 0: seat 1 draws first
    play(state, "1:discard Tc", "0:trade 2d")
    assert state.observe(0)["phase"] == "clear_count"
    assert texts(state) == {"knock", "pass"} and state.to_move == 0
    play(state, "0:knock")
    end = events(state, "round_end")[0]
    assert end["end"] == "clear_count" and end["caller"] is None
    assert end["points_won"] == [102, 20]  # seat 1 holds five hearts: their value


def test_chinese_clear_count_holder_may_play_on() -> None:
    state = chinese({1: "2h 3h 4h 5h 6h", 0: "Ac Kc Qc Jc 2d"}, "Tc")
    play(state, "1:discard Tc", "0:trade 2d", "0:pass")
    assert state.to_move == 1 and state.observe(1)["phase"] == "turn"
    play(state, "1:knock", "0:pass")
    assert events(state, "round_end")[0]["points_won"] == [102, 20]


def test_chinese_empty_stock_ends_the_hand_after_that_turn() -> None:
    state = CHINESE.new_match(9, seed=4)  # 45 + 1 drawn: six cards left
    state.apply(state.legal_actions()[0])
    for _ in range(6):
        assert not events(state, "round_end")
        seat = state.to_move
        state.apply(Action.of("draw"))
        state.apply(state.legal_actions()[0])
        assert state.to_move != seat or events(state, "round_end")
    end = events(state, "round_end")[0]
    assert end["end"] == "stock_out"
    assert end["points_won"] == [end["values"][str(s)] for s in range(9)]


def test_chinese_game_to_target_with_a_playoff_for_a_tied_lead() -> None:
    hands = {1: "Ah Kh 2s 3s 4s", 0: "Ac Kc 2d 3d 4d"}
    deck = build_deck(hands, [1, 0], "5h")
    state = CHINESE.new_match(2, options={"target": 10}, decks=[deck])
    play(state, "1:discard 5h", "0:knock", "1:pass")  # 21 each: tied at the target
    assert not state.is_over and state.round == 2
    state = CHINESE.new_match(2, options={"target": 10, "tie_playoff": False}, decks=[deck])
    play(state, "1:discard 5h", "0:knock", "1:pass")
    assert state.outcome is not None and state.outcome.reason == "target reached"
    assert state.outcome.placements == (1, 1) and state.outcome.scores == (21.0, 21.0)
    state = CHINESE.new_match(2, options={"target": 22}, decks=[deck])
    play(state, "1:discard 5h", "0:knock", "1:challenge")  # equal: the challenger takes 42
    assert state.outcome is not None and state.outcome.placements == (2, 1)


def test_chinese_deal_passes_to_the_right() -> None:
    state = CHINESE.new_match(3, seed=9, options={"target": 10_000, "max_rounds": 3})
    while not state.is_over:
        state.apply(Action.of("knock") if Action.of("knock") in state.legal_actions() else state.legal_actions()[0])
    assert [e["dealer"] for e in events(state, "round_start")] == [0, 2, 1]
    assert state.outcome is not None and state.outcome.reason == "round cap"


def test_chinese_defaults_and_options() -> None:
    assert CHINESE.defaults() == {
        "target": 500, "hand_value": "suit_sum", "tie_playoff": True, "max_rounds": None, "max_turns": 500,
    }
    with pytest.raises(OptionError):
        CHINESE.resolve({"target": 0})
    with pytest.raises(OptionError):
        CHINESE.resolve({"hand_value": "blackjack"})
    with pytest.raises(OptionError, match="unknown option"):
        CHINESE.resolve({"rounds": 3})
    state: Any = CHINESE.new_match(2, seed=1)
    assert state._max_rounds == 500  # a points game's round cap


def test_chinese_caller_forfeit_ends_the_challenge_round() -> None:
    state = chinese(FOUR, "Th")
    play(state, "3:discard Th", "2:knock", "1:challenge")
    state.forfeit(2)
    end = events(state, "round_end")[0]
    assert end["caller"] is None and end["points_won"] == [24, 31, 0, 20]
