"""The draw-and-discard family (docs/RULES.md sections 2, 3 and 5b) and its eight presets.

Every scenario uses an explicit deck (top card first) so the outcome is exact.  Cards are
dealt one at a time from the dealer's left (with banking's widow card after each pass),
then the up card, then the stock, top first; :func:`build_deck` lays a deck out that way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from arena.cards import Card, derive_seed, new_deck, parse_card, parse_cards, shuffled_deck
from arena.rules import Action, IllegalActionError, OptionError, RulesError, get_variant, parse_option_pairs
from arena.rules.game import MatchState, rank_placements

DRAW = Action.of("draw")
TAKE = Action.of("take")
KNOCK = Action.of("knock")
STAND = Action.of("stand")

PRESETS = [
    "scat",
    "scat-trips",
    "dollar-bill",
    "eenendertigen",
    "california-quick",
    "west-lansing",
    "no-elimination",
    "banking",
]

# ---------------------------------------------------------------------------------------
# helpers


def build_deck(
    hands: Sequence[str | None],
    up: str,
    stock: str = "",
    *,
    dealer: int = 0,
    widow: str | None = None,
    size: int = 52,
) -> list[Card]:
    """A whole deck that deals ``hands[seat]`` to each seat (``None``: a seat already out).

    One card at a time from the dealer's left, a widow card after each pass when
    ``widow`` is given, then the up card, then ``stock`` (top first), then the rest of
    the deck in the fixed fresh-deck order.
    """
    n = len(hands)
    parsed = {s: parse_cards(h) for s, h in enumerate(hands) if h is not None}
    assert all(len(h) == 3 for h in parsed.values())
    order = [(dealer + k) % n for k in range(1, n + 1) if hands[(dealer + k) % n] is not None]
    widow_cards = parse_cards(widow) if widow else None
    deck: list[Card] = []
    for i in range(3):
        deck += [parsed[s][i] for s in order]
        if widow_cards:
            deck.append(widow_cards[i])
    deck.append(parse_card(up))
    deck += parse_cards(stock)
    assert len(set(deck)) == len(deck), "a card is used twice in the scenario"
    deck += [c for c in new_deck(size) if c not in deck]
    assert len(deck) == size
    return deck


def names(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def ends(state: MatchState) -> list[dict[str, Any]]:
    """The public part of every round_end event so far."""
    return [dict(e.public) for e in state.log if e.kind == "round_end"]


def do(state: MatchState, seat: int, text: str) -> None:
    """Play one turn of ``seat``: ``draw 6h`` / ``take 6h`` (then discard 6h), or any action text."""
    assert state.to_move == seat, f"expected seat {seat} to move, not {state.to_move}"
    kind, _, rest = text.partition(" ")
    if kind in ("draw", "take") and rest:
        state.apply(Action.of(kind))
        state.apply(Action.of("discard", parse_card(rest)))
    else:
        state.apply(Action.parse(text))


def drawn_card(state: MatchState) -> Card:
    """The card the last ``draw`` gave, from the drawer's private part of the event."""
    event = state.log[-1]
    assert event.kind == "action" and event.public["action"] == "draw"
    assert event.private is not None and event.seat is not None
    return parse_card(event.private[event.seat]["card"])


def snapshot(state: MatchState) -> tuple[Any, ...]:
    """Everything observable about the state: every seat's view, the log length, legal actions."""
    return (
        [json.dumps(state.observe(s), sort_keys=True) for s in range(state.players)],
        len(state.log),
        [str(a) for a in state.legal_actions()],
        state.to_move,
    )


def assert_illegal(state: MatchState, action: Action) -> None:
    """``action`` is refused and the state is unchanged."""
    before = snapshot(state)
    assert action not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert snapshot(state) == before


def match(
    variant: str,
    decks: Sequence[Sequence[Card]],
    players: int | None = None,
    *,
    dealer: int = 0,
    seed: int = 1,
    **options: Any,
) -> MatchState:
    if players is None:
        players = 3
    return get_variant(variant).new_match(players, seed=seed, options=options, decks=decks, dealer=dealer)


def value(hand: str, variant: str = "scat", **options: Any) -> float:
    return get_variant(variant).evaluate(parse_cards(hand), options).value


# Three ordinary hands (3 players, dealer 0: seat 1 plays first, then 2, then 0).
LOW = "2c 3d 4h"  # 4
MID_H = "Kh Qh 9s"  # 20
MID_S = "Ks Qs 9c"  # 20
MID_C = "Kc Qc 9h"  # 20


def knock_round(state: MatchState, loser: int) -> dict[str, Any]:
    """The first seat other than ``loser`` knocks, every other seat stands; the loser, if it
    moves before the knock, draws and discards the drawn card.  Returns the round_end."""
    start = len(ends(state))
    while len(ends(state)) == start:
        seat = state.to_move
        assert seat is not None
        if state.observe(seat)["knocker"] is None:
            if seat == loser:
                state.apply(DRAW)
                state.apply(Action.of("discard", drawn_card(state)))
            else:
                state.apply(KNOCK)
        else:
            state.apply(STAND)
    return ends(state)[start]


# ---------------------------------------------------------------------------------------
# 3.1 the deal


def test_deal_one_card_at_a_time_from_the_dealers_left() -> None:
    deck = new_deck()  # 2c 3c 4c ... Ac 2d ... : no hand below is a blitz
    state = match("scat", [deck], 4, dealer=2)
    # order of the deal: 3, 0, 1, 2
    assert names(state.hands[3]) == names([deck[0], deck[4], deck[8]])
    assert names(state.hands[0]) == names([deck[1], deck[5], deck[9]])
    assert names(state.hands[1]) == names([deck[2], deck[6], deck[10]])
    assert names(state.hands[2]) == names([deck[3], deck[7], deck[11]])
    assert state.pile == [deck[12]]
    assert len(state.stock) == 52 - 13
    assert state.to_move == 3
    obs = state.observe(3)
    assert obs["discard_top"] == str(deck[12]) and obs["discard_size"] == 1
    assert obs["stock"] == 39 and obs["dealer"] == 2 and obs["round"] == 1
    assert obs["hand"] == names(state.hands[3])
    state.apply(DRAW)
    assert drawn_card(state) == deck[13]  # the stock is the rest of the deck, top first
    assert state.hands[3][-1] == deck[13]


def test_first_dealer_is_seat_zero_and_lives_default_three() -> None:
    state = get_variant("scat").new_match(4, seed=5)
    start = next(e for e in state.log if e.kind == "round_start")
    assert start.public["dealer"] == 0
    assert start.public["lives"] == [3, 3, 3, 3]
    assert state.round == 1 and not ends(state)
    assert state.to_move == 1


def test_seeded_deal_is_the_derived_shuffle() -> None:
    seed = 2024
    state = get_variant("scat").new_match(3, seed=seed)
    assert not ends(state)
    deck = shuffled_deck(derive_seed(seed, 1, 1))
    assert names(state.hands[1]) == names([deck[0], deck[3], deck[6]])
    assert names(state.hands[0]) == names([deck[2], deck[5], deck[8]])
    assert state.pile[0] == deck[9]


def test_deal_event_shows_each_seat_only_its_hand() -> None:
    deck = build_deck([LOW, MID_H, MID_S], "5s")
    state = match("scat", [deck])
    deal = next(e for e in state.log if e.kind == "deal")
    assert deal.public["upcard"] == "5s"
    assert "hand" not in deal.view(None)
    for seat, hand in enumerate([LOW, MID_H, MID_S]):
        view = deal.view(seat)
        assert view["hand"] == hand.split()
        text = json.dumps(view)
        for other, other_hand in enumerate([LOW, MID_H, MID_S]):
            if other != seat:
                assert not any(card in text for card in other_hand.split())


def test_observation_hides_other_hands() -> None:
    hands = [LOW, MID_H, MID_S]
    state = match("scat", [build_deck(hands, "5s", "6s")])
    for seat in range(3):
        obs = state.observe(seat)
        text = json.dumps(obs)
        assert obs["hand"] == hands[seat].split()
        assert obs["lives"] == (3, 3, 3)
        assert "6s" not in text  # the stock's top
        for other in range(3):
            if other != seat:
                assert not any(card in text for card in hands[other].split())


# ---------------------------------------------------------------------------------------
# 3.2 a turn


def test_draw_then_discard_any_card_even_the_drawn_one() -> None:
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s", "9d")])
    assert set(state.legal_actions()) == {DRAW, TAKE, KNOCK}
    state.apply(DRAW)
    assert drawn_card(state) == parse_card("9d")
    assert set(state.legal_actions()) == {Action.of("discard", parse_card(c)) for c in ["Kh", "Qh", "9s", "9d"]}
    assert state.to_move == 1  # the turn is not over
    assert_illegal(state, DRAW)
    assert_illegal(state, KNOCK)
    assert_illegal(state, Action.of("discard", parse_card("5s")))  # not in the hand
    state.apply(Action.of("discard", parse_card("9d")))
    assert state.observe(2)["discard_top"] == "9d"
    assert names(state.hands[1]) == ["Kh", "Qh", "9s"]
    assert state.to_move == 2


def test_drawn_card_is_seen_only_by_the_drawer() -> None:
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s", "9d")])
    state.apply(DRAW)
    event = state.log[-1]
    assert event.view(1)["card"] == "9d"
    for seat in (0, 2, None):
        assert "9d" not in json.dumps(event.view(seat))
        if seat is not None:
            assert "9d" not in json.dumps(state.observe(seat))
    assert state.observe(1)["hand"] == ["Kh", "Qh", "9s", "9d"]


def test_take_then_the_taken_card_cannot_be_discarded() -> None:
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s", "9d")])
    state.apply(TAKE)
    assert state.log[-1].public == {"action": "take", "card": "5s"}  # a take is public
    assert state.observe(1)["must_keep"] == "5s"
    assert Action.of("discard", parse_card("5s")) not in state.legal_actions()
    assert len(state.legal_actions()) == 3
    assert_illegal(state, Action.of("discard", parse_card("5s")))
    state.apply(Action.of("discard", parse_card("9s")))
    assert state.pile[-1] == parse_card("9s")
    assert names(state.hands[1]) == ["Kh", "Qh", "5s"]
    assert state.to_move == 2


def test_taking_ones_own_discard_is_allowed() -> None:
    """5b: taking the discard top is always allowed, even one's own earlier discard."""
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s", "9d")])
    do(state, 1, "draw 9d")
    do(state, 2, "knock")
    do(state, 0, "stand")
    assert state.pile[-1] == parse_card("9d")  # seat 1's own discard
    assert TAKE in state.legal_actions()
    do(state, 1, "take Kh")
    assert ends(state)[0]["end"] == "showdown"
    assert ends(state)[0]["hands"]["1"] == ["Qh", "9s", "9d"]


def test_two_players_take_back_own_discard_after_a_knock() -> None:
    """Seed 001: with two players, after a knock the other may take back its own discard."""
    state = match("scat", [build_deck([MID_S, LOW], "5s", "9d")], 2)
    do(state, 1, "draw 9d")
    do(state, 0, "knock")
    assert state.to_move == 1 and set(state.legal_actions()) >= {TAKE, STAND}
    state.apply(TAKE)
    assert state.log[-1].public["card"] == "9d"
    state.apply(Action.of("discard", parse_card("2c")))
    end = ends(state)[0]
    assert end["end"] == "showdown"
    # seat 1: 3d 4h 9d = 12 (diamonds); seat 0: 20.  Seat 1 loses one.
    assert end["lives_lost"] == [0, 1]


def test_knock_only_once_per_round() -> None:
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s", "9d")])
    do(state, 1, "knock")
    assert state.observe(0)["knocker"] == 1
    assert state.observe(2)["phase"] == "last_turn"
    assert KNOCK not in state.legal_actions()
    assert_illegal(state, KNOCK)
    do(state, 2, "draw 9d")
    assert_illegal(state, KNOCK)


def test_stand_only_after_a_knock() -> None:
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s", "9d")])
    assert_illegal(state, STAND)
    do(state, 1, "knock")
    assert STAND in state.legal_actions()


def test_knock_first_turn_default_yes() -> None:
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s", "9d")])
    assert get_variant("scat").defaults()["knock_first_turn"] is True
    assert KNOCK in state.legal_actions()


def test_knock_first_turn_no_forbids_a_first_turn_knock() -> None:
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s", "9d 8d 7d 6d")], knock_first_turn=False)
    assert_illegal(state, KNOCK)
    do(state, 1, "draw 9d")
    assert_illegal(state, KNOCK)  # seat 2's first turn
    do(state, 2, "draw 8d")
    assert_illegal(state, KNOCK)  # seat 0's first turn
    do(state, 0, "draw 7d")
    assert KNOCK in state.legal_actions()  # seat 1's second turn
    do(state, 1, "knock")
    assert state.observe(0)["knocker"] == 1


def test_after_a_knock_each_other_player_has_exactly_one_turn() -> None:
    # 4 players, dealer 0: order 1, 2, 3, 0.  Seat 2 knocks on its first turn.
    hands = [LOW, MID_H, MID_S, MID_C]
    state = match("scat", [build_deck(hands, "5s", "9d 8d 7d 6d")], 4)
    do(state, 1, "draw 9d")
    do(state, 2, "knock")
    do(state, 3, "stand")
    do(state, 0, "draw 8d")
    assert not ends(state)
    assert state.to_move == 1  # the player to the knocker's right has the last turn
    assert set(state.legal_actions()) == {DRAW, TAKE, STAND}
    do(state, 1, "stand")
    end = ends(state)[0]  # the round ends after the player to the knocker's right
    assert end["end"] == "showdown" and end["knocker"] == 2
    assert end["lives_lost"] == [1, 0, 0, 0]
    assert state.round >= 2


def test_showdown_reveals_every_hand() -> None:
    hands = [LOW, MID_H, MID_S]
    state = match("scat", [build_deck(hands, "5s")])
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    end = ends(state)[0]
    assert end["hands"] == {"0": LOW.split(), "1": MID_H.split(), "2": MID_S.split()}
    assert end["values"] == {"0": 4, "1": 20, "2": 20}
    assert end["lives"] == [2, 3, 3]


# ---------------------------------------------------------------------------------------
# 3.3 blitz


def test_dealt_blitz_ends_the_round_before_any_turn() -> None:
    state = match("scat", [build_deck([LOW, "Ah Kh Th", MID_S], "5s")])
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [1]
    assert end["lives_lost"] == [1, 0, 1]
    assert end["hands"] == {"1": ["Ah", "Kh", "Th"]}  # only the blitz is shown
    assert state.round >= 2


def test_several_dealt_blitzes_everyone_without_one_loses() -> None:
    hands = [LOW, "Ah Kh Th", MID_S, "Ac Qc Jc"]
    state = match("scat", [build_deck(hands, "5s")], 4)
    end = ends(state)[0]
    assert end["end"] == "blitz"
    assert sorted(end["blitz"]) == [1, 3]
    assert end["lives_lost"] == [1, 0, 1, 0]


def test_blitz_at_the_end_of_a_turn() -> None:
    state = match("scat", [build_deck([LOW, "Ah Kh 2s", MID_S], "5s", "Th")])
    assert not ends(state)
    state.apply(DRAW)
    assert not ends(state)  # checked at the end of the turn, not on the draw
    state.apply(Action.of("discard", parse_card("2s")))
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [1]
    assert end["lives_lost"] == [1, 0, 1]
    assert end["values"] == {"1": 31}


def test_blitz_in_a_last_turn_after_a_knock_costs_the_knocker_one() -> None:
    state = match("scat", [build_deck([LOW, MID_S, "Ah Kh 2s"], "5c", "Th")])
    do(state, 1, "knock")
    do(state, 2, "draw 2s")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [2] and end["knocker"] == 1
    assert end["lives_lost"] == [1, 1, 0]  # seat 0 never got its last turn


def test_knocker_blitz_penalty_option() -> None:
    state = match("scat", [build_deck([LOW, MID_S, "Ah Kh 2s"], "5c", "Th")], knocker_blitz_penalty=2)
    do(state, 1, "knock")
    do(state, 2, "draw 2s")
    assert ends(state)[0]["lives_lost"] == [1, 2, 0]


def test_three_aces_33_beats_a_dealt_blitz() -> None:
    hands = [LOW, "Ah Kh Th", "Ac Ad As"]
    state = match("scat", [build_deck(hands, "5s")], three_aces="33")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [2]
    assert end["lives_lost"] == [1, 1, 0]  # the 31 holder loses like everyone else
    assert end["values"] == {"2": 33}


def test_without_three_aces_option_the_31_wins() -> None:
    hands = [LOW, "Ah Kh Th", "Ac Ad As"]
    state = match("scat", [build_deck(hands, "5s")])
    end = ends(state)[0]
    assert end["blitz"] == [1] and end["lives_lost"] == [1, 0, 1]


def test_three_aces_33_acts_like_a_blitz_on_a_turn() -> None:
    state = match("scat", [build_deck([LOW, "Ac Ad 2h", MID_S], "5c", "As")], three_aces="33")
    do(state, 1, "draw 2h")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [1]
    assert end["lives_lost"] == [1, 0, 1]


def test_three_aces_32_is_not_a_blitz_but_worth_32() -> None:
    state = match("scat", [build_deck([LOW, "Ac Ad 2h", MID_S], "5c", "As")], three_aces="32")
    do(state, 1, "draw 2h")
    assert not ends(state) and state.to_move == 2
    do(state, 2, "knock")
    do(state, 0, "stand")
    do(state, 1, "stand")
    end = ends(state)[0]
    assert end["values"]["1"] == 32 and end["lives_lost"] == [1, 0, 0]
    assert value("Ac Ad As", three_aces="32") == 32


def test_blitz_only_akt() -> None:
    options = {"blitz_only_akt": True}
    akq = get_variant("scat").evaluate(parse_cards("Ah Kh Qh"), options)
    akt = get_variant("scat").evaluate(parse_cards("Ah Kh Th"), options)
    assert akq.value == 31 and akq.special == 0
    assert akt.value == 31 and akt.special != 0
    assert get_variant("scat").evaluate(parse_cards("Ah Kh Qh")).special != 0  # default: any 31
    # a dealt A K Q is no blitz: the round goes on
    state = match("scat", [build_deck([LOW, "Ah Kh Qh", MID_S], "5s")], blitz_only_akt=True)
    assert not ends(state) and state.to_move == 1
    # ... and a dealt A K T is
    state = match("scat", [build_deck([LOW, "Ah Kh Th", MID_S], "5s")], blitz_only_akt=True)
    assert ends(state)[0]["end"] == "blitz"


def test_blitz_only_akt_on_a_turn() -> None:
    state = match("scat", [build_deck([LOW, "Ah Kh 2s", MID_S], "5s", "Qh")], blitz_only_akt=True)
    do(state, 1, "draw 2s")  # A K Q: 31 but not a blitz
    assert not ends(state) and state.to_move == 2


def test_blitz_on_turn_dealt_blitz_is_shown_by_knocking() -> None:
    state = match(
        "scat", [build_deck([LOW, MID_S, "Ah Kh Th"], "5c", "8d")], blitz_on_turn=True, knock_first_turn=False
    )
    assert not ends(state) and state.to_move == 1
    assert KNOCK not in state.legal_actions()  # seat 1 has no blitz and may not knock yet
    do(state, 1, "draw 8d")
    assert KNOCK in state.legal_actions()  # a blitz may be shown on the first turn
    do(state, 2, "knock")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [2]
    assert end["lives_lost"] == [1, 1, 0]


def test_blitz_on_turn_a_drawn_blitz_waits_for_the_next_turn() -> None:
    state = match("scat", [build_deck([LOW, "Ah Kh 2s", MID_S], "5c", "Th 8d 7d")], blitz_on_turn=True)
    do(state, 1, "draw 2s")
    assert not ends(state) and state.to_move == 2
    do(state, 2, "draw 8d")
    do(state, 0, "draw 7d")
    do(state, 1, "knock")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["lives_lost"] == [1, 0, 1]


def test_blitz_on_turn_shown_in_a_last_turn() -> None:
    state = match("scat", [build_deck([LOW, MID_S, "Ah Kh Th"], "5c", "8d")], blitz_on_turn=True)
    do(state, 1, "knock")
    assert KNOCK in state.legal_actions()  # a blitz is shown by knocking, even after a knock
    do(state, 2, "knock")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["lives_lost"] == [1, 1, 0]


# ---------------------------------------------------------------------------------------
# 3.4 showdown


def test_lowest_alone_loses_one() -> None:
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s")])
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    assert ends(state)[0]["lives_lost"] == [1, 0, 0]


def test_everyone_tied_for_lowest_loses_one() -> None:
    # seat 1 knocks with 20; seats 2 and 0 tie at 4 (different cards, same value).
    state = match("scat", [build_deck([LOW, MID_H, "2d 3h 4s"], "5s")])
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    assert ends(state)[0]["lives_lost"] == [1, 0, 1]


def test_knocker_safe_in_any_tie_for_lowest() -> None:
    hands = [MID_C, MID_H, MID_S, "Kd Qd 8s"]  # everyone holds 20
    state = match("scat", [build_deck(hands, "5s")], 4)
    do(state, 1, "knock")
    for seat in (2, 3, 0):
        do(state, seat, "stand")
    assert ends(state)[0]["lives_lost"] == [1, 0, 1, 1]


def test_knocker_lowest_alone_loses_two() -> None:
    state = match("scat", [build_deck([MID_S, LOW, MID_H], "5s")])
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    assert ends(state)[0]["lives_lost"] == [0, 2, 0]


def test_knocker_penalty_option() -> None:
    state = match("scat", [build_deck([MID_S, LOW, MID_H], "5s")], knocker_penalty=3, lives=4)
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    assert ends(state)[0]["lives_lost"] == [0, 3, 0]


def test_losing_is_decided_on_value_alone() -> None:
    # seat 2's 20 is K Q, seat 0's 20 is A 9: a cards tie-break would split them; losing does not.
    state = match("scat", [build_deck(["Ac 9c 2h", "Ah Kh 9h", "Ks Qs 3d"], "5d")])
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    assert ends(state)[0]["lives_lost"] == [1, 0, 1]


# ---------------------------------------------------------------------------------------
# 3.5 stock runs out (9 players and a 32-card deck leave a stock of four)

NINE = ["7d 9s Ts", "7c 8d 9h", "Tc Jd Qh", "Kc Ad 7s", "8c 9d Th", "Jc Qd Kh", "Ac 7h 8s", "9c Td Js", "Qc Kd Ah"]
NINE_UP, NINE_STOCK = "8h", "Jh Qs Ks As"


def nine_deck() -> list[Card]:
    return build_deck(NINE, NINE_UP, NINE_STOCK, size=32)


def test_stock_out_draw_is_the_default_and_nobody_loses() -> None:
    state = match("scat", [nine_deck()], 9, deck=32)
    assert state.observe(0)["stock"] == 4
    do(state, 1, "draw Jh")
    do(state, 2, "draw Qs")
    do(state, 3, "draw Ks")
    state.apply(DRAW)
    assert drawn_card(state) == parse_card("As")
    assert not ends(state)
    assert state.to_move == 4  # the drawer still discards
    assert state.observe(4)["stock"] == 0
    assert DRAW not in state.legal_actions()
    state.apply(Action.of("discard", parse_card("8c")))
    end = ends(state)[0]
    assert end["end"] == "draw"
    assert end["lives_lost"] == [0] * 9
    assert end["lives"] == [3] * 9
    assert [e.public["round"] for e in state.log if e.kind == "round_start"][:2] == [1, 2]


def test_stock_out_draw_a_blitz_on_that_turn_still_counts() -> None:
    hands = ["7d 9s Ts", "7c 8d 9h", "Tc Jd 7h", "Kc Ad 7s", "Qh Th 8c", "Jc Qd Kh", "Ac 8h 8s", "9c Td Js", "Qc Kd Jh"]
    state = match("scat", [build_deck(hands, "9d", "Qs Ks As Ah", size=32)], 9, deck=32)
    do(state, 1, "draw Qs")
    do(state, 2, "draw Ks")
    do(state, 3, "draw As")
    do(state, 4, "draw 8c")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [4]
    assert end["lives_lost"] == [1, 1, 1, 1, 0, 1, 1, 1, 1]


def test_stock_out_reshuffle() -> None:
    state = match("scat", [nine_deck()], 9, seed=77, deck=32, stock_out="reshuffle")
    do(state, 1, "draw Jh")
    do(state, 2, "draw Qs")
    do(state, 3, "draw Ks")
    do(state, 4, "draw As")
    assert not ends(state)
    reshuffle = [e for e in state.log if e.kind == "reshuffle"]
    assert len(reshuffle) == 1 and reshuffle[0].public == {"stock": 4}
    # the discard pile except its top card became the new stock
    assert state.pile == [parse_card("As")]
    obs = state.observe(5)
    assert obs["stock"] == 4 and obs["discard_top"] == "As" and obs["discard_size"] == 1
    assert state.to_move == 5
    state.apply(DRAW)
    card = drawn_card(state)
    assert str(card) in {"8h", "Jh", "Qs", "Ks"}
    # the reshuffle is seeded: the same seed gives the same card
    again = match("scat", [nine_deck()], 9, seed=77, deck=32, stock_out="reshuffle")
    for seat, text in [(1, "draw Jh"), (2, "draw Qs"), (3, "draw Ks"), (4, "draw As")]:
        do(again, seat, text)
    again.apply(DRAW)
    assert drawn_card(again) == card


def test_after_a_knock_an_empty_stock_allows_only_take_or_stand() -> None:
    state = match("scat", [nine_deck()], 9, deck=32)
    do(state, 1, "knock")
    do(state, 2, "draw Jh")
    do(state, 3, "draw Qs")
    do(state, 4, "draw Ks")
    do(state, 5, "draw As")  # the last card, after a knock: the round goes on
    assert not ends(state)
    assert state.observe(6)["stock"] == 0
    assert set(state.legal_actions()) == {TAKE, STAND}
    assert_illegal(state, DRAW)
    do(state, 6, "take 8s")
    for seat in (7, 8, 0):
        do(state, seat, "stand")
    assert ends(state)[0]["end"] == "showdown"


# ---------------------------------------------------------------------------------------
# 3.6 free ride, elimination and the end of a match


def losing_decks(rounds: int, players: int = 3, loser: int = 0, dealer: int = 0) -> list[list[Card]]:
    """Decks for ``rounds`` rounds (no eliminations in between) where ``loser`` is lowest alone."""
    others = [MID_H, MID_S, MID_C, "Kd Qd 8c"]
    decks = []
    for r in range(rounds):
        hands: list[str | None] = []
        pool = iter(others)
        for seat in range(players):
            hands.append(LOW if seat == loser else next(pool))
        decks.append(build_deck(hands, "5s", "6s 7s 8s", dealer=(dealer + r) % players))
    return decks


@pytest.mark.parametrize(
    ("variant", "lives", "losses_to_go_out"),
    [("scat", 3, 4), ("dollar-bill", 4, 5), ("west-lansing", 3, 3), ("eenendertigen", 3, 4)],
)
def test_free_ride(variant: str, lives: int, losses_to_go_out: int) -> None:
    size = 32 if variant == "eenendertigen" else 52
    if size == 32:
        others = ["Kh Qh 9s", "Ks Qs 9d"]
        decks = [
            build_deck(["7c 8d 9h", *others], "7s", "8s Ts Js", dealer=r % 3, size=32) for r in range(losses_to_go_out)
        ]
    else:
        decks = losing_decks(losses_to_go_out)
    state = match(variant, decks)
    assert state.observe(0)["lives"] == (lives,) * 3
    for r in range(losses_to_go_out):
        end = knock_round(state, loser=0)
        assert end["lives_lost"] == [1, 0, 0]
        if r < losses_to_go_out - 1:
            assert end["eliminated"] == [] and state.active[0]
            assert end["lives"][0] == lives - 1 - r
    assert end["eliminated"] == [0]
    assert not state.active[0]
    free_ride = get_variant(variant).defaults()["free_ride"]
    assert end["lives"][0] == (-1 if free_ride else 0)


def test_knocker_at_one_life_losing_two_is_out_at_once() -> None:
    state = match("scat", [build_deck([MID_S, LOW, MID_H], "5s")], lives=1)
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    end = ends(state)[0]
    assert end["lives_lost"] == [0, 2, 0]
    assert end["eliminated"] == [1]
    assert not state.active[1]


def test_no_free_ride_out_at_zero() -> None:
    state = match("scat", losing_decks(1), lives=1, free_ride=False)
    end = knock_round(state, loser=0)
    assert end["eliminated"] == [0] and end["lives"] == [0, 1, 1]


def test_elimination_placements_reverse_order() -> None:
    # Round 1 (dealer 0): seat 0 out.  Round 2 (dealer 1; seat 0 skipped): seat 1 out.
    deck1 = build_deck([LOW, MID_H, MID_S], "5s", "6s")
    deck2 = build_deck([None, LOW, MID_S], "5s", "6s", dealer=1)
    state = match("scat", [deck1, deck2], lives=1, free_ride=False)
    assert knock_round(state, loser=0)["eliminated"] == [0]
    assert state.observe(2)["dealer"] == 1
    assert state.hands[0] == []
    assert names(state.hands[2]) == MID_S.split() and names(state.hands[1]) == LOW.split()
    assert state.to_move == 2
    end = knock_round(state, loser=1)
    assert end["eliminated"] == [1]
    assert state.is_over and state.to_move is None and state.legal_actions() == []
    assert state.outcome is not None
    assert state.outcome.placements == (3, 2, 1)
    assert state.outcome.winners == (2,)
    assert state.outcome.reason == "last player in"
    assert state.outcome.rounds == 2
    with pytest.raises(IllegalActionError):
        state.apply(KNOCK)


def test_eliminated_in_the_same_round_share_a_placement() -> None:
    # 4 players, seats 0 and 3 tie for lowest in round 1 and both go out.
    deck1 = build_deck([LOW, MID_H, MID_S, "2d 3h 4s"], "5s", "6s")
    deck2 = build_deck([None, LOW, MID_S, None], "5s", "6s", dealer=1)
    state = match("scat", [deck1, deck2], 4, lives=1, free_ride=False)
    end = knock_round(state, loser=0)
    assert end["lives_lost"] == [1, 0, 0, 1]
    assert sorted(end["eliminated"]) == [0, 3]
    end = knock_round(state, loser=1)
    assert end["eliminated"] == [1]
    assert state.outcome is not None
    assert state.outcome.placements == (3, 2, 1, 3)


def test_two_eliminated_at_once_leaving_one_ends_the_match() -> None:
    deck = build_deck([LOW, MID_H, "2d 3h 4s"], "5s", "6s")
    state = match("scat", [deck], lives=1, free_ride=False)
    knock_round(state, loser=0)
    assert state.outcome is not None
    assert state.outcome.placements == (2, 1, 2)


def test_round_eliminating_everyone_is_cancelled() -> None:
    # California Quick: a knocker tied for lowest loses too; everyone holds 20.
    deck = build_deck([MID_C, MID_H, MID_S], "5d")
    state = match("california-quick", [deck], lives=1, free_ride=False)
    do(state, 1, "knock")  # out of the gate: the round ends at once
    end = ends(state)[0]
    assert end["cancelled"] is True
    assert end["eliminated"] == []
    assert end["lives"] == [1, 1, 1]
    assert state.active == [True, True, True]
    assert not state.is_over
    assert state.round >= 2  # another round is dealt
    assert any(e.kind == "round_start" and e.public["round"] == 2 for e in state.log)


def test_round_eliminating_everyone_is_cancelled_two_players() -> None:
    deck = build_deck([MID_C, MID_H], "5d")
    state = match("scat", [deck], 2, lives=1, free_ride=False, knocker_tie="loses")
    do(state, 1, "knock")
    do(state, 0, "stand")
    end = ends(state)[0]
    assert end["cancelled"] is True and end["lives"] == [1, 1]
    assert not state.is_over and state.active == [True, True]


def test_dealer_passes_left_skipping_eliminated_seats() -> None:
    # Round 1, dealer 0: seat 1 goes out.  Round 2's dealer is seat 2, not seat 1.
    deck1 = build_deck([MID_H, LOW, MID_S], "5s", "6s")
    deck2 = build_deck([MID_H, None, LOW], "5s", "6s", dealer=2)
    state = match("scat", [deck1, deck2], lives=1, free_ride=False)
    assert knock_round(state, loser=1)["eliminated"] == [1]
    start = [e.public for e in state.log if e.kind == "round_start"][1]
    assert start["dealer"] == 2 and start["active"] == [True, False, True]
    assert state.observe(0)["dealer"] == 2
    # dealt from the dealer's left, skipping seat 1: seat 0 first, then seat 2
    assert names(state.hands[0]) == MID_H.split()
    assert names(state.hands[2]) == LOW.split()
    assert state.hands[1] == []
    assert state.to_move == 0
    do(state, 0, "draw 6s")
    assert state.to_move == 2  # seat 1 is skipped in turn order
    do(state, 2, "knock")
    do(state, 0, "stand")
    end = ends(state)[1]
    assert end["lives_lost"][1] == 0


def test_seats_out_take_no_losses_at_a_blitz() -> None:
    # Round 1: seat 1 knocks and is lowest alone: it loses 2 of its 2 lives and is out.
    deck1 = build_deck([MID_H, LOW, MID_S], "5s", "6s")
    deck2 = build_deck([MID_H, None, "As Ks Ts"], "5s", dealer=2)
    state = match("scat", [deck1, deck2], lives=2, free_ride=False)
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    end = ends(state)[0]
    assert end["eliminated"] == [1]
    end = ends(state)[1]  # round 2: a dealt blitz by seat 2
    assert end["end"] == "blitz" and end["lives_lost"] == [1, 0, 0]


def test_round_cap_places_by_lives() -> None:
    state = match("scat", losing_decks(1), max_rounds=1)
    knock_round(state, loser=0)
    assert state.outcome is not None
    assert state.outcome.reason == "round cap"
    assert state.outcome.rounds == 1
    assert state.outcome.placements == (3, 1, 1)
    assert state.outcome.scores == (2.0, 3.0, 3.0)


def test_round_cap_default_200() -> None:
    # blitz_on_turn keeps dealt blitzes quiet; max_turns=1 calls every round a draw.
    state = get_variant("scat").new_match(2, seed=3, options={"blitz_on_turn": True, "max_turns": 1})
    while not state.is_over:
        state.apply(DRAW)
        state.apply(state.legal_actions()[0])
    assert state.outcome is not None
    assert state.outcome.rounds == 200 and state.outcome.reason == "round cap"
    assert state.outcome.placements == (1, 1)
    assert {e.public["end"] for e in state.log if e.kind == "round_end"} == {"turn_cap"}


def test_round_cap_default_500_for_points() -> None:
    state = get_variant("no-elimination").new_match(
        2, seed=3, options={"blitz_on_turn": True, "max_turns": 1, "rounds": 1000}
    )
    while not state.is_over:
        state.apply(DRAW)
        state.apply(state.legal_actions()[0])
    assert state.outcome is not None and state.outcome.rounds == 500


# ---------------------------------------------------------------------------------------
# presets (3.7)


def test_preset_option_values() -> None:
    scat = get_variant("scat").defaults()
    assert scat["deck"] == 52 and scat["lives"] == 3 and scat["free_ride"] is True
    assert scat["trips"] == "none" and scat["three_aces"] == "none"
    assert scat["knocker_penalty"] == 2 and scat["knocker_blitz_penalty"] == 1
    assert scat["stock_out"] == "draw" and scat["knock_first_turn"] is True
    assert scat["blitz_on_turn"] is False and scat["blitz_only_akt"] is False
    assert get_variant("scat-trips").defaults()["trips"] == "30"
    dollar = get_variant("dollar-bill").defaults()
    assert dollar["lives"] == 4 and dollar["free_ride"] is True
    assert get_variant("eenendertigen").defaults()["deck"] == 32
    west = get_variant("west-lansing").defaults()
    assert west["free_ride"] is False and west["trips"] == "30.5"
    assert get_variant("banking").defaults()["bankroll"] == 20


@pytest.mark.parametrize("variant", PRESETS)
def test_presets_start_as_specified(variant: str) -> None:
    state = get_variant(variant).new_match(3, seed=12)
    start = next(e.public for e in state.log if e.kind == "round_start")
    if variant == "no-elimination":
        assert start["points"] == [0, 0, 0]
    elif variant == "banking":
        assert start["chips"] == [20, 20, 20]
    else:
        assert start["lives"] == [4 if variant == "dollar-bill" else 3] * 3
    size = 32 if variant == "eenendertigen" else 52
    widow = 3 if variant == "banking" else 0
    dealt = sum(len(h) for h in state.hands) + len(state.pile) + len(state.widow) + len(state.stock)
    assert dealt == size
    if not ends(state):
        assert len(state.stock) == size - 9 - 1 - widow


# scat-trips


def test_scat_trips_values() -> None:
    assert value("7c 7d 7h", "scat-trips") == 30
    assert value("7c 7d 7h", "scat") == 7
    assert value("Ac Ad Ah", "scat-trips") == 30
    assert value("Ac Ad Ah", "scat") == 11


def test_scat_trips_higher_rank_wins_a_tie_for_highest() -> None:
    variant = get_variant("scat-trips")
    kings = variant.evaluate(parse_cards("Kc Kd Kh"))
    queens = variant.evaluate(parse_cards("Qc Qd Qh"))
    assert kings.high_key > queens.high_key
    assert kings.low_key == queens.low_key  # losing is decided on value alone


@pytest.mark.parametrize(("variant", "lost"), [("scat-trips", [0, 1, 0]), ("scat", [1, 0, 0])])
def test_trips_in_a_showdown(variant: str, lost: list[int]) -> None:
    # seat 0: 7 7 7 (30 with trips, 7 without); seat 1: 19; seat 2 knocks with 20.
    deck = build_deck(["7c 7d 7h", "Kh 9h 2c", "Qs Js 3d"], "5d")
    state = match(variant, [deck])
    do(state, 1, "take 2c")
    do(state, 2, "knock")
    do(state, 0, "stand")
    do(state, 1, "stand")
    assert ends(state)[0]["lives_lost"] == lost


# eenendertigen


def test_eenendertigen_32_card_deck() -> None:
    variant = get_variant("eenendertigen")
    with pytest.raises(RulesError, match="2c"):
        variant.evaluate(parse_cards("2c Ah Kh"))
    assert variant.evaluate(parse_cards("7c Ah Kh")).value == 21
    state = variant.new_match(3, seed=4)
    cards = [c for h in state.hands for c in h] + state.pile
    assert all(c.rank >= 5 for c in cards)
    assert len(state.stock) + len(cards) == 32
    with pytest.raises(RulesError):
        variant.new_match(3, decks=[new_deck(52)])
    state = variant.new_match(3, decks=[build_deck(["7c 8d 9h", "Kh Qh 9s", "Ks Qs 9d"], "7s", size=32)])
    assert names(state.hands[0]) == ["7c", "8d", "9h"] and state.observe(0)["stock"] == 22


# california-quick


def test_california_dealt_31_revealed_only_after_the_first_player_declines() -> None:
    deck = build_deck([LOW, MID_S, "Ah Kh Th"], "5c", "9d")
    state = match("california-quick", [deck])
    assert not ends(state)  # not revealed at the deal
    assert state.to_move == 1 and KNOCK in state.legal_actions()
    do(state, 1, "draw 9d")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [2]
    assert end["lives_lost"] == [1, 1, 0]


def test_california_several_dealt_31s_after_the_first_turn() -> None:
    deck = build_deck(["As Ks Qs", LOW, "Ah Kh Th"], "5c", "9d")
    state = match("california-quick", [deck])
    do(state, 1, "draw 9d")
    end = ends(state)[0]
    assert end["end"] == "blitz" and sorted(end["blitz"]) == [0, 2]
    assert end["lives_lost"] == [0, 1, 0]


def test_california_out_of_the_gate_dealt_31_counts_as_its_value() -> None:
    deck = build_deck([LOW, MID_S, "Ah Kh Th"], "5c", "9d")
    state = match("california-quick", [deck])
    do(state, 1, "knock")
    end = ends(state)[0]
    assert end["end"] == "showdown"
    assert end["values"]["2"] == 31
    assert end["lives_lost"] == [1, 0, 0]
    first_end = next(i for i, e in enumerate(state.log) if e.kind == "round_end")
    assert [e.public["action"] for e in state.log[:first_end] if e.kind == "action"] == ["knock"]


def test_california_explicit_knock_first_turn_no_beats_the_gate() -> None:
    """5b: an option set explicitly wins over the preset's special rule, so with
    knock_first_turn = no nobody, the first player included, knocks on a first turn."""
    deck = build_deck([LOW, MID_S, "Ah Kh Th"], "5c", "9d 8d 7d")
    state = match("california-quick", [deck], knock_first_turn=False)
    assert ends(state)[0]["end"] == "blitz"  # no gate: the dealt 31 is shown at the deal
    deck = build_deck([LOW, MID_S, MID_H], "5c", "9d 8d 7d 6d")
    state = match("california-quick", [deck], knock_first_turn=False)
    assert state.to_move == 1 and KNOCK not in state.legal_actions()
    do(state, 1, "draw 9d")
    assert KNOCK not in state.legal_actions()
    do(state, 2, "draw 8d")
    do(state, 0, "draw 7d")
    assert state.to_move == 1 and KNOCK in state.legal_actions()  # its second turn
    do(state, 1, "knock")
    assert not ends(state) and state.to_move == 2  # an ordinary knock: last turns follow


def test_california_only_the_first_player_knocks_out_of_the_gate() -> None:
    deck = build_deck([LOW, MID_H, MID_S], "5c", "9d 8d")
    state = match("california-quick", [deck])
    do(state, 1, "draw 9d")
    do(state, 2, "knock")
    assert not ends(state) and state.to_move == 0  # a normal knock: last turns follow
    do(state, 0, "draw 8d")
    do(state, 1, "stand")
    assert ends(state)[0]["lives_lost"] == [1, 0, 0]


def test_california_knocker_lowest_alone_loses_two() -> None:
    state = match("california-quick", [build_deck([MID_S, LOW, MID_H], "5s")])
    do(state, 1, "knock")
    assert ends(state)[0]["lives_lost"] == [0, 2, 0]


def test_california_knocker_tied_for_lowest_loses_two() -> None:
    state = match("california-quick", [build_deck([MID_C, MID_H, "Kd Qd 8s"], "5s")])
    do(state, 1, "knock")  # everyone 20
    assert ends(state)[0]["lives_lost"] == [1, 2, 1]


def test_california_blitz_after_a_knock_costs_the_knocker_two() -> None:
    deck = build_deck(["Ah Kh 2s", LOW, MID_S], "5c", "9d Th")
    state = match("california-quick", [deck])
    do(state, 1, "draw 9d")
    do(state, 2, "knock")
    do(state, 0, "draw 2s")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [0]
    assert end["lives_lost"] == [0, 1, 2]


# west-lansing


def test_west_lansing_trips_are_30_5_and_all_tie() -> None:
    variant = get_variant("west-lansing")
    twos = variant.evaluate(parse_cards("2c 2d 2h"))
    aces = variant.evaluate(parse_cards("Ac Ad Ah"))
    assert twos.value == aces.value == 30.5
    assert twos.low_key == aces.low_key
    assert twos.high_key == aces.high_key
    assert variant.evaluate(parse_cards("Kh Qh Jh")).value == 30


@pytest.mark.parametrize(
    ("hands", "west", "scat"),
    [
        # knocker (seat 1) tied with seat 2 for lowest: West Lansing: knocker 2, seat 2 nothing
        (["Kc Qc 5c", MID_H, MID_S], [0, 2, 0], [0, 0, 1]),
        # everyone tied
        ([MID_C, MID_H, MID_S], [0, 2, 0], [1, 0, 1]),
        # knocker lowest alone
        ([MID_C, LOW, MID_S], [0, 2, 0], [0, 2, 0]),
        # the knocker beats seat 0: the lowest loses one
        ([LOW, MID_H, "Ks Qs 2d"], [1, 0, 0], [1, 0, 0]),
        # the knocker beats seat 0 while seat 2 ties the knocker: only seat 0 loses
        (["2c 3d 5h", MID_H, MID_S], [1, 0, 0], [1, 0, 0]),
        # three 30.5 trips all tie: the knocker beats nobody
        (["2c 2d 2h", "Ac Ad Ah", "7c 7d 7h"], [0, 2, 0], [1, 0, 0]),
    ],
)
def test_west_lansing_knocker_must_beat_somebody(hands: list[str], west: list[int], scat: list[int]) -> None:
    for variant, expected in (("west-lansing", west), ("scat", scat)):
        state = match(variant, [build_deck(hands, "5s")])
        do(state, 1, "knock")
        do(state, 2, "stand")
        do(state, 0, "stand")
        assert ends(state)[0]["lives_lost"] == expected, variant


def test_west_lansing_trips_beat_30() -> None:
    state = match("west-lansing", [build_deck(["Kh Qh Jh", "2c 2d 2h", MID_S], "5s")])
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    assert ends(state)[0]["lives_lost"] == [0, 0, 1]


# no-elimination


def points_round(hands: list[str], knocker: int) -> list[int]:
    """Seats before ``knocker`` draw and discard the drawn card; it knocks; the rest stand."""
    state = match("no-elimination", [build_deck(hands, "5s")], len(hands))
    while state.to_move != knocker:
        state.apply(DRAW)
        state.apply(Action.of("discard", drawn_card(state)))
    state.apply(KNOCK)
    while not ends(state):
        state.apply(STAND)
    end = ends(state)[0]
    assert end["end"] == "showdown"
    assert "lives_lost" not in end
    return list(end["points_won"])


def test_no_elimination_ties_take_the_best_category_open() -> None:
    # 30, 27, 27, 27 gives one high and three middles; the knocker (seat 2) is a middle: 1.
    hands = ["Kc Qc 7c", "Kh Qh Th", "Ks Qs 7s", "Kd Qd 7d"]
    assert points_round(hands, knocker=2) == [2, 3, 1, 2]
    assert points_round(hands, knocker=1) == [2, 4, 2, 2]


@pytest.mark.parametrize(
    ("hands", "knocker", "points"),
    [
        ([LOW, "Kh Qh Th", MID_S], 1, [1, 4, 2]),  # knocker high: 4
        ([LOW, "Kh Qh Th", MID_S], 2, [1, 3, 1]),  # knocker middle: 1
        ([LOW, "Kh Qh Th", MID_S], 0, [0, 3, 2]),  # knocker low: 0
        ([LOW, MID_H, MID_S], 0, [0, 3, 3]),  # two tied highest
        ([MID_C, MID_H, MID_S], 1, [3, 4, 3]),  # everyone tied: all high
        (["Kh Qh Th", LOW, "2d 3h 4s"], 0, [4, 2, 2]),  # two tied at the bottom: middles
    ],
)
def test_no_elimination_points(hands: list[str], knocker: int, points: list[int]) -> None:
    assert points_round(hands, knocker) == points


def test_no_elimination_blitz_scores_six() -> None:
    state = match("no-elimination", [build_deck([LOW, MID_H, "Ah Kh Th".replace("h", "s")], "5d")])
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["points_won"] == [0, 0, 6]
    assert end["points"] == [0, 0, 6]


@pytest.mark.parametrize("players", [2, 3])
def test_no_elimination_match_is_two_rounds_per_player(players: int) -> None:
    state = get_variant("no-elimination").new_match(players, seed=31)
    assert "points" in state.observe(0) and "lives" not in state.observe(0)
    while not state.is_over:
        state.apply(KNOCK if KNOCK in state.legal_actions() else STAND)
    assert state.outcome is not None
    assert state.outcome.rounds == 2 * players
    assert state.outcome.reason == "rounds played"
    assert len(ends(state)) == 2 * players
    points = [sum(e["points_won"][s] for e in ends(state)) for s in range(players)]
    assert list(state.outcome.scores) == points
    assert state.outcome.placements == rank_placements(points)
    assert all(state.active)


# banking


def banking_deck(hands: list[str], widow: str, up: str = "5d", stock: str = "") -> list[Card]:
    return build_deck(hands, up, stock, widow=widow)


def test_banking_ante_and_widow_dealt_after_each_pass() -> None:
    deck = new_deck()
    state = match("banking", [deck])
    # order 1, 2, 0, then a widow card, three times
    assert names(state.hands[1]) == names([deck[0], deck[4], deck[8]])
    assert names(state.hands[2]) == names([deck[1], deck[5], deck[9]])
    assert names(state.hands[0]) == names([deck[2], deck[6], deck[10]])
    assert names(state.widow) == names([deck[3], deck[7], deck[11]])
    assert state.pile == [deck[12]]
    assert len(state.stock) == 52 - 13
    obs = state.observe(1)
    assert obs["widow"] == [None, None, None]
    assert obs["pot"] == 3 and obs["chips"] == (19, 19, 19)
    for seat in range(3):
        text = json.dumps(state.observe(seat)) + json.dumps(state.events_for(seat))
        assert not any(str(c) in text for c in state.widow)


def test_banking_exchanges_are_legal_turns() -> None:
    deck = banking_deck([LOW, "9h 5c 2s", MID_S], "Th 8c 7d")
    state = match("banking", [deck])
    legal = state.legal_actions()
    exchanges = [a for a in legal if a.kind == "exchange"]
    assert len(exchanges) == 9 + 9 + 1  # k = 1, 2, 3 cards of 3 for k of 3 widow positions
    assert {DRAW, TAKE, KNOCK} <= set(legal)
    assert Action.parse("exchange 5c for 1") in legal
    assert Action.parse("exchange 2s 5c 9h for 0 1 2") in legal
    assert_illegal(state, Action.parse("exchange 5c 2s for 1"))  # two cards for one position
    assert_illegal(state, Action.parse("exchange Ks for 1"))  # not its card


def test_banking_exchange_lands_face_up() -> None:
    deck = banking_deck([LOW, "9h 5c 2s", MID_S], "Th 8c 7d")
    state = match("banking", [deck])
    do(state, 1, "exchange 5c for 1")
    assert names(state.hands[1]) == ["9h", "2s", "8c"]
    event = state.log[-1]
    assert event.view(1)["received"] == ["8c"]
    for seat in (0, 2, None):
        assert "8c" not in json.dumps(event.view(seat))
        if seat is not None:
            assert "8c" not in json.dumps(state.observe(seat))
    assert event.public["taken_face_up"] == []
    assert state.observe(2)["widow"] == [None, "5c", None]
    assert state.to_move == 2
    # taking the face-up card is public
    do(state, 2, "exchange 9c for 1")
    assert state.log[-1].public["taken_face_up"] == ["5c"]
    assert names(state.hands[2]) == ["Ks", "Qs", "5c"]
    assert state.observe(0)["widow"] == [None, "9c", None]
    do(state, 0, "exchange 2c 3d 4h for 0 1 2")
    assert names(state.hands[0]) == ["Th", "9c", "7d"]
    assert state.observe(1)["widow"] == ["2c", "3d", "4h"]


def test_banking_highest_hand_by_cards_takes_the_pot() -> None:
    # seat 1: A K = 21, seat 2: A Q = 21, seat 0: 17.
    deck = banking_deck(["9c 8c 4d", "Ah Kh 2c", "As Qs 3d"], "Th 8h 7h")
    state = match("banking", [deck])
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    end = ends(state)[0]
    assert end["end"] == "showdown"
    assert end["chips_won"] == [0, 3, 0]
    assert end["chips"] == [19, 22, 19]
    assert [e.public for e in state.log if e.kind == "deal"][1]["pot"] == 3  # the next round's antes


def test_banking_higher_trips_take_the_pot() -> None:
    deck = banking_deck([LOW, "Kc Kd Kh", "Qc Qd Qh"], "Th 8h 7h")
    state = match("banking", [deck], trips="30")
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    assert ends(state)[0]["chips_won"] == [0, 3, 0]


def test_banking_trips_and_a_suit_30_split_the_pot() -> None:
    """5b: no tie-break orders trips against a suit hand of the same value, also when the
    highest hand is sought."""
    deck = banking_deck([LOW, "Kc Kd Kh", "Qs Js Ts"], "Th 8h 7h")
    state = match("banking", [deck], trips="30")
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    assert ends(state)[0]["chips_won"] == [0, 1, 1]


def test_banking_tied_winners_split_and_the_odd_chip_stays() -> None:
    deck = banking_deck(["9c 8c 4d", "Ah Kh 2c", "As Qs 3d"], "Th 8h 7h")
    state = match("banking", [deck], tiebreak="none")
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    end = ends(state)[0]
    assert end["chips_won"] == [0, 1, 1]
    assert end["chips"] == [19, 20, 20]
    # round 2: one chip carried plus three antes
    deal = [e.public for e in state.log if e.kind == "deal"][1]
    assert deal["pot"] == 4
    if not ends(state)[1:]:
        assert state.observe(0)["pot"] == 4


def test_banking_blitz_others_pay_one_more_and_the_blitzer_takes_the_pot() -> None:
    deck = banking_deck([LOW, MID_H, "As Ks Ts"], "Th 8h 7h")
    state = match("banking", [deck])
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["blitz"] == [2]
    assert end["chips_won"] == [-1, -1, 5]
    assert end["chips"] == [18, 18, 24]
    assert sum(end["chips"]) == 60


def test_banking_blitz_by_exchange() -> None:
    deck = banking_deck([LOW, "Ah Kh 2s", MID_S], "Th 8c 7d")
    state = match("banking", [deck])
    do(state, 1, "exchange 2s for 0")
    end = ends(state)[0]
    assert end["end"] == "blitz" and end["chips_won"] == [-1, 5, -1]


def test_banking_a_player_who_cannot_ante_is_out() -> None:
    deck = banking_deck(["9c 8c 4d", "Ah Kh 2c", "As Qs 3d"], "Th 8h 7h")
    state = match("banking", [deck], bankroll=1)
    do(state, 1, "knock")
    do(state, 2, "stand")
    do(state, 0, "stand")
    assert ends(state)[0]["chips"] == [0, 3, 0]
    assert state.is_over and state.outcome is not None
    assert state.outcome.placements == (2, 1, 2)
    assert state.outcome.scores == (0.0, 3.0, 0.0)


def test_banking_out_player_skipped_while_others_play_on() -> None:
    # 3 players, bankroll 2: seat 1 wins round 1; round 2: everyone has a chip to ante.
    deck = banking_deck(["9c 8c 4d", "Ah Kh 2c", "As Qs 3d"], "Th 8h 7h")
    deck2 = build_deck([LOW, MID_H, "Ac Kc 3s"], "5d", widow="Th 8h 7h", dealer=1)
    state = match("banking", [deck, deck2], bankroll=2)
    knock_round(state, loser=0)
    assert ends(state)[0]["chips"] == [1, 4, 1]
    # round 2 (dealer 1): seat 2 plays first and wins; seats 0 and 1 ante their last chip...
    knock_round(state, loser=0)
    assert ends(state)[1]["chips"] == [0, 3, 3]
    # round 3: seat 0 cannot ante and is out; the others play on
    assert not state.is_over
    start = [e.public for e in state.log if e.kind == "round_start"][2]
    assert start["active"] == [False, True, True]
    assert start["chips"] == [0, 3, 3]
    assert state.hands[0] == []


def test_banking_match_is_five_rounds_per_player() -> None:
    state = get_variant("banking").new_match(2, seed=8, options={"blitz_on_turn": True, "max_turns": 1})
    while not state.is_over:
        state.apply(DRAW)
        state.apply(state.legal_actions()[0])
    assert state.outcome is not None
    assert state.outcome.rounds == 10 and state.outcome.reason == "rounds played"
    assert state.outcome.scores == (10.0, 10.0)
    assert state.outcome.placements == (1, 1)


def test_banking_placements_by_chips() -> None:
    deck = banking_deck(["9c 8c 4d", "Ah Kh 2c", "As Qs 3d"], "Th 8h 7h")
    state = match("banking", [deck], rounds=1)
    knock_round(state, loser=0)
    assert state.outcome is not None
    assert state.outcome.scores == (19.0, 22.0, 19.0)
    assert state.outcome.placements == (2, 1, 2)


# ---------------------------------------------------------------------------------------
# options, players and decks


def test_unknown_option_is_named() -> None:
    with pytest.raises(OptionError, match="livez") as info:
        get_variant("scat").new_match(3, options={"livez": 4})
    assert "lives" in str(info.value)  # the accepted options are listed


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("lives", 0),
        ("lives", "many"),
        ("lives", True),
        ("lives", 2.5),
        ("trips", "31"),
        ("trips", 29),
        ("three_aces", "34"),
        ("free_ride", "maybe"),
        ("free_ride", 2),
        ("deck", 40),
        ("deck", "36"),
        ("stock_out", "shuffle"),
        ("knock_first_turn", "perhaps"),
        ("knocker_penalty", -1),
        ("max_rounds", 0),
        ("rounds", "x"),
        ("bankroll", 0),
        ("scoring", "money"),
        ("tiebreak", "colour"),
    ],
)
def test_bad_option_values_name_the_option(name: str, bad: Any) -> None:
    with pytest.raises(OptionError, match=repr(name)):
        get_variant("scat").new_match(3, options={name: bad})
    with pytest.raises(RulesError):
        get_variant("scat").resolve({name: bad})


def test_option_values_are_coerced_from_strings() -> None:
    options = get_variant("scat").resolve(
        {
            "free_ride": "no",
            "knock_first_turn": "yes",
            "blitz_on_turn": "on",
            "blitz_only_akt": "false",
            "trips": "30.5",
            "three_aces": "33",
            "deck": "32",
            "lives": "4",
            "stock_out": "Reshuffle",
            "max_rounds": " 12 ",
        }
    )
    assert options["free_ride"] is False and options["knock_first_turn"] is True
    assert options["blitz_on_turn"] is True and options["blitz_only_akt"] is False
    assert options["trips"] == "30.5" and options["three_aces"] == "33"
    assert options["deck"] == 32 and options["lives"] == 4
    assert options["stock_out"] == "reshuffle" and options["max_rounds"] == 12
    numeric = get_variant("scat").resolve({"trips": 30.5, "three_aces": 32, "deck": 32.0})
    assert numeric["trips"] == "30.5" and numeric["three_aces"] == "32" and numeric["deck"] == 32
    assert value("2c 2d 2h", trips="30.5") == 30.5
    state = get_variant("scat").new_match(3, options={"lives": "4", "free_ride": "no"})
    assert next(e.public for e in state.log if e.kind == "round_start")["lives"] == [4, 4, 4]


def test_option_pairs() -> None:
    assert parse_option_pairs(["lives=4", "trips = 30", "free_ride=no"]) == {
        "lives": "4",
        "trips": "30",
        "free_ride": "no",
    }
    with pytest.raises(OptionError, match="lives"):
        parse_option_pairs(["lives"])
    with pytest.raises(OptionError):
        parse_option_pairs(["=4"])


def test_overrides_beat_the_preset() -> None:
    assert get_variant("dollar-bill").resolve({"lives": 2})["lives"] == 2
    assert get_variant("west-lansing").resolve({"free_ride": "yes"})["free_ride"] is True


@pytest.mark.parametrize("variant", PRESETS)
@pytest.mark.parametrize("players", [0, 1, 10, 12])
def test_player_counts_outside_2_to_9_refused(variant: str, players: int) -> None:
    with pytest.raises(RulesError, match=str(players)):
        get_variant(variant).new_match(players, seed=1)


@pytest.mark.parametrize("variant", PRESETS)
@pytest.mark.parametrize("players", [2, 9])
def test_player_counts_2_and_9_accepted(variant: str, players: int) -> None:
    state = get_variant(variant).new_match(players, seed=1)
    assert state.players == players
    assert state.round >= 1


def test_dealer_out_of_range_refused() -> None:
    with pytest.raises(RulesError):
        get_variant("scat").new_match(3, dealer=3)
    with pytest.raises(RulesError):
        get_variant("scat").new_match(3, dealer=-1)


@pytest.mark.parametrize(
    "deck",
    [
        new_deck()[:-1],  # a card missing
        new_deck() + [new_deck()[0]],  # a card repeated
        new_deck()[:-1] + [new_deck()[0]],  # one card twice, one missing
        new_deck(32),  # the wrong deck
        [],
    ],
    ids=["missing", "extra", "repeated", "short-deck", "empty"],
)
def test_explicit_deck_must_be_a_permutation(deck: list[Card]) -> None:
    with pytest.raises(RulesError, match="deck"):
        get_variant("scat").new_match(3, decks=[deck])


def test_explicit_decks_then_seeded_rounds() -> None:
    deck = build_deck([LOW, MID_H, MID_S], "5s")
    a = match("scat", [deck], seed=5)
    b = match("scat", [deck], seed=5)
    for state in (a, b):
        knock_round(state, loser=0)
    assert [e.full() for e in a.log] == [e.full() for e in b.log]
    assert a.round >= 2


def test_action_text_forms() -> None:
    assert str(Action.of("discard", parse_card("6h"))) == "discard 6h"
    exchange = Action.parse("exchange 5c 9d for 0 2")
    assert exchange.kind == "exchange" and names(list(exchange.cards)) == ["5c", "9d"] and exchange.arg == "for 0 2"
    assert str(exchange) == "exchange 5c 9d for 0 2"
    assert Action.parse("discard 10h") is Action.of("discard", parse_card("Th"))
    with pytest.raises(RulesError):
        Action.parse("   ")


def test_unknown_action_kind_is_illegal() -> None:
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s")])
    assert_illegal(state, Action.of("pass"))
    assert_illegal(state, Action.of("swap_one", parse_card("Kh"), parse_card("5s")))
    assert_illegal(state, Action.of("exchange", parse_card("Kh"), arg="for 0"))  # no widow in scat


def test_replay_from_actions() -> None:
    state = get_variant("scat").new_match(4, seed=99)
    for _ in range(30):
        if state.is_over:
            break
        state.apply(state.legal_actions()[-1])
    replay = get_variant("scat").new_match(4, seed=99)
    for seat, action in state.actions():
        assert replay.to_move == seat
        replay.apply(action)
    assert [e.full() for e in replay.log] == [e.full() for e in state.log]


# ---------------------------------------------------------------------------------------
# section 2: hand values and comparisons


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("Ah Kh Th", 31),
        ("9s 5s Jd", 14),
        ("7h Qd Ad", 21),  # source text 003 prints 17: a slip
        ("8s 8c Jc", 18),
        ("2c 9d Kh", 10),  # three suits: the highest card
        ("Ac 2d 3h", 11),
        ("Ac Ad Ah", 11),  # trips = none: a suit sum
        ("Tc Jc Qc", 30),
        ("10h 9h 2s", 19),
    ],
)
def test_rules_section_2_examples(hand: str, expected: float) -> None:
    result = get_variant("scat").evaluate(parse_cards(hand))
    assert result.value == expected
    assert (result.special != 0) == (expected == 31)


def test_evaluate_refuses_malformed_hands() -> None:
    scat = get_variant("scat")
    with pytest.raises(RulesError):
        scat.evaluate(parse_cards("Ah Kh"))
    with pytest.raises(RulesError):
        scat.evaluate(parse_cards("Ah Kh Th 9h"))
    with pytest.raises(RulesError):
        scat.evaluate([parse_card("Ah"), parse_card("Ah"), parse_card("Kh")])


def test_cards_tiebreak_for_the_highest_hand() -> None:
    scat = get_variant("scat")

    def high(hand: str) -> tuple[Any, ...]:
        return scat.evaluate(parse_cards(hand)).high_key

    assert high("Ah Kh 2c") > high("As Qs 3d")  # 21: A K beats A Q
    assert high("Ah 9h Kc") > high("Kh Qh 2c")  # 20: A 9 beats K Q (highest card first)
    assert high("Kh Qh 2c") > high("Ks Js 3d")  # 20: K Q beats K J
    assert high("Ac 2d 3h") > high("9c 2c 5d")  # 11: an ace alone beats 9 2
    assert high("Kh Qh 2c") == high("Ks Qs 3d")  # identical ranks: still equal
    # losing is decided on value alone
    assert scat.evaluate(parse_cards("Ah 9h Kc")).low_key == scat.evaluate(parse_cards("Kh Qh 2c")).low_key


def test_suit_tiebreak_option_orders_suits() -> None:
    scat = get_variant("scat")
    options = {"tiebreak": "suit"}

    def high(hand: str) -> tuple[Any, ...]:
        return scat.evaluate(parse_cards(hand), options).high_key

    # clubs > spades > hearts > diamonds
    assert high("Kc Qc 2d") > high("Ks Qs 2h") > high("Kh Qh 2s") > high("Kd Qd 2c")


# ---------------------------------------------------------------------------------------
# option combinations and the public record


def test_california_blitz_on_turn_only_the_first_player_knocks_out_of_the_gate() -> None:
    """With blitz_on_turn, a later player's knock is still a normal knock (docs/RULES.md 3.2, 3.7)."""
    deck = build_deck([LOW, MID_H, MID_S], "5c", "9d 8d")
    state = match("california-quick", [deck], blitz_on_turn=True)
    do(state, 1, "draw 9d")  # the first player declines to knock out of the gate
    do(state, 2, "knock")
    assert not ends(state), "a knock after the first turn must leave the others one more turn"
    assert state.to_move == 0
    do(state, 0, "draw 8d")
    do(state, 1, "stand")
    assert ends(state)[0]["lives_lost"] == [1, 0, 0]


def test_california_blitz_on_turn_first_player_still_knocks_out_of_the_gate() -> None:
    deck = build_deck([LOW, MID_H, MID_S], "5c", "9d 8d")
    state = match("california-quick", [deck], blitz_on_turn=True)
    do(state, 1, "knock")
    end = ends(state)[0]
    assert end["end"] == "showdown" and end["lives_lost"] == [1, 0, 0]


def test_discard_is_public_even_for_an_equal_action_object() -> None:
    """docs/RULES.md 1: every seat sees which card was discarded face up.  An action equal to a
    legal one (built with the dataclass constructor, not Action.of) is accepted, so it must be
    recorded the same way and replay."""
    state = match("scat", [build_deck([LOW, MID_H, MID_S], "5s", "9d")])
    state.apply(Action("draw"))
    state.apply(Action("discard", (parse_card("9d"),)))
    event = [e for e in state.log if e.kind == "action"][-1]
    assert event.view(2)["action"] == "discard 9d"
    assert state.actions() == [(1, DRAW), (1, Action.of("discard", parse_card("9d")))]


def test_banking_busted_players_are_placed_by_chips() -> None:
    """docs/RULES.md 3.7 banking: placements by chips.  Two players who both end with no chips
    (out in different rounds) hold the same number of chips and share a placement."""
    # Round 1 (bankroll 1, everyone antes its only chip): seats 1 and 2 split the pot of 3,
    # one chip stays.  Round 2: seat 0 cannot ante; seat 1 beats seat 2 and takes the pot.
    deck1 = banking_deck(["9c 8c 4d", "Ah Kh 2c", "As Ks 3d"], "Th 8h 7h")
    deck2 = build_deck([None, "Ah Kh 2c", "2d 3h 4s"], "5d", widow="Th 8h 7h", dealer=1)
    state = match("banking", [deck1, deck2], bankroll=1, tiebreak="none")
    knock_round(state, loser=0)
    assert ends(state)[0]["chips"] == [0, 1, 1]
    start = [e.public for e in state.log if e.kind == "round_start"][1]
    assert start["active"] == [False, True, True]
    knock_round(state, loser=2)
    assert ends(state)[1]["chips"] == [0, 3, 0]
    assert state.is_over and state.outcome is not None
    assert state.outcome.scores == (0.0, 3.0, 0.0)
    assert state.outcome.placements == (2, 1, 2)


def test_california_another_seat_forfeits_while_the_first_player_holds_four_cards() -> None:
    """The gate belongs to the first player: a forfeit elsewhere during its first turn
    leaves it open (and the first player's four cards untouched), then play goes on."""
    deck = build_deck([LOW, MID_S, MID_H], "5c", "9d 8d 7d")
    state = match("california-quick", [deck])
    state.apply(Action.of("draw"))  # seat 1 holds four cards, deciding its discard
    state.forfeit(2)
    assert state.to_move == 1 and len(state.hands[1]) == 4
    state.apply(Action.of("discard", parse_card("9d")))
    assert not ends(state) and state.to_move == 0
