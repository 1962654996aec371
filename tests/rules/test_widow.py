"""The widow family (docs/RULES.md sections 1, 2, 4 and 5b): Schwimmen, Stop the Bus and Switch.

Every scenario uses an explicit deck (top card first) so the outcome is exact.  Cards are
dealt one at a time from the dealer's left, then the table (Schwimmen's widow; Switch's
dealer's second hand and then the face-down hand), then the stock, top first;
:func:`build_deck` lays a deck out that way.  With three players and dealer 0, seat 1
plays first, then 2, then 0.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from invariants import snapshot

from arena.cards import Card, derive_seed, new_deck, parse_cards, shuffled_deck
from arena.rules import Action, IllegalActionError, OptionError, RulesError, get_variant
from arena.rules.brag import brag_value
from arena.rules.game import MatchState
from arena.rules.widow import WidowState

KEEP = Action.of("keep")
SWAP_HAND = Action.of("swap_hand")
SWAP_ALL = Action.of("swap_all")
PASS = Action.of("pass")
KNOCK = Action.of("knock")

# Schwimmen hands (32-card deck) and their values.
LOW = "7c 8d 9h"  # 9
H20 = "Kh Qh 7d"  # 20 in hearts
S24 = "7s 8s 9s"  # 24 in spades
H25 = "Th 8h 7h"  # 25 in hearts
WIDOW = "Td Jd 9c"  # 20 in diamonds

# ---------------------------------------------------------------------------------------
# helpers


def build_deck(
    hands: Sequence[str | None],
    table: str | Sequence[str],
    stock: str = "",
    *,
    dealer: int = 0,
    size: int = 32,
) -> list[Card]:
    """A whole deck that deals ``hands[seat]`` to each seat (``None``: a seat already out),
    then the table hand(s), then ``stock`` (top first), then the rest in fresh-deck order."""
    n = len(hands)
    order = [(dealer + k) % n for k in range(1, n + 1) if hands[(dealer + k) % n] is not None]
    parsed = {s: parse_cards(hands[s] or "") for s in order}
    assert all(len(h) == 3 for h in parsed.values())
    deck = [parsed[s][i] for i in range(3) for s in order]
    for cards in [table] if isinstance(table, str) else table:
        deck += parse_cards(cards)
    deck += parse_cards(stock)
    assert len(set(deck)) == len(deck), "a card is used twice in the scenario"
    deck += [c for c in new_deck(size) if c not in deck]
    assert len(deck) == size
    return deck


def match(
    variant: str,
    decks: Sequence[Sequence[Card]],
    players: int = 3,
    *,
    dealer: int = 0,
    seed: int = 1,
    **options: Any,
) -> WidowState:
    state = get_variant(variant).new_match(players, seed=seed, options=options, decks=decks, dealer=dealer)
    assert isinstance(state, WidowState)
    return state


def schwimmen(hands: Sequence[str | None], table: str = WIDOW, stock: str = "", *, keep: bool = True,
              dealer: int = 0, **options: Any) -> WidowState:
    """A Schwimmen match on one explicit deal; the dealer keeps its hand unless ``keep`` is False."""
    state = match("schwimmen", [build_deck(hands, table, stock, dealer=dealer)], len(hands), dealer=dealer, **options)
    if keep and state.observe(dealer)["phase"] == "choice":
        play(state, dealer, "keep")
    return state


def play(state: MatchState, seat: int, text: str) -> None:
    """Apply the action written ``text`` for ``seat``, which must be the seat to move."""
    assert state.to_move == seat, f"expected seat {seat} to move, not {state.to_move}"
    state.apply(Action.parse(text))


def ends(state: MatchState) -> list[dict[str, Any]]:
    """The public part of every round_end event so far."""
    return [dict(e.public) for e in state.log if e.kind == "round_end"]


def events(state: MatchState, kind: str) -> list[Any]:
    return [e for e in state.log if e.kind == kind]


def names(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def legal_texts(state: MatchState) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def assert_illegal(state: MatchState, text: str) -> None:
    """The action written ``text`` is refused and the state is unchanged."""
    before = snapshot(state)
    action = Action.parse(text)
    assert action not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert snapshot(state) == before


def knock_and_pass(state: MatchState, knocker: int) -> dict[str, Any]:
    """``knocker`` (to move) knocks and every other seat passes; returns the round_end."""
    start = len(ends(state))
    play(state, knocker, "knock")
    while len(ends(state)) == start:
        seat = state.to_move
        assert seat is not None
        play(state, seat, "pass")
    return ends(state)[start]


def value(hand: str, variant: str = "schwimmen", **options: Any) -> float:
    return get_variant(variant).evaluate(parse_cards(hand), options).value


# ---------------------------------------------------------------------------------------
# 4.1 the deal and the dealer's choice


def test_deal_one_card_at_a_time_then_the_widow_face_down() -> None:
    deck = build_deck([LOW, H20, S24], WIDOW)
    state = match("schwimmen", [deck])
    assert names(state.hands[1]) == names(deck[0:9:3])
    assert names(state.hands[2]) == names(deck[1:9:3])
    assert names(state.hands[0]) == names(deck[2:9:3])
    assert names(state.table[0]) == WIDOW.split()
    assert len(state.stock) == 32 - 12
    assert state.to_move == 0  # the dealer chooses first
    assert set(state.legal_actions()) == {KEEP, SWAP_HAND}
    for seat in range(3):
        obs = state.observe(seat)
        assert obs["phase"] == "choice" and obs["widow"] == (None, None, None)
        assert obs["stock"] == 20 and obs["dealer"] == 0 and obs["dealer_choice"] is None
    deal = events(state, "deal")[0]
    assert deal.public == {"stock": 20, "widow": (None, None, None)}
    assert deal.view(1)["hand"] == H20.split() and "hand" not in deal.view(None)


def test_seeded_deal_is_the_derived_shuffle() -> None:
    state = match("schwimmen", [], seed=2024)
    deck = shuffled_deck(derive_seed(2024, 1, 1), 32)
    assert names(state.hands[1]) == names(deck[0:9:3])
    assert names(state.table[0]) == names(deck[9:12])


def test_keep_turns_the_widow_up_and_play_starts_left_of_the_dealer() -> None:
    state = schwimmen([LOW, H20, S24], dealer=0, keep=False)
    play(state, 0, "keep")
    assert state.to_move == 1
    assert names(state.hands[0]) == LOW.split()
    assert events(state, "turn_up")[0].public == {"cards": WIDOW.split()}
    for seat in range(3):
        obs = state.observe(seat)
        assert obs["widow"] == tuple(WIDOW.split()) and obs["phase"] == "turn"
        assert obs["dealer_choice"] == "keep"


def test_swap_hand_takes_the_widow_unseen_and_shows_the_old_hand() -> None:
    state = schwimmen([LOW, H20, S24], keep=False)
    play(state, 0, "swap_hand")
    assert names(state.hands[0]) == WIDOW.split()
    assert names(state.table[0]) == LOW.split()
    choice = [e for e in state.log if e.kind == "action"][0]
    assert choice.public == {"action": "swap_hand"}
    assert choice.view(0)["hand"] == WIDOW.split()
    for seat in (1, 2):
        # the others see that the dealer swapped and the old hand, now the widow, never the new hand
        text = json.dumps([choice.view(seat), state.observe(seat)])
        assert not any(card in text for card in WIDOW.split())
        assert state.observe(seat)["widow"] == tuple(LOW.split())
        assert state.observe(seat)["dealer_choice"] == "swap_hand"


def test_blind_swap_off_turns_the_widow_up_at_once() -> None:
    state = schwimmen([LOW, H20, S24], keep=False, blind_swap=False)
    assert state.to_move == 1 and state.observe(1)["phase"] == "turn"
    assert state.observe(2)["widow"] == tuple(WIDOW.split())
    assert_illegal(state, "keep")
    assert_illegal(state, "swap_hand")


def test_dealer_choice_only_for_the_dealer_and_only_once() -> None:
    state = schwimmen([LOW, H20, S24], keep=False)
    assert_illegal(state, "pass")
    assert_illegal(state, "swap_all")
    play(state, 0, "keep")
    assert_illegal(state, "keep")
    assert_illegal(state, "swap_hand")


# ---------------------------------------------------------------------------------------
# 4.1 a turn


def test_swap_one_trades_a_hand_card_for_a_widow_card() -> None:
    state = schwimmen([LOW, H20, S24])
    play(state, 1, "swap_one 7d Td")
    assert sorted(names(state.hands[1])) == sorted(["Kh", "Qh", "Td"])
    assert sorted(names(state.table[0])) == sorted(["7d", "Jd", "9c"])
    assert state.log[-1].public == {"action": "swap_one 7d Td"}
    assert set(state.observe(2)["widow"]) == {"7d", "Jd", "9c"}
    assert state.to_move == 2


def test_swap_all_trades_the_whole_hand() -> None:
    state = schwimmen([LOW, H20, S24])
    play(state, 1, "swap_all")
    assert sorted(names(state.hands[1])) == sorted(WIDOW.split())
    assert sorted(names(state.table[0])) == sorted(H20.split())
    assert state.log[-1].public == {"action": "swap_all", "gave": H20.split()}


def test_a_turn_is_one_or_three_cards_pass_or_knock_never_two() -> None:
    state = schwimmen([LOW, H20, S24], knock_first_round=True)
    hand, widow = state.hands[1], state.table[0]
    expected = {f"swap_one {g} {t}" for g in names(hand) for t in names(widow)} | {"swap_all", "pass", "knock"}
    assert legal_texts(state) == expected
    assert_illegal(state, "swap_one Kh Qh Td Jd")
    assert_illegal(state, "swap_one Kh Td Jd")
    assert_illegal(state, "swap_one 7c Td")  # not in the hand
    assert_illegal(state, "swap_one Kh 7s")  # not in the widow
    assert_illegal(state, "draw")


def test_pass_keeps_the_hand() -> None:
    state = schwimmen([LOW, H20, S24])
    play(state, 1, "pass")
    assert names(state.hands[1]) == H20.split() and names(state.table[0]) == WIDOW.split()
    assert state.log[-1].public == {"action": "pass"}
    assert state.observe(2)["passes"] == 1


# ---------------------------------------------------------------------------------------
# 4.1 and 5b: a new widow after a full round of passes


def test_every_player_passing_turns_up_a_new_widow() -> None:
    state = schwimmen([LOW, H20, S24], stock="Ac Kc Qs")
    for seat in (1, 2, 0):
        assert not events(state, "new_widow")
        play(state, seat, "pass")
    new = events(state, "new_widow")[0]
    assert new.public == {"cards": ["Ac", "Kc", "Qs"], "stock": 17}
    assert names(state.table[0]) == ["Ac", "Kc", "Qs"]
    assert set(names(state.discarded)) == set(WIDOW.split())  # out of play
    assert state.to_move == 1  # the player after the last passer
    assert state.observe(1)["passes"] == 0


def test_new_widow_with_a_short_stock_is_a_draw() -> None:
    """Nine players on 32 cards leave a stock of two: a full round of passes draws the round."""
    state = match("schwimmen", [new_deck(32)], 9)
    assert len(state.stock) == 2
    play(state, 0, "keep")
    for k in range(9):
        assert not ends(state)
        play(state, (1 + k) % 9, "pass")
    end = ends(state)[0]
    assert end["end"] == "draw" and end["lives_lost"] == [0] * 9 and end["lives"] == [3] * 9
    assert state.round == 2


def test_a_swap_resets_the_pass_count() -> None:
    state = schwimmen([LOW, H20, S24], stock="Ac Kc Qs")
    play(state, 1, "pass")
    play(state, 2, "swap_one 7s Td")
    play(state, 0, "pass")
    play(state, 1, "pass")
    assert not events(state, "new_widow")
    play(state, 2, "pass")
    assert events(state, "new_widow")


def test_a_new_widow_starts_the_count_again() -> None:
    state = schwimmen([LOW, H20, S24], stock="Ac Kc Qs Ad Kd Qc")
    for seat in (1, 2, 0, 1, 2):
        play(state, seat, "pass")
    assert len(events(state, "new_widow")) == 1
    play(state, 0, "pass")
    assert len(events(state, "new_widow")) == 2
    assert names(state.table[0]) == ["Ad", "Kd", "Qc"]


def test_passes_after_a_knock_are_last_turns() -> None:
    state = schwimmen([LOW, H20, S24], knock_first_round=True)
    play(state, 1, "pass")
    play(state, 2, "pass")
    play(state, 0, "knock")
    assert state.observe(1)["passes"] == 0  # a knock resets the count
    play(state, 1, "pass")
    play(state, 2, "pass")
    assert not events(state, "new_widow")
    end = ends(state)[0]
    assert end["end"] == "showdown" and end["knocker"] == 0


# ---------------------------------------------------------------------------------------
# 4.1 knocking and the last turns


def test_knock_first_round_no_by_default() -> None:
    """5b: nobody knocks before every player still in has had a turn; the knocker too, and
    the dealer's choice is not a turn."""
    state = schwimmen([LOW, H20, S24])
    assert get_variant("schwimmen").defaults()["knock_first_round"] is False
    for seat in (1, 2, 0):  # the first orbit: the dealer's keep did not count for seat 0
        assert_illegal(state, "knock")
        play(state, seat, "pass")
    assert KNOCK in state.legal_actions()
    play(state, 1, "knock")
    assert state.observe(2)["knocker"] == 1


def test_knock_first_round_yes_allows_a_first_turn_knock() -> None:
    state = schwimmen([LOW, H20, S24], knock_first_round=True)
    assert KNOCK in state.legal_actions()
    play(state, 1, "knock")
    assert state.observe(0)["phase"] == "last_turn"


def test_after_a_knock_each_other_player_has_one_more_turn() -> None:
    state = schwimmen([LOW, H20, S24, H25], knock_first_round=True)  # order 1, 2, 3, 0
    play(state, 1, "pass")
    play(state, 2, "knock")
    for seat in (3, 0):
        assert KNOCK not in state.legal_actions()
        assert {PASS, SWAP_ALL} <= set(state.legal_actions())
        play(state, seat, "pass")
    assert not ends(state) and state.to_move == 1  # the player to the knocker's right
    play(state, 1, "swap_one 7d Td")
    end = ends(state)[0]
    assert end["end"] == "showdown" and end["knocker"] == 2
    assert end["hands"]["1"] == ["Kh", "Qh", "Td"]
    assert end["lives_lost"] == [1, 0, 0, 0]  # seat 0's 9 is lowest


def test_nobody_knocks_twice() -> None:
    state = schwimmen([LOW, H20, S24], knock_first_round=True)
    play(state, 1, "knock")
    assert_illegal(state, "knock")


@pytest.mark.parametrize(
    ("hands", "lost"),
    [
        ([H20, LOW, S24], [0, 1, 0]),  # the knocker (seat 1) lowest alone loses one, not two
        ([H20, "9d 8c 7h", LOW], [0, 1, 0]),  # 9 each: the knocker's diamonds rank below hearts
        ([S24, "Kc Qc 7h", "Kh Qh 7c"], [0, 0, 1]),  # 20 each: hearts below clubs, the knocker is safe
    ],
)
def test_the_knocker_gets_no_special_treatment(hands: list[str], lost: list[int]) -> None:
    state = schwimmen(hands, knock_first_round=True)
    assert knock_and_pass(state, 1)["lives_lost"] == lost


def test_knock_after_swap_option() -> None:
    state = schwimmen([LOW, H20, S24, H25], knock_first_round=True, knock_after_swap=True)
    assert {"swap_one 7d Td knock", "swap_all knock", "knock"} <= legal_texts(state)
    play(state, 1, "swap_one 7d Td knock")
    assert sorted(names(state.hands[1])) == ["Kh", "Qh", "Td"]
    assert state.observe(2)["knocker"] == 1 and state.observe(2)["phase"] == "last_turn"
    assert not any(a.arg.endswith("knock") for a in state.legal_actions())  # one knock per round
    for seat in (2, 3, 0):
        play(state, seat, "pass")
    assert ends(state)[0]["knocker"] == 1


def test_knock_after_swap_off_by_default_and_bound_by_the_first_round() -> None:
    state = schwimmen([LOW, H20, S24], knock_first_round=True)
    assert_illegal(state, "swap_one 7d Td knock")
    state = schwimmen([LOW, H20, S24], knock_after_swap=True)
    assert_illegal(state, "swap_one 7d Td knock")  # knock_first_round = no still applies
    for seat in (1, 2, 0):
        play(state, seat, "pass")
    assert "swap_all knock" in legal_texts(state)


# ---------------------------------------------------------------------------------------
# 4.1 31 and Feuer


def test_31_by_a_swap_ends_the_round_and_the_lowest_loses() -> None:
    state = schwimmen([LOW, "Ad Kd 7h", S24], table="Qd 9c 8h")
    play(state, 1, "swap_one 7h Qd")
    end = ends(state)[0]
    assert end["end"] == "thirty-one" and end["specials"] == [1]
    assert end["lives_lost"] == [1, 0, 0]
    assert set(end["hands"]) == {"0", "1", "2"}  # shown as at a showdown


def test_31_at_the_widow_turn_up_ends_the_round_before_any_turn() -> None:
    state = schwimmen([LOW, "Ad Kd Qd", S24], keep=False)
    assert not ends(state)  # the dealer's choice comes first
    play(state, 0, "keep")
    end = ends(state)[0]
    assert end["end"] == "thirty-one" and end["lives_lost"] == [1, 0, 0]
    assert not [e for e in state.log[: state.log.index(events(state, "round_end")[0])]
                if e.kind == "action" and e.public["action"] != "keep"]


def test_dealer_swapping_into_a_31_ends_the_round() -> None:
    state = schwimmen([LOW, H20, S24], table="Ac Kc Qc", keep=False)
    play(state, 0, "swap_hand")
    end = ends(state)[0]
    assert end["end"] == "thirty-one" and end["specials"] == [0]
    assert end["lives_lost"] == [0, 1, 0]  # the dealer's old hand is now the widow: seat 1's 20 is lowest


def test_feuer_costs_every_other_player_a_life() -> None:
    state = schwimmen([LOW, "Ac Ad 7h", S24], table="Ah 9c 8h")
    play(state, 1, "swap_one 7h Ah")
    end = ends(state)[0]
    assert end["end"] == "feuer" and end["specials"] == [1]
    assert end["lives_lost"] == [1, 0, 1]
    assert end["hands"] == {"1": ["Ac", "Ad", "Ah"]} and end["values"] == {"1": 32}


def test_feuer_beats_a_31_at_the_widow_turn_up() -> None:
    state = schwimmen([LOW, "Ac Ad Ah", "As Ks Ts"])
    end = ends(state)[0]
    assert end["end"] == "feuer" and end["specials"] == [1]
    assert end["lives_lost"] == [1, 0, 1]  # the 31 holder loses like everyone else


def test_31_in_a_last_turn_ends_the_round_at_once() -> None:
    state = schwimmen([LOW, H20, "Ad Kd 7s", H25], table="Qd 9c 8c", knock_first_round=True)
    play(state, 1, "knock")
    play(state, 2, "swap_one 7s Qd")
    end = ends(state)[0]  # seats 3 and 0 never play their last turns
    assert end["end"] == "thirty-one" and end["knocker"] == 1
    assert end["lives_lost"] == [1, 0, 0, 0]


def test_a_knocker_losing_to_feuer_loses_knocker_blitz_penalty() -> None:
    hands = [LOW, H20, "Ac Ad 7s"]
    state = schwimmen(hands, table="Ah 9c 8h", knock_first_round=True, knocker_blitz_penalty=2)
    play(state, 1, "knock")
    play(state, 2, "swap_one 7s Ah")
    assert ends(state)[0]["lives_lost"] == [1, 2, 0]


def test_three_aces_none_is_no_feuer() -> None:
    state = schwimmen([LOW, "Ac Ad Ah", S24], three_aces="none")
    assert not ends(state)
    assert value("Ac Ad Ah", three_aces="none") == 30.5  # trips
    assert value("Ac Ad Ah", three_aces="none", trips="none") == 11


def test_three_aces_33_is_feuer_too() -> None:
    state = schwimmen([LOW, "Ac Ad Ah", "As Ks Ts"], three_aces="33")
    end = ends(state)[0]
    assert end["end"] == "feuer" and end["values"] == {"1": 33}


def test_blitz_only_akt() -> None:
    state = schwimmen([LOW, "Ac Kc Qc", S24], blitz_only_akt=True)
    assert not ends(state)  # A K Q is 31 but not A K T
    state = schwimmen([LOW, "Ac Kc Tc", S24], blitz_only_akt=True)
    assert ends(state)[0]["end"] == "thirty-one"


# ---------------------------------------------------------------------------------------
# 4.1 showdown: the lowest hand, suit tie-break, options


@pytest.mark.parametrize(
    ("hands", "options", "lost"),
    [
        (["Qc Jc 9c", "Jh Th 9h", "Ad Ah As"], {}, [0, 1, 0]),  # 29: hearts below clubs
        (["Ks Kd Kh", "7c 7d 7h", "Ad Ah As"], {}, [0, 1, 0]),  # 30.5 each: trips by rank
        (["Ac Tc 8c", "Kc Qc 9c", "Ad Ah As"], {}, [1, 1, 0]),  # 29 in clubs each: still tied, both lose
        (["Qc Jc 9c", "Jh Th 9h", "Ad Ah As"], {"tiebreak": "none"}, [1, 1, 0]),  # value alone
        (["Jc Tc 9c", "Qh Jh 9h", "Ad Ah As"], {"tiebreak": "cards"}, [1, 0, 0]),  # J T 9 below Q J 9
        (["Jc Tc 9c", "Qh Jh 9h", "Ad Ah As"], {"tiebreak": "suit"}, [0, 1, 0]),  # hearts below clubs
        (["Qc Jc 9c", "Jh Th 9h", "Ad Ah As"], {"tiebreak": "none", "tied_lowest": "escape"}, [0, 0, 0]),
        # 5b: trips equal to a suit sum tie with it; trips still order among themselves
        (["Kc Qc Tc", "7c 7d 7h", "Ad Ah As"], {"trips": "30"}, [1, 1, 0]),
        (["Kc Qc Tc", "Ad Ah As", "Kh Qh Th"], {"trips": "30"}, [0, 1, 1]),  # hearts below clubs, ties trips
        (["Kc Qc Tc", "7c 7d 7h", "Ad Ah As"], {"trips": "30", "tiebreak": "cards"}, [1, 1, 0]),
    ],
)
def test_showdown_lowest_hand(hands: list[str], options: dict[str, Any], lost: list[int]) -> None:
    state = schwimmen(hands, table="Td Jd 8s", knock_first_round=True, three_aces="none", **options)
    assert not ends(state)
    assert knock_and_pass(state, 1)["lives_lost"] == lost


FIVE = ["7c 8c 9d", "8d Td 7s", "Kh 8h 7h", "Ks Js 8s", "Kc Qc Tc"]  # 15, 18, 25, 28, 30


@pytest.mark.parametrize(
    ("hands", "low_threshold", "lost"),
    [
        (FIVE, True, [1, 1, 0, 0, 0]),  # every hand under 20 loses
        (FIVE, False, [1, 0, 0, 0, 0]),
        (["Ac Jc 9s", "7d 8d 9d"] + FIVE[2:], True, [1, 0, 0, 0, 0]),  # none under 20: the lowest (21)
        (FIVE[:4], True, [1, 0, 0, 0]),  # fewer than five players: the usual rule
    ],
)
def test_low_threshold(hands: list[str], low_threshold: bool, lost: list[int]) -> None:
    state = schwimmen(hands, table="9c 9h Qs", knock_first_round=True, low_threshold=low_threshold)
    assert knock_and_pass(state, 1)["lives_lost"] == lost


def test_low_threshold_applies_after_a_31_too() -> None:
    hands = FIVE[:4] + ["Ac Kc 9s"]
    state = schwimmen(hands, table="Tc 9h Qs", knock_first_round=True, low_threshold=True)
    play(state, 1, "pass")
    play(state, 2, "pass")
    play(state, 3, "pass")
    play(state, 4, "swap_one 9s Tc")
    end = ends(state)[0]
    assert end["end"] == "thirty-one" and end["lives_lost"] == [1, 1, 0, 0, 0]


def test_low_threshold_is_refused_with_brag_ranks() -> None:
    with pytest.raises(OptionError, match="low_threshold"):
        get_variant("stop-the-bus").new_match(5, options={"low_threshold": True})


# ---------------------------------------------------------------------------------------
# lives: swimming (free ride), elimination, the cancel rule, caps


def test_swimming_at_zero_lives_then_out() -> None:
    decks = [build_deck([LOW, H20, S24], WIDOW), build_deck([LOW, H20, S24], WIDOW, dealer=1)]
    state = match("schwimmen", decks, lives=1, knock_first_round=True)
    play(state, 0, "keep")
    assert knock_and_pass(state, 1)["lives"] == [0, 1, 1]
    assert state.active[0] and state.observe(0)["lives"] == (0, 1, 1)  # seat 0 swims
    play(state, 1, "keep")  # the deal passed left: seat 1 deals, seat 2 plays first
    end = knock_and_pass(state, 2)
    assert end["eliminated"] == [0] and not state.active[0]


def test_no_free_ride_out_at_zero() -> None:
    state = schwimmen([LOW, H20, S24], lives=1, free_ride=False, knock_first_round=True)
    end = knock_and_pass(state, 1)
    assert end["eliminated"] == [0] and end["lives"] == [0, 1, 1]
    assert not state.active[0]


def test_a_round_eliminating_everyone_is_cancelled() -> None:
    state = schwimmen([LOW, "7d 8h 9s"], lives=1, free_ride=False, tiebreak="none", knock_first_round=True)
    end = knock_and_pass(state, 1)
    assert end["lives_lost"] == [1, 1]
    assert end["cancelled"] is True and end["eliminated"] == [] and end["lives"] == [1, 1]
    assert state.active == [True, True] and not state.is_over and state.round == 2


def test_feuer_eliminating_the_rest_ends_the_match() -> None:
    state = schwimmen([LOW, "Ac Ad Ah", S24], lives=1, free_ride=False)
    end = ends(state)[0]
    assert end["eliminated"] == [0, 2] and not end["cancelled"]
    assert state.outcome is not None and state.outcome.placements == (2, 1, 2)
    assert state.outcome.reason == "last player in"


def test_placements_follow_the_reverse_order_of_elimination() -> None:
    # Round 1: seat 0 (9) goes out.  Round 2 (seat 1 deals): seat 2 goes out, seat 1 wins.
    decks = [build_deck([LOW, H20, S24], WIDOW), build_deck([None, S24, LOW], WIDOW, dealer=1)]
    state = match("schwimmen", decks, lives=1, free_ride=False, knock_first_round=True)
    play(state, 0, "keep")
    knock_and_pass(state, 1)
    play(state, 1, "keep")
    knock_and_pass(state, 2)
    assert state.outcome is not None
    assert state.outcome.placements == (3, 1, 2)
    assert state.outcome.scores == (0.0, 1.0, 0.0)


def test_the_deal_passes_left_skipping_seats_out() -> None:
    decks = [build_deck([LOW, H20, S24, H25], WIDOW, dealer=3),
             build_deck([None, H20, S24, H25], WIDOW, dealer=1)]
    state = match("schwimmen", decks, 4, dealer=3, lives=1, free_ride=False, knock_first_round=True)
    play(state, 3, "keep")
    knock_and_pass(state, 0)  # seat 0 (9) knocks and is lowest: out
    start = events(state, "round_start")[1].public
    assert start["dealer"] == 1 and start["active"] == [False, True, True, True]
    assert state.to_move == 1 and state.hands[0] == []


def test_round_cap_places_by_lives() -> None:
    state = schwimmen([LOW, H20, S24], max_rounds=1, knock_first_round=True)
    knock_and_pass(state, 1)
    assert state.outcome is not None and state.outcome.reason == "round cap"
    assert state.outcome.placements == (3, 1, 1)
    assert get_variant("schwimmen").defaults()["max_rounds"] == 200


def test_turn_cap_draws_a_round_that_never_ends() -> None:
    state = schwimmen([LOW, H20, S24], max_turns=4)
    for seat in (1, 2, 0):
        play(state, seat, "swap_all")
    assert not ends(state)
    play(state, 1, "swap_all")
    end = ends(state)[0]
    assert end["end"] == "turn_cap" and end["lives_lost"] == [0, 0, 0]


# ---------------------------------------------------------------------------------------
# section 2 and 4.2: Stop the Bus and brag ranks


@pytest.mark.parametrize(
    ("hand", "label", "value"),
    [
        ("2c 2d 2h", "prial of twos", 6.02),
        ("Ah Ad Ac", "prial of aces", 6.14),
        ("Qs Ks As", "running flush Q-K-A", 5.14),
        ("3h Ah 2h", "running flush A-2-3", 5.03),
        ("4c 2d 3h", "run 2-3-4", 4.04),
        ("As 2d 3h", "run A-2-3", 4.03),
        ("Ac Kc 9c", "ace-high flush", 3.141309),
        ("9c 4h 9d", "pair of nines", 2.0904),
        ("Ac Kd 9h", "ace high", 1.141309),
        ("Kc As 2d", "ace high", 1.141302),  # K-A-2 is no run
    ],
)
def test_brag_categories_labels_and_values(hand: str, label: str, value: float) -> None:
    result = get_variant("stop-the-bus").evaluate(parse_cards(hand))
    assert (result.label, result.value) == (label, value)
    assert result.low_key == result.high_key and result.special == 0


BRAG_ORDER = [
    "Ac Ad Ah", "2c 2d 2h", "Qs Ks As", "Jh Qh Kh", "As 2s 3s", "Qc Kd Ah", "2s 3d 4h", "As 2d 3h",
    "Ac Kc 9c", "Ac Kc 8c", "Kd Jd 9d", "Ac Ad 2h", "9c 9d 4h", "9h 9s 3c", "2c 2d Ah", "Ac Kd 9h",
    "Ac Kd 8h", "5c 3d 2h",
]


def test_brag_ranks_order_from_high_to_low() -> None:
    hands = [brag_value(parse_cards(h)) for h in BRAG_ORDER]
    for higher, lower, a, b in zip(hands, hands[1:], BRAG_ORDER, BRAG_ORDER[1:]):
        assert higher.low_key > lower.low_key, f"{a} should beat {b}"
        assert higher.value > lower.value, f"{a} should be worth more than {b}"


def test_brag_suits_never_break_ties() -> None:
    pairs = [("9c 9d 4h", "9h 9s 4c"), ("Ac Kc 9c", "Ah Kh 9h"), ("2s 3d 4h", "2c 3c 4d"), ("Ac Kd 9h", "As Kh 9c")]
    for a, b in pairs:
        x, y = brag_value(parse_cards(a)), brag_value(parse_cards(b))
        assert x.low_key == y.low_key and x.value == y.value


def test_stop_the_bus_compares_brag_ranks_not_points() -> None:
    hands = ["2c 3d 4h", "Ah Kh 8d", "5c 5d 2h"]  # run, high card (21 points), pair
    state = match("stop-the-bus", [build_deck(hands, "7c 9d Jh", size=52)], knock_first_round=True)
    play(state, 0, "keep")
    end = knock_and_pass(state, 1)
    assert end["lives_lost"] == [0, 1, 0]
    assert end["values"] == {"1": 1.141308, "2": 2.0502, "0": 4.04}


def test_stop_the_bus_players_tied_for_lowest_all_escape() -> None:
    hands = ["Qc Kd Ah", "9c 9d 4h", "9h 9s 4c"]
    state = match("stop-the-bus", [build_deck(hands, "7c 2d Jh", size=52)], knock_first_round=True)
    play(state, 0, "keep")
    end = knock_and_pass(state, 1)
    assert end["end"] == "showdown" and end["lives_lost"] == [0, 0, 0]


def test_stop_the_bus_has_no_31_or_feuer() -> None:
    hands = ["2c 3d 5h", "Ah Kh Th", "Ac Ad As"]
    state = match("stop-the-bus", [build_deck(hands, "Qh 9d Jh", size=52)], knock_first_round=True)
    play(state, 0, "keep")
    assert not ends(state)
    play(state, 1, "swap_one Th Qh")  # A K Q of hearts: a flush, no 31 either
    assert not ends(state)
    assert get_variant("stop-the-bus").evaluate(parse_cards("Ah Kh Th")).special == 0


def test_arena_hand_shows_the_brag_category() -> None:
    result = subprocess.run([sys.executable, "-m", "arena.cli", "hand", "Qs Ks As", "--variant", "stop-the-bus"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[0] == "5.14"
    assert "running flush Q-K-A" in result.stdout


# ---------------------------------------------------------------------------------------
# 4.2 Switch

SW_UP = "Kd 8d 2s"  # the dealer's second hand (laid face up on keep)
SW_DOWN = "Jc 4h 3s"  # the face-down hand


def switch(hands: Sequence[str | None], up: str = SW_UP, down: str = SW_DOWN, stock: str = "", *,
           keep: bool = True, dealer: int = 0, **options: Any) -> WidowState:
    deck = build_deck(hands, [up, down], stock, dealer=dealer, size=52)
    state = match("switch", [deck], len(hands), dealer=dealer, **options)
    if keep and state.observe(dealer)["phase"] == "choice":
        play(state, dealer, "keep")
    return state


SW0, SW1, SW2 = "2c 3d 5h", "Qh Jh 6c", "9s 7s 4c"  # 5, 20, 16


def test_switch_dealer_sees_both_hands_and_keeps_one() -> None:
    state = switch([SW0, SW1, SW2], keep=False)
    assert set(state.legal_actions()) == {KEEP, SWAP_HAND}
    assert state.observe(0)["other_hand"] == SW_UP.split()
    for seat in (1, 2):
        assert "other_hand" not in state.observe(seat)
        assert not set(SW_UP.split()) & set(json.dumps(state.observe(seat)).split('"'))
    assert events(state, "deal")[0].view(0)["other_hand"] == SW_UP.split()
    assert "other_hand" not in events(state, "deal")[0].view(1)
    play(state, 0, "keep")
    for seat in range(3):
        assert state.observe(seat)["table"] == (tuple(SW_UP.split()), (None, None, None))
    assert "other_hand" not in state.observe(0) and state.to_move == 1


def test_switch_dealer_may_play_the_second_hand() -> None:
    state = switch([SW0, SW1, SW2], keep=False)
    play(state, 0, "swap_hand")
    assert names(state.hands[0]) == SW_UP.split()
    assert state.observe(1)["table"][0] == tuple(SW0.split())


def test_switch_turn_actions() -> None:
    state = switch([SW0, SW1, SW2])
    hand = SW1.split()
    expected = (
        {f"swap_one {g} {t}" for g in hand for t in SW_UP.split()}
        | {f"swap_blind {g} 1 {p}" for g in hand for p in range(3)}
        | {"swap_all 0", "swap_all 1", "renew 0 up", "renew 0 down", "renew 1 up", "renew 1 down"}
    )
    assert legal_texts(state) == expected  # no pass before a knock, no knock in the first round


def test_switch_exchange_with_the_face_up_hand() -> None:
    state = switch([SW0, SW1, SW2])
    play(state, 1, "swap_one 6c Kd")
    assert sorted(names(state.hands[1])) == sorted(["Qh", "Jh", "Kd"])
    assert state.observe(2)["table"][0] == ("6c", "8d", "2s")
    assert state.log[-1].public == {"action": "swap_one 6c Kd"}


def test_switch_exchange_for_a_face_down_card_lays_the_discard_face_up() -> None:
    state = switch([SW0, SW1, SW2])
    play(state, 1, "swap_blind 6c 1 0")
    assert sorted(names(state.hands[1])) == sorted(["Qh", "Jh", "Jc"])
    event = state.log[-1]
    assert event.public == {"action": "swap_blind 6c 1 0"}
    assert event.view(1)["received"] == ["Jc"]
    for seat in (0, 2):
        assert "Jc" not in json.dumps(event.view(seat)) and "Jc" not in json.dumps(state.observe(seat))
        assert state.observe(seat)["table"][1] == ("6c", None, None)
    # the card given is face up now: it can be taken by name
    assert "swap_one 9s 6c" in legal_texts(state)
    assert "swap_blind 9s 1 0" not in legal_texts(state)


@pytest.mark.parametrize("h", [0, 1])
def test_switch_swap_a_whole_table_hand(h: int) -> None:
    state = switch([SW0, SW1, SW2])
    taken = [SW_UP, SW_DOWN][h].split()
    play(state, 1, f"swap_all {h}")
    assert names(state.hands[1]) == taken
    assert state.observe(2)["table"][h] == tuple(SW1.split())  # the given hand lies face up
    event = state.log[-1]
    assert event.public == {"action": f"swap_all {h}", "gave": SW1.split()}
    if h == 1:  # the face-down cards are seen by the taker alone
        assert event.view(1)["received"] == taken
        assert "Jc" not in json.dumps(event.view(2))


def test_switch_renew_face_up_ends_the_turn() -> None:
    state = switch([SW0, SW1, SW2], stock="Ac Tc 9c")
    play(state, 1, "renew 0 up")
    assert names(state.table[0]) == ["Ac", "Tc", "9c"]
    assert set(names(state.discarded)) == set(SW_UP.split())
    assert state.log[-1].public == {"action": "renew 0 up", "stock": 52 - 15 - 3, "cards": ["Ac", "Tc", "9c"]}
    assert state.to_move == 2 and names(state.hands[1]) == SW1.split()


def test_switch_renew_face_down_the_turn_goes_on() -> None:
    state = switch([SW0, SW1, SW2], stock="Ac Tc 9c", knock_first_round=True)
    play(state, 1, "renew 1 down")
    assert state.to_move == 1 and state.observe(1)["phase"] == "renewed"
    assert state.observe(2)["table"][1] == (None, None, None)
    assert "Ac" not in json.dumps(state.log[-1].view(1))  # nobody sees the new face-down cards
    legal = legal_texts(state)
    assert "swap_blind 6c 1 0" in legal and "swap_all 1" in legal and "swap_one 6c Kd" in legal
    assert not {a for a in legal if a.startswith(("renew", "knock", "pass"))}  # an exchange or a swap must follow
    play(state, 1, "swap_blind 6c 1 0")
    assert "Ac" in names(state.hands[1]) and state.to_move == 2


def test_switch_renew_is_not_legal_when_the_stock_is_short() -> None:
    state = switch(["2c 3d 5h", "Qh Jh 6c", "9s 7s 4c", "2d 3h 5s", "6d 7h 8c", "Tc 2h 6s", "8h 9d 4d",
                    "Ts 6h 7d", "9h 3c 5c"])
    assert len(state.stock) == 19
    for k in range(6):
        assert "renew 1 up" in legal_texts(state)
        play(state, 1 + k, "renew 1 up")
    assert len(state.stock) == 1
    assert not {a for a in legal_texts(state) if a.startswith("renew")}
    assert_illegal(state, "renew 0 up")


def test_switch_pass_only_in_the_last_turns() -> None:
    state = switch([SW0, SW1, SW2], knock_first_round=True)
    assert_illegal(state, "pass")
    play(state, 1, "knock")
    assert "pass" in legal_texts(state) and "renew 0 up" in legal_texts(state)
    play(state, 2, "pass")
    play(state, 0, "pass")
    end = ends(state)[0]
    assert end["end"] == "showdown" and end["lives_lost"] == [1, 0, 0]


def test_switch_dealt_blitz_every_other_player_loses() -> None:
    state = switch([SW0, "Ah Kh Th", SW2, "Ac Qc Jc"], down="Td 4h 3s")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["specials"] == [1, 3]
    assert end["lives_lost"] == [1, 0, 1, 0]


def test_switch_blitz_by_exchange_after_a_knock() -> None:
    state = switch([SW0, SW1, "As Ks 4c"], up="Ts 8d 2s", knock_first_round=True)
    play(state, 1, "knock")
    play(state, 2, "swap_one 4c Ts")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["specials"] == [2]
    assert end["lives_lost"] == [1, 1, 0]  # knocker_blitz_penalty 1


def test_switch_three_aces_33_beats_a_blitz() -> None:
    state = switch([SW0, "Ac Ad Ah", "As Ks Ts"], three_aces="33")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["specials"] == [1] and end["lives_lost"] == [1, 0, 1]


@pytest.mark.parametrize(
    ("hands", "lost"),
    [
        ([SW1, SW0, SW2], [0, 2, 0]),  # the knocker (seat 1) lowest alone loses two
        ([SW1, "5c 3d 2h", "5d 4h 2c"], [0, 0, 1]),  # 5 each: the knocker is safe in a tie, the other loses
        (["5c 3d 2h", SW1, "5d 4h 2c"], [1, 0, 1]),  # value alone: 5 in clubs and 5 in diamonds both lose
    ],
)
def test_switch_scat_showdown(hands: list[str], lost: list[int]) -> None:
    state = switch(hands, up="Kd 8d 2s", down="Jc 4s 3s", knock_first_round=True)
    assert knock_and_pass(state, 1)["lives_lost"] == lost


def test_switch_scat_values() -> None:
    assert value("Ac Ad Ah", "switch") == 11 and value("7c 7d 7h", "switch") == 7
    assert get_variant("switch").evaluate(parse_cards("Ah Kh Th")).special != 0


def test_switch_seats_nine_on_52_cards_but_eight_on_32() -> None:
    assert get_variant("switch").new_match(9, seed=3).players == 9
    assert get_variant("switch").new_match(8, seed=3, options={"deck": 32}).players == 8
    with pytest.raises(RulesError, match="at most 8 players"):
        get_variant("switch").new_match(9, options={"deck": 32})


# ---------------------------------------------------------------------------------------
# forfeits


def test_forfeit_on_its_turn_moves_play_on() -> None:
    state = schwimmen([LOW, H20, S24])
    state.forfeit(1)
    assert state.to_move == 2 and not state.active[1] and state.hands[1] == []
    assert set(names(state.discarded)) == set(H20.split())
    assert events(state, "forfeit")[0].seat == 1


def test_forfeit_of_the_dealer_at_its_choice_turns_the_widow_up() -> None:
    state = schwimmen([LOW, H20, S24], keep=False)
    state.forfeit(0)
    assert state.to_move == 1 and state.observe(1)["widow"] == tuple(WIDOW.split())


def test_forfeit_of_the_last_seat_owed_a_last_turn_ends_the_round() -> None:
    state = schwimmen([LOW, H20, S24], knock_first_round=True)
    play(state, 1, "knock")
    play(state, 2, "pass")
    state.forfeit(0)
    end = ends(state)[0]
    assert end["end"] == "showdown" and set(end["hands"]) == {"1", "2"}


def test_forfeit_lets_the_others_knock_once_they_all_played() -> None:
    state = schwimmen([LOW, H20, S24])
    play(state, 1, "pass")
    play(state, 2, "pass")
    state.forfeit(0)  # seat 0 never played: the first round is complete without it
    assert state.to_move == 1 and KNOCK in state.legal_actions()


def test_forfeit_leaving_one_player_ends_the_match_with_the_forfeits_last() -> None:
    state = schwimmen([LOW, H20, S24])
    state.forfeit(2)
    state.forfeit(1)
    assert state.outcome is not None and state.outcome.reason == "every other player forfeited"
    assert state.outcome.placements == (1, 2, 3)  # seat 1 lasted longer than seat 2
    state.forfeit(0)  # the match is over: no effect
    assert state.outcome.placements == (1, 2, 3)


# ---------------------------------------------------------------------------------------
# presets, options, players, observations, replays


def test_preset_option_values() -> None:
    schw = get_variant("schwimmen").defaults()
    assert {k: schw[k] for k in ("deck", "lives", "trips", "three_aces", "tiebreak", "special_hands", "ranking",
                                 "table", "knock_first_round", "low_threshold", "knock_after_swap", "blind_swap",
                                 "free_ride", "knocker_penalty", "knocker_tie")} == {
        "deck": 32, "lives": 3, "trips": "30.5", "three_aces": "32", "tiebreak": "suit", "special_hands": "schwimmen",
        "ranking": "points", "table": "widow", "knock_first_round": False, "low_threshold": False,
        "knock_after_swap": False, "blind_swap": True, "free_ride": True, "knocker_penalty": 1, "knocker_tie": "loses",
    }
    bus = get_variant("stop-the-bus").defaults()
    assert {k: v for k, v in bus.items() if schw[k] != v} == {
        "deck": 52, "ranking": "brag", "special_hands": "none", "tied_lowest": "escape"}
    sw = get_variant("switch").defaults()
    assert {k: v for k, v in sw.items() if schw[k] != v} == {
        "deck": 52, "table": "switch", "trips": "none", "three_aces": "none", "tiebreak": "none",
        "special_hands": "blitz", "knocker_penalty": 2, "knocker_tie": "safe"}


@pytest.mark.parametrize("variant", ["schwimmen", "stop-the-bus", "switch"])
@pytest.mark.parametrize("players", [2, 9])
def test_two_to_nine_players(variant: str, players: int) -> None:
    state = get_variant(variant).new_match(players, seed=11)
    assert state.to_move == 0 and len(state.legal_actions()) == 2


@pytest.mark.parametrize("variant", ["schwimmen", "stop-the-bus", "switch"])
@pytest.mark.parametrize("players", [1, 10])
def test_player_counts_outside_2_to_9_refused(variant: str, players: int) -> None:
    with pytest.raises(RulesError):
        get_variant(variant).new_match(players)


def test_unknown_options_and_bad_values_are_refused() -> None:
    with pytest.raises(OptionError, match="knock_first_turn"):
        get_variant("schwimmen").new_match(3, options={"knock_first_turn": True})
    with pytest.raises(OptionError, match="table"):
        get_variant("schwimmen").new_match(3, options={"table": "three"})


def test_evaluate_refuses_malformed_hands() -> None:
    schw = get_variant("schwimmen")
    for bad in ("Ah Kh", "Ah Kh Th 9h", "2c Ah Kh"):  # 2c is not in the 32-card deck
        with pytest.raises(RulesError):
            schw.evaluate(parse_cards(bad))
    assert get_variant("stop-the-bus").evaluate(parse_cards("2c Ah Kh")).label == "ace high"


def test_evaluate_marks_the_hands_that_end_a_round() -> None:
    schw = get_variant("schwimmen")
    assert schw.evaluate(parse_cards("Ac Ad Ah")).special > schw.evaluate(parse_cards("Ah Kh Th")).special > 0
    assert schw.evaluate(parse_cards("Ac Ad Ah"), {"special_hands": "none"}).special == 0


def test_observation_shows_exactly_what_a_seat_may_know() -> None:
    state = schwimmen([LOW, H20, S24], stock="Ac Kc Qs")
    obs = state.observe(1)
    assert obs == {
        "seat": 1, "round": 1, "dealer": 0, "to_move": 1, "phase": "turn", "hand": H20.split(),
        "widow": tuple(WIDOW.split()), "stock": 20, "knocker": None, "dealer_choice": "keep", "passes": 0,
        "lives": (3, 3, 3), "active": (True, True, True),
    }
    text = json.dumps(obs)
    assert not any(c in text for c in LOW.split() + S24.split() + ["Ac", "Kc", "Qs"])


def test_action_text_forms() -> None:
    for text in ("swap_one 9h Ah", "swap_one 9h Ah knock", "swap_all", "swap_all knock", "swap_all 1",
                 "swap_blind 9h 1 2", "renew 0 down", "keep", "swap_hand", "pass", "knock"):
        assert str(Action.parse(text)) == text
    blind = Action.parse("swap_blind 9h 1 2 knock")
    assert blind.kind == "swap_blind" and names(list(blind.cards)) == ["9h"] and blind.arg == "1 2 knock"


def test_an_equal_action_object_is_accepted_like_the_interned_one() -> None:
    state = schwimmen([LOW, H20, S24], keep=False)
    state.apply(Action("swap_hand"))
    assert names(state.hands[0]) == WIDOW.split()
    assert state.actions() == [(0, SWAP_HAND)]


@pytest.mark.parametrize("variant", ["schwimmen", "stop-the-bus", "switch"])
def test_replay_from_actions(variant: str) -> None:
    state = get_variant(variant).new_match(4, seed=99)
    for i in range(60):
        if state.is_over:
            break
        legal = state.legal_actions()
        state.apply(legal[i * 7 % len(legal)])
    replay = get_variant(variant).new_match(4, seed=99)
    for seat, action in state.actions():
        assert replay.to_move == seat
        replay.apply(action)
    assert [e.full() for e in replay.log] == [e.full() for e in state.log]
