"""Skat (docs/RULES.md 6, source text 004): card orders, game values, the auction, whole deals.

Deals use explicit decks built by :func:`skat_deck`: forehand, middlehand and rearhand
get three cards each, then the skat's two, then four each, then three each (top first).
With the dealer in seat 0 at a table of three, forehand is seat 1, middlehand seat 2 and
rearhand seat 0 (the dealer).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from deals import events, play, texts

from arena.cards import Card, new_deck, parse_cards
from arena.rules import Action, IllegalActionError, OptionError, RulesError, get_variant
from arena.rules.skat_values import (
    BID_VALUES,
    CARD_POINTS,
    Contract,
    contracts,
    legal_plays,
    matadors,
    score_change,
    settle,
    trick_winner,
)

SKAT = get_variant("skat")
VECTORS = json.loads((Path(__file__).resolve().parent / "vectors" / "skat.json").read_text())

# A deal of three strong hands: forehand clubs (Jc Js Jh), middlehand scattered, rearhand diamonds.
STRONG = ("Jc Js Jh Ac Tc Kc Qc Ah Th As", "Jd 9c 8c 7c Kh Qh 9h Ts Ks Qs", "Ad Td Kd Qd 9d 8d 7d 8h 7h 9s")
STRONG_SKAT = "8s 7s"


def skat_deck(hands: Sequence[str], skat: str) -> list[Card]:
    """The deck that deals ``hands`` (forehand, middlehand, rearhand) and ``skat``, 3-2-4-3."""
    f, m, r = (parse_cards(h) for h in hands)
    deck = f[:3] + m[:3] + r[:3] + parse_cards(skat) + f[3:7] + m[3:7] + r[3:7] + f[7:] + m[7:] + r[7:]
    assert sorted(deck) == sorted(new_deck(32))
    return deck


def deal(hands: Sequence[str] = STRONG, skat: str = STRONG_SKAT, *, players: int = 3, dealer: int = 0,
         **options: Any) -> Any:
    return SKAT.new_match(players, options=options, decks=[skat_deck(hands, skat)], dealer=dealer)


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def round_end(state: Any) -> dict[str, Any]:
    ends = events(state, "round_end")
    assert ends, "the deal is not over"
    return ends[-1]


def play_out(state: Any) -> None:
    """Play the deal to its end with the lowest legal card each time."""
    rounds = state.round
    while state.round == rounds and not state.is_over:
        state.apply(next(a for a in state.legal_actions() if a.kind == "play"))


# -- cards and games ---------------------------------------------------------------------


def test_the_deck_has_32_cards_worth_120() -> None:
    assert sum(CARD_POINTS[c] for c in new_deck(32)) == 120
    assert [CARD_POINTS[c] for c in cards("Ac Tc Kc Qc Jc 9c 8c 7c")] == [11, 10, 4, 3, 2, 0, 0, 0]


def test_bid_values_are_every_value_a_game_can_have() -> None:
    assert BID_VALUES[:20] == (18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60)
    assert BID_VALUES[-1] == 264 and 264 // 24 == 11
    assert all(v % 9 == 0 or v % 10 == 0 or v % 11 == 0 or v % 12 == 0 or v in (23, 35, 46, 59) for v in BID_VALUES)


@pytest.mark.parametrize("game", ["clubs", "spades", "hearts", "diamonds"])
def test_suit_game_trumps_run_from_the_club_jack_to_the_seven(game: str) -> None:
    suit = game[0]
    order = cards(f"Jc Js Jh Jd A{suit} T{suit} K{suit} Q{suit} 9{suit} 8{suit} 7{suit}")
    for high, low in zip(order, order[1:]):
        assert trick_winner([low, high], game) == 1 and trick_winner([high, low], game) == 0
    plain = "h" if suit != "h" else "s"
    assert trick_winner(cards(f"A{plain} 7{suit}"), game) == 1  # any trump beats the led suit


def test_grand_has_only_the_jacks_as_trumps_and_null_none() -> None:
    assert trick_winner(cards("Ac Jd"), "grand") == 1
    assert trick_winner(cards("Ac Tc Kc"), "grand") == 0
    assert trick_winner(cards("Tc Kc Ac"), "grand") == 2
    assert trick_winner(cards("Kc Qc Jc"), "null") == 0  # null: A K Q J 10 9 8 7
    assert trick_winner(cards("Tc Jc 9c"), "null") == 1
    assert trick_winner(cards("7c As Ah"), "null") == 0  # nothing beats the led suit but its own cards


def test_follow_suit_counts_jacks_as_trumps_except_in_null() -> None:
    assert set(legal_plays(cards("Jh 7c 8s"), cards("Ah")[0], "clubs")) == set(cards("Jh 7c 8s"))  # Jh is a trump
    assert legal_plays(cards("Jh 8s"), cards("7c")[0], "clubs") == cards("Jh")
    assert legal_plays(cards("Jc 8s"), cards("Tc")[0], "null") == cards("Jc")
    assert set(legal_plays(cards("Jc 7s"), cards("Ac")[0], "grand")) == set(cards("Jc 7s"))
    assert legal_plays(cards("Jc Ac"), cards("Jd")[0], "grand") == cards("Jc")
    assert set(legal_plays(cards("Jc Ac"), None, "grand")) == set(cards("Jc Ac"))


def test_matadors_with_and_without() -> None:
    assert matadors(cards("Jc Js Jh Jd Ac 7s"), "clubs") == 5
    assert matadors(cards("Jc Js Jh Jd Ac 7s"), "grand") == 4
    assert matadors(cards("Jc Jh Ac"), "clubs") == 1
    assert matadors(cards("Js Jh"), "hearts") == -1
    assert matadors(cards("Jd 7c"), "grand") == -3
    assert matadors(cards("7h 8h"), "grand") == -4
    assert matadors(cards("7d 8d 9d"), "diamonds") == -8  # every trump above the nine is missing
    assert matadors(cards("Ac Ah"), "diamonds") == -11  # no trump at all
    assert matadors(cards("Jc Js Jh Jd Ad Td Kd Qd 9d 8d 7d"), "diamonds") == 11


@pytest.mark.parametrize("vector", [v for v in VECTORS if v["kind"] == "hand"], ids=lambda v: v["hand"])
def test_hand_vector(vector: dict[str, Any]) -> None:
    value = SKAT.evaluate(cards(vector["hand"]))
    assert value.value == vector["value"]
    assert value.label == vector["label"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if v["kind"] == "trick"],
                         ids=lambda v: f"{v['game']}-{v['cards']}")
def test_trick_vector(vector: dict[str, Any]) -> None:
    assert trick_winner(cards(vector["cards"]), vector["game"]) == vector["winner"], vector.get("note")


@pytest.mark.parametrize("vector", [v for v in VECTORS if v["kind"] == "game"],
                         ids=lambda v: f"{v['contract']}-{v['bid']}-{v['points']}")
def test_game_vector(vector: dict[str, Any]) -> None:
    contract = Contract.parse(vector["contract"], not vector["picked_up"])
    result = settle(contract, vector["bid"], cards(vector["cards"]), vector["points"], vector["tricks"])
    assert (result.won, result.value) == (vector["won"], vector["value"]), vector.get("note")
    assert score_change(result, vector["picked_up"], "source") == vector["score"]


def test_the_vectors_cover_every_kind() -> None:
    kinds = [v["kind"] for v in VECTORS]
    assert kinds.count("hand") >= 4 and kinds.count("trick") >= 10 and kinds.count("game") >= 12


def test_lost_scoring_official_doubles_hand_games_too() -> None:
    result = settle(Contract("clubs", hand=True), 48, cards("Jh Jd Ac Tc Kc 9c 8c Ah Th As Jc Qc"), 74, 7)
    assert (result.won, result.overbid, result.value) == (False, True, 48)
    assert score_change(result, False, "source") == -48
    assert score_change(result, False, "official") == -96
    assert score_change(result, True, "source") == -96


def test_kontra_and_re_double_the_value() -> None:
    result = settle(Contract("spades"), 18, cards("Jc Js As Ts Ks Qs 9s Ac Ah Ad 7c 7h"), 70, 6)
    assert [score_change(result, True, "source", k) for k in (0, 1, 2)] == [33, 66, 132]


def test_null_cannot_be_declared_above_its_value() -> None:
    assert [c.words for c in contracts(False, 24) if c.game == "null"] == ["null ouvert"]
    assert [c.words for c in contracts(True, 60) if c.game == "null"] == []
    assert [c.words for c in contracts(True, 59) if c.game == "null"] == ["null hand ouvert"]
    assert len(contracts(True, 18)) == 5 * 4 + 2 and len(contracts(False, 18)) == 5 + 2


def test_evaluate_takes_ten_or_twelve_cards_of_the_32_card_deck() -> None:
    with pytest.raises(RulesError, match="10 cards"):
        SKAT.evaluate(cards("Jc Js Jh"))
    with pytest.raises(RulesError, match="32-card deck"):
        SKAT.evaluate(cards("Jc Js Jh Ac Tc Kc Qc Ah Th 2s"))


# -- the auction -------------------------------------------------------------------------


def test_the_deal_is_three_skat_four_three_and_middlehand_bids_first() -> None:
    state = deal()
    assert [state.observe(s)["hand"] for s in (1, 2, 0)] == [h.split() for h in STRONG]
    obs = state.observe(2)
    assert (obs["forehand"], obs["middlehand"], obs["rearhand"], obs["phase"]) == (1, 2, 0, "bid")
    assert state.to_move == 2
    assert texts(state) == {"pass"} | {f"bid {v}" for v in BID_VALUES}
    assert all(obs["skat"] is None and obs["picked_up"] is None for obs in map(state.observe, range(3)))


def test_middlehand_bids_to_forehand_who_holds_or_passes() -> None:
    state = deal()
    play(state, "2:bid 18")
    assert state.observe(1)["phase"] == "answer" and texts(state) == {"hold", "pass"}
    play(state, "1:hold")
    assert state.to_move == 2 and "bid 18" not in texts(state) and "bid 20" in texts(state)
    play(state, "2:bid 20", "1:pass")
    # rearhand now bids to the survivor, middlehand, above 20
    assert state.to_move == 0 and min(int(t.split()[1]) for t in texts(state) if t != "pass") == 22
    play(state, "0:bid 22", "2:hold", "0:bid 23", "2:pass")
    assert state.observe(0)["phase"] == "skat" and state.declarer == 0 and state.bid == 23
    assert [a["call"] for a in state.observe(1)["auction"]] == [
        "bid 18", "hold", "bid 20", "pass", "bid 22", "hold", "bid 23", "pass"]


def test_forehand_survives_and_hears_rearhand() -> None:
    state = deal()
    play(state, "2:pass", "0:bid 18", "1:hold", "0:pass")
    assert state.declarer == 1 and state.bid == 18


def test_a_bidder_who_passes_after_a_hold_leaves_the_listener_declarer() -> None:
    state = deal()
    play(state, "2:bid 30", "1:pass", "0:pass")
    assert state.declarer == 2 and state.bid == 30


def test_forehand_may_play_at_18_when_the_others_pass_without_bidding() -> None:
    state = deal()
    play(state, "2:pass", "0:pass")
    assert state.to_move == 1 and texts(state) == {"bid 18", "pass"}
    play(state, "1:bid 18")
    assert state.declarer == 1 and state.bid == 18 and texts(state) == {"pickup", "hand"}


def test_when_every_player_passes_the_deal_is_thrown_in_and_the_deal_passes_left() -> None:
    state = deal()
    play(state, "2:pass", "0:pass", "1:pass")
    assert round_end(state) == {"end": "thrown_in", "changes": [0, 0, 0], "scores": [0, 0, 0]}
    assert state.round == 2 and state.dealer == 1 and state.to_move == 0  # middlehand of the new deal


def test_a_bid_at_264_leaves_only_pass() -> None:
    state = deal()
    play(state, "2:bid 264", "1:hold")
    assert texts(state) == {"pass"}


def test_an_illegal_bid_is_refused_and_changes_nothing() -> None:
    state = deal()
    play(state, "2:bid 20")
    before = [e.full() for e in state.log]
    for text in ("bid 22", "bid 21", "bid 300", "pickup", "play Jc", "kontra"):
        with pytest.raises(IllegalActionError):
            state.apply(Action.parse(text))
    play(state, "1:hold")
    for text in ("bid 20", "bid 18", "bid 19", "hold"):
        with pytest.raises(IllegalActionError):
            state.apply(Action.parse(text))
    assert [e.full() for e in state.log][:len(before)] == before and state.to_move == 2


# -- the skat, the game, the play ------------------------------------------------------


def test_pickup_shows_the_skat_to_the_declarer_only() -> None:
    state = deal()
    play(state, "2:pass", "0:pass", "1:bid 18", "1:pickup")
    assert sorted(state.observe(1)["hand"]) == sorted([*STRONG[0].split(), "8s", "7s"])
    assert state.observe(1)["picked_up"] == ["8s", "7s"]
    assert all(state.observe(s)["picked_up"] is None for s in (0, 2))
    pickup = [e for e in state.log if e.kind == "action"][-1]
    assert pickup.view(1)["skat"] == ["8s", "7s"] and "skat" not in pickup.view(0)
    assert len(texts(state)) == 66 and "discard 7s 8s" in texts(state)
    play(state, "1:discard 7s 8s")
    discard = [e for e in state.log if e.kind == "action"][-1]
    assert discard.view(0) == {"event": "action", "seat": 1, "action": "discard"}
    assert discard.view(1)["action"] == "discard 7s 8s"
    assert state.observe(1)["skat"] == ["7s", "8s"] and state.observe(0)["skat"] is None
    assert texts(state) == {f"declare {g}" for g in ("diamonds", "hearts", "spades", "clubs", "grand", "null",
                                                      "null ouvert")}
    assert state.actions()[-1] == (1, Action.of("discard", *cards("7s 8s")))


def test_a_hand_game_may_announce_schneider_schwarz_or_ouvert() -> None:
    state = deal()
    play(state, "2:pass", "0:pass", "1:bid 18", "1:hand")
    assert {"declare clubs hand", "declare clubs hand schneider", "declare clubs hand schwarz",
            "declare clubs hand ouvert", "declare null hand", "declare null hand ouvert"} <= texts(state)
    assert "declare clubs" not in texts(state) and len(texts(state)) == 22
    play(state, "1:declare grand hand ouvert")
    obs = state.observe(0)
    assert obs["game"] == "grand" and obs["announced"] == ["hand", "schneider", "schwarz", "ouvert"]
    assert sorted(obs["ouvert_hand"]) == sorted(STRONG[0].split())
    assert obs["phase"] == "play" and state.to_move == 1  # forehand leads, declarer or not


def test_forehand_leads_and_players_must_follow_suit() -> None:
    state = deal()
    play(state, "2:bid 18", "1:pass", "0:pass", "2:hand", "2:declare spades hand")
    assert state.to_move == 1
    play(state, "1:play Ah")
    assert texts(state) == {"play Kh", "play Qh", "play 9h"}  # middlehand has hearts
    play(state, "2:play 9h")
    assert texts(state) == {"play 8h", "play 7h"}
    play(state, "0:play 7h")
    assert state.to_move == 1 and state.observe(2)["tricks_won"] == [0, 1, 0]
    trick = events(state, "trick")[-1]
    assert trick == {"cards": ["Ah", "9h", "7h"], "points": 11}
    assert state.observe(0)["tricks"] == [{"winner": 1, "cards": [
        {"seat": 1, "card": "Ah"}, {"seat": 2, "card": "9h"}, {"seat": 0, "card": "7h"}]}]


def test_a_whole_hand_game_from_a_known_deck() -> None:
    state = deal()
    play(state, "2:pass", "0:pass", "1:bid 18", "1:hand", "1:declare clubs hand")
    play_out(state)
    end = round_end(state)
    assert end["card_points"] == [0, 120, 0] and end["tricks_won"] == [0, 10, 0]
    assert (end["won"], end["matadors"], end["multiplier"], end["value"]) == (True, "with 3", 7, 84)
    assert end["skat"] == ["8s", "7s"] and end["scores"] == [0, 84, 0]
    assert state.observe(2)["scores"] == [0, 84, 0] and state.round == 2


def test_null_ends_when_the_declarer_takes_a_trick() -> None:
    state = deal(("7c 8c Ks Qs 9s 8s 7s Kd Qd 9d", "9c Tc Jc Qc 8d 7d Td Jd Js Ts", "Ac Ad Ah As Kc Kh Qh Jh Th 9h"),
                 "8h 7h")
    play(state, "2:pass", "0:bid 18", "1:hold", "0:bid 20", "1:pass", "0:hand", "0:declare null hand")
    play(state, "1:play 7c", "2:play 9c", "0:play Kc")
    end = round_end(state)
    assert (end["game"], end["won"], end["value"], end["changes"]) == ("null", False, 35, [-35, 0, 0])


def test_the_schneider_levels_of_a_won_suit_game_from_the_deal() -> None:
    state = deal()
    play(state, "2:pass", "0:pass", "1:bid 18", "1:pickup", "1:discard 7s 8s", "1:declare clubs")
    play_out(state)
    end = round_end(state)
    # with 3, game, schneider, schwarz (the skat's 7s 8s count for the declarer): 6 x 12, no hand
    assert (end["won"], end["value"], end["changes"]) == (True, 72, [0, 72, 0])


def test_seeger_scoring_adds_50_and_pays_the_defenders_when_the_declarer_loses() -> None:
    state = deal(scoring="seeger")
    play(state, "2:bid 18", "1:pass", "0:pass", "2:hand", "2:declare null hand")
    play_out(state)
    end = round_end(state)
    assert end["won"] is False and end["changes"] == [40, 40, -35 - 50]


def test_kontra_by_a_defender_before_its_first_card_and_re_by_the_declarer() -> None:
    state = deal(kontra=True)
    play(state, "2:pass", "0:pass", "1:bid 18", "1:hand", "1:declare clubs hand")
    assert "kontra" not in texts(state)  # the declarer leads
    play(state, "1:play Tc")
    assert "kontra" in texts(state)
    play(state, "2:kontra")
    assert state.to_move == 2 and "kontra" not in texts(state) and state.observe(0)["kontra"] == 1
    play(state, "2:play 7c", "0:play 7d")
    assert "re" in texts(state)
    play(state, "1:re", "1:play Th", "2:play 9h")
    assert "kontra" not in texts(state)  # one kontra a deal
    play(state, "0:play 7h")
    assert "re" not in texts(state)
    play_out(state)
    end = round_end(state)
    assert end["kontra"] == 2 and end["changes"] == [0, 84 * 4, 0]


def test_no_kontra_without_the_option() -> None:
    state = deal()
    play(state, "2:pass", "0:pass", "1:bid 18", "1:hand", "1:declare clubs hand", "1:play Tc")
    assert "kontra" not in texts(state)


def test_ramsch_when_every_player_passes() -> None:
    state = deal(all_pass="ramsch")
    play(state, "2:pass", "0:pass", "1:pass")
    obs = state.observe(1)
    assert (obs["phase"], obs["game"], obs["declarer"]) == ("play", "ramsch", None)
    play_out(state)
    end = round_end(state)
    assert end["end"] == "ramsch" and sum(end["card_points"]) == 120
    assert sum(end["changes"]) < 0 or end["durchmarsch"] is not None


# -- tables, matches, forfeits -------------------------------------------------------


def test_at_a_table_of_four_the_dealer_sits_out() -> None:
    state = deal(players=4, dealer=3)
    assert state.observe(3)["hand"] == [] and state.to_move == 1
    assert state.observe(3)["forehand"] == 0
    assert [e for e in state.log if e.kind == "deal"][0].view(3) == {"event": "deal"}
    play(state, "1:pass", "2:pass", "0:pass")
    assert state.dealer == 0 and state.observe(0)["hand"] == [] and state.to_move == 2


def test_rounds_must_be_a_multiple_of_the_table_size() -> None:
    with pytest.raises(RulesError, match="multiple"):
        SKAT.new_match(4, options={"rounds": 6})
    SKAT.new_match(3, options={"rounds": 6})
    with pytest.raises(OptionError):
        SKAT.new_match(3, options={"lost_scoring": "double"})
    with pytest.raises(RulesError, match="3 to 4"):
        SKAT.new_match(2)


def test_a_match_is_its_rounds_and_placed_by_score() -> None:
    decks = [skat_deck(STRONG, STRONG_SKAT)] * 3
    state = SKAT.new_match(3, options={"rounds": 3}, decks=decks)
    play(state, "2:pass", "0:pass", "1:bid 18", "1:hand", "1:declare clubs hand")
    play_out(state)
    play(state, "0:pass", "1:pass", "2:pass")  # dealer 1: thrown in
    play(state, "1:pass", "2:pass", "0:pass")
    assert state.outcome is not None and state.outcome.placements == (2, 1, 2)
    assert state.outcome.scores == (0.0, 84.0, 0.0) and state.outcome.reason == "rounds played"


def test_a_forfeit_at_a_table_of_three_ends_the_match() -> None:
    state = deal()
    state.forfeit(0)
    assert state.outcome is not None and state.outcome.placements[0] == 3


def test_a_forfeit_at_a_table_of_four_abandons_the_deal_and_the_three_play_on() -> None:
    state = deal(players=4, dealer=3)
    state.forfeit(2)  # rearhand: the deal cannot go on without it
    assert round_end(state)["end"] == "abandoned" and state.round == 2
    assert state.dealer == 0 and state.order == [1, 3, 0]  # the new dealer plays: nobody sits out
    state.forfeit(0)
    assert state.outcome is not None and state.outcome.reason == "too few players"
    assert state.outcome.placements == (3, 1, 4, 1)


def test_the_sitting_out_dealer_may_forfeit_without_stopping_the_deal() -> None:
    state = deal(players=4, dealer=3)
    state.forfeit(3)
    assert state.to_move == 1 and state.round == 1 and not events(state, "round_end")


def test_the_turn_cap_ends_a_deal_without_a_result() -> None:
    state = deal(max_turns=5)
    play(state, "2:bid 18", "1:hold", "2:bid 20", "1:hold", "2:bid 22")
    assert round_end(state) == {"end": "turn_cap", "changes": [0, 0, 0], "scores": [0, 0, 0]}
