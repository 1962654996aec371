"""What the person reads: the narration of every family's events, and the screens built
from real observations of every variant (no terminal needed)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.human.narrate import narrate
from arena.human.render import decision_text, ending_text
from arena.human.table import Table, seat_names
from arena.human.view import decision_view, ending_view
from arena.rules import get_variant, variants


def table(variant: str, players: int = 4, seat: int = 0, **options: Any) -> Table:
    return Table.seated(variant, get_variant(variant).resolve(options), players, seat)


def action(seat: int, text: str, **fields: Any) -> dict[str, Any]:
    return {"event": "action", "seat": seat, "action": text, **fields}


def test_seats_are_named_as_a_person_at_the_table_names_them() -> None:
    assert seat_names(2, 0) == ("You", "North")
    assert seat_names(3, 2) == ("West", "East", "You")
    assert seat_names(4, 0) == ("You", "West", "North", "East")
    assert seat_names(6, 1)[1:3] == ("You", "Seat 2")


def test_draw_and_discard() -> None:
    scat = table("scat")
    assert narrate(scat, [
        {"event": "round_start", "round": 2, "dealer": 3, "lives": [3, 3, 3, 3], "active": [True] * 4},
        {"event": "deal", "upcard": "Ad", "stock": 39, "hand": ["Kd", "Qc", "3h"]},
        action(1, "draw"), action(1, "discard 7h"),
        action(2, "take", card="7h"), action(2, "discard 3c"),
        action(3, "knock"),
        action(0, "draw", card="5d"), action(0, "discard 5d"),
        action(1, "stand"),
    ]) == [
        "Round 2: East deals.",
        "You were dealt Kd Qc 3h. The up card is Ad.",
        "West drew from the stock and discarded 7h.",
        "North took 7h from the discard pile and discarded 3c.",
        "East knocked.",
        "You drew 5d from the stock and discarded 5d.",
        "West stood, keeping the hand.",
    ]
    assert narrate(scat, [{"event": "round_end", "end": "showdown", "lives_lost": [0, 1, 0, 2], "cancelled": False,
                           "knocker": 3, "blitz": [], "hands": {"0": ["Ah", "Kh", "2c"], "1": ["9s", "8s", "2d"],
                                                               "3": ["4c", "5d", "6h"]},
                           "values": {"0": 21, "1": 17, "3": 6}, "eliminated": [3], "lives": [3, 2, 3, -1]}]) == [
        "Showdown (East knocked):",
        "  You      Ah Kh 2c = 21 (hearts)",
        "  West     9s 8s 2d = 17 (spades)",
        "  East     4c 5d 6h = 6 (high card)",
        "West loses a life.",
        "East loses 2 lives.",
        "East is out of the match.",
    ]
    assert narrate(table("scat", 2), [{"event": "round_end", "end": "blitz", "lives_lost": [1, 0], "cancelled": False,
                                       "knocker": None, "blitz": [1], "hands": {"1": ["Ah", "Kh", "Th"]},
                                       "values": {"1": 31}, "eliminated": [], "lives": [2, 3]}])[:2] == [
        "Blitz! North ends the round at once:", "  North    Ah Kh Th = 31 (blitz)"]


def test_a_tie_for_the_lowest_says_the_rule_that_split_it() -> None:
    """A 24-24 tie said only "West loses a life"."""
    tied = {"event": "round_end", "end": "showdown", "lives_lost": [0, 1], "cancelled": False, "knocker": 0,
            "blitz": [], "hands": {"0": ["Ah", "Kh", "3h"], "1": ["Jc", "Qc", "4c"]}, "values": {"0": 24, "1": 24},
            "eliminated": [], "lives": [3, 2]}
    assert narrate(table("scat", 2, seat=1), [tied])[3:] == [
        "North knocked and is tied for the lowest (24): a knocker tied for the lowest is safe.",
        "You lose a life.",
    ]
    swum = {**tied, "knocker": None, "lives_lost": [1, 0]}
    assert "the suit that scores it splits the tie" in narrate(table("schwimmen", 2), [swum])[3]
    # Schwimmen's knocker is not safe when tied (knocker_tie = loses): it escaped by its suit
    knocked = {**tied, "knocker": 1, "lives_lost": [1, 0]}
    assert "the suit that scores it splits the tie" in narrate(table("schwimmen", 2), [knocked])[3]
    bus = {**tied, "knocker": None, "lives_lost": [0, 0]}  # stop-the-bus: ties for the lowest escape
    assert narrate(table("stop-the-bus", 2), [bus])[3] == (
        "You and North tied for the lowest (24): players tied for the lowest all escape.")
    both = {**tied, "knocker": 1, "lives_lost": [1, 1]}  # nobody tied was spared: nothing to explain
    assert narrate(table("scat", 2), [both])[3:] == ["You lose a life.", "North loses a life."]


def test_banking_exchanges() -> None:
    banking = table("banking", 2)
    assert narrate(banking, [
        action(1, "exchange Ad for 1", taken_face_up=[]),
        action(0, "exchange 3s 9c for 0 1", taken_face_up=["Ad"], received=["Jh", "Ad"]),
    ]) == ["North gave Ad for widow card 1.",
           "You gave 3s 9c for widow cards 0 and 1, taking Ad face up, and got Jh Ad."]


def test_widow_and_switch() -> None:
    schwimmen = table("schwimmen", 3)
    assert narrate(schwimmen, [
        action(0, "keep"), {"event": "turn_up", "cards": ["Jc", "Jh", "Qc"]},
        action(1, "swap_all", gave=["9h", "Qh", "Tc"]), action(2, "swap_one Qs Jc"),
        {"event": "new_widow", "cards": ["7s", "8s", "9s"], "stock": 20},
        {"event": "round_end", "end": "feuer", "lives_lost": [1, 0, 0], "cancelled": False, "knocker": None,
         "specials": [2], "hands": {"2": ["Ah", "Ad", "Ac"]}, "values": {"2": 32}, "eliminated": [],
         "lives": [1, 2, 2]},
    ]) == [
        "You kept the hand.",
        "The widow is turned up: Jc Jh Qc.",
        "West swapped the whole hand for the widow, laying down 9h Qh Tc.",
        "East swapped Qs for Jc.",
        "Everyone passed: a new widow is turned up: 7s 8s 9s.",
        "Feuer: three aces! East ends the round at once:",
        "  East     Ah Ad Ac = 32 (three aces (Feuer))",
        "You lose a life.",
    ]
    switch = table("switch", 2)
    assert narrate(switch, [
        action(1, "swap_hand"), {"event": "turn_up", "cards": ["Kd", "5s", "7s"]},
        action(0, "renew 1 down", stock=30), action(0, "swap_blind Kh 1 2", received=["Qs"]),
        action(1, "renew 0 up", stock=27, cards=["4c", "Js", "Kh"]),
        action(1, "swap_all 1 knock", gave=["2c", "3c", "4d"]),
    ]) == [
        "North swapped the hand for the other hand, unseen.",
        "Table hand 0 is turned up: Kd 5s 7s.",
        "You renewed table hand 1 face down and swapped Kh for the face-down card 2 of table hand 1, which was Qs.",
        "North renewed table hand 0 face up: 4c Js Kh and swapped the whole hand for table hand 1, laying down "
        "2c 3c 4d and knocked.",
    ]
    assert narrate(table("stop-the-bus", 2), [{"event": "round_end", "end": "showdown", "lives_lost": [1, 0],
                                               "cancelled": False, "knocker": 0, "specials": [],
                                               "hands": {"0": ["Qs", "Ks", "As"], "1": ["2c", "2d", "9h"]},
                                               "values": {"0": 5.14, "1": 2.09}, "eliminated": [], "lives": [0, 1]}]) \
        == ["Showdown (you knocked):", "  You      Qs Ks As = running flush Q-K-A",
            "  North    2c 2d 9h = pair of twos", "You lose a life."]


def test_fifty_one_and_its_chinese_cousin() -> None:
    fifty_one = table("fifty-one", 2)
    assert narrate(fifty_one, [
        action(1, "swap_one Kh 2d stop"), action(0, "clear", table=["Ts", "9d", "8h", "3h", "3c"]),
        action(0, "swap_one Th Ts"),
        {"event": "round_end", "end": "showdown", "stopper": 1, "winners": [0],
         "hands": {"0": ["Tc", "3d", "6c", "5c", "Ts"], "1": ["Jd", "8c", "7d", "Ks", "2d"]},
         "values": {"0": 8, "1": 1}, "hands_won": [1, 0], "totals": [8, 1]},
    ]) == [
        "North swapped Kh for 2d and stopped.",
        "You cleared the table; the new table is Ts 9d 8h 3h 3c and swapped Th for Ts.",
        "Showdown (North stopped):",
        "  You      Tc 3d 6c 5c Ts = 8 (clubs 21 - 13)",
        "  North    Jd 8c 7d Ks 2d = 1 (diamonds 19 - 18)",
        "You win the hand.",
    ]
    chinese = table("fifty-one-chinese", 3)
    assert narrate(chinese, [
        {"event": "deal", "first": 2, "stock": 41, "hand": ["2c", "Qs", "8s", "9d", "2s"]},
        action(2, "discard 6s"), action(1, "trade 2s 8c"), action(0, "draw", card="Jc", out_of_play=5),
        action(1, "knock"), action(2, "challenge"), action(0, "pass"),
        {"event": "round_end", "end": "knock", "caller": 1, "challengers": [2, 0], "hands": {}, "values": {},
         "points_won": [0, 33, 0], "points": [0, 33, 0]},
    ]) == [
        "You were dealt 2c Qs 8s 9d 2s. East draws first.",
        "East laid 6s face up.",
        "West traded 2s 8c for the face-up cards.",
        "You put the five face-up cards out of play and drew Jc from the stock.",
        "West knocked.",
        "East challenged.",
        "You passed.",
        "Showdown (West knocked; challenged by East and you):",
        "West wins 33 points.",
    ]


def test_empat_satu() -> None:
    empat = table("empat-satu", 2)
    assert narrate(empat, [
        action(1, "stop"),
        {"event": "round_end", "end": "stop", "winners": [1], "losers": [0],
         "hands": {"0": ["2c", "Kd", "6s", "4s"], "1": ["Ad", "3d", "Qd", "2d"]}, "values": {"0": -2, "1": 26},
         "wins": [0, 1], "losses": [1, 0], "totals": [-2, 26]},
    ]) == ["North stopped.", "Showdown:", "  You      2c Kd 6s 4s = -2 (diamonds 10 - 12)",
           "  North    Ad 3d Qd 2d = 26 (diamonds 26)", "North wins the hand; you lose."]


def test_skat() -> None:
    skat = table("skat", 3, seat=1)
    assert narrate(skat, [
        {"event": "round_start", "round": 1, "dealer": 0, "forehand": 1, "middlehand": 2, "rearhand": 0,
         "scores": [0, 0, 0], "active": [True] * 3},
        action(2, "bid 18"), action(1, "hold"), action(2, "pass"), action(0, "bid 20"), action(1, "pass"),
        action(0, "pickup"), action(0, "discard"), action(0, "declare grand"),
        action(1, "play Jc"), action(2, "play Js"), action(0, "play Ah"),
        {"event": "trick", "seat": 1, "cards": ["Jc", "Js", "Ah"], "points": 15},
        action(1, "kontra"),
        {"event": "round_end", "end": "played", "declarer": 0, "game": "grand", "announced": [], "bid": 20,
         "card_points": [70, 30, 20], "tricks_won": [6, 2, 2], "won": True, "value": 48, "overbid": False,
         "matadors": "with 1", "multiplier": 2, "schneider": False, "schwarz": False, "kontra": 0,
         "skat": ["7c", "8c"], "changes": [48, 0, 0], "scores": [48, 0, 0]},
    ]) == [
        "Round 1: East deals. You are forehand.",
        "West bid 18.", "You held.", "West passed.", "East bid 20.", "You passed.",
        "East picked up the skat, put two cards back in the skat and declared grand.",
        "You played Jc.", "West played Js.", "East played Ah.",
        "You won the trick (Jc Js Ah, 15 points).",
        "You said kontra.",
        "East played grand (bid 20) and won, with 70 card points; game value 48.",
        "The skat was 7c 8c.",
        "East scores +48 (the game's value, 48).",
    ]
    declarer = table("skat", 3, seat=0)
    assert narrate(declarer, [action(0, "pickup", skat=["9d", "Jd"]), action(0, "discard 8h 9d"),
                              action(0, "declare null ouvert", ouvert_hand=["7c", "8c"])]) == [
        "You picked up the skat: 9d Jd, put 8h 9d back in the skat and declared null ouvert, laying the hand open: "
        "7c 8c."]
    assert narrate(declarer, [{"event": "round_end", "end": "thrown_in", "changes": [0, 0, 0], "scores": [0, 0, 0]},
                              {"event": "deal"}]) == ["Everyone passed: the deal is thrown in.",
                                                      "You sit out this deal."]


def test_the_declarer_s_score_says_how_it_follows_from_the_game_s_value() -> None:
    """"You score -54" did not say that a lost game counts double."""
    lost = {"event": "round_end", "end": "played", "declarer": 0, "game": "diamonds", "announced": [], "bid": 27,
            "card_points": [50, 40, 30], "tricks_won": [4, 3, 3], "won": False, "value": 27, "overbid": False,
            "kontra": 0, "skat": ["7c", "8c"], "changes": [-54, 0, 0], "scores": [-54, 0, 0]}
    assert narrate(table("skat", 3, seat=0), [lost])[-1] == (
        "You score -54 (the game's value, 27, doubled: a lost game counts double when the skat was picked up).")
    hand = {**lost, "announced": ["hand"], "changes": [-27, 0, 0], "kontra": 1}
    assert narrate(table("skat", 3, seat=1), [hand])[-1] == (
        "East scores -27 (the game's value, 27, doubled by kontra, once: a lost hand game counts single).")


def test_the_declare_screen_shows_each_game_s_value_against_the_bid() -> None:
    from arena.human.view import _game_values

    picked = {"phase": "declare", "bid": 30, "hand": ["Jc", "Js", "Ah", "Th", "Kh", "Qh", "9h", "8d", "7s", "7c"],
              "skat": ["7h", "8h"], "picked_up": ["7h", "8h"]}
    assert _game_values(picked) == ("clubs 36, spades 33, hearts 30, diamonds 27, grand 72, null 23 (under your bid "
                                    "of 30: diamonds, null; schneider and schwarz add a level each)")
    hand = {**picked, "skat": None, "picked_up": None, "bid": 18}
    assert _game_values(hand).startswith("clubs 48, spades 44, hearts 40, diamonds 36, grand 96, null 35 (hand counted")


def test_leaving_and_ending() -> None:
    scat = table("scat", 3)
    assert narrate(scat, [{"event": "forfeit", "seat": 2},
                          {"event": "match_end", "placements": [1, 1, 3], "scores": [1.0, 1.0, 0.0],
                           "reason": "last player in", "rounds": 4}]) == [
        "East left the match: its bot failed.", "The match is over: last player in, after 4 rounds."]
    assert narrate(scat, [{"event": "match_end", "reason": "abandoned: alice left the match (Ctrl+C)",
                           "rounds": 2}]) == ["The match was abandoned in round 2: alice left the match (Ctrl+C)."]


SHORT = {"thirty-one": {"lives": 1}, "widow": {"lives": 1}, "fifty-one": {"rounds": 1},
         "fifty-one-chinese": {"target": 60}, "empat-satu": {"rounds": 1}, "skat": {"rounds": 3}}


@pytest.mark.parametrize("variant", sorted(variants()))
def test_every_variant_reads_plainly_from_every_seat(variant: str) -> None:
    """Random matches in the rules engine: every event of every seat narrated, every decision
    rendered as its seat's screen, with nothing the narration does not know how to tell."""
    game = get_variant(variant)
    options = SHORT[game.family.name] if variant != "banking" else {"rounds": 1}
    players = 3
    for seed in range(2):
        state = game.new_match(players, seed=seed, options=options)
        rng = random.Random(seed)
        tables = [Table.seated(variant, game.resolve(options), players, s, ["alice", "bot-a", "bot-b"])
                  for s in range(players)]
        told = [0] * players
        moves = 0
        while not state.is_over:
            seat = state.to_move
            assert seat is not None
            legal = [a.text for a in state.legal_actions()]
            news = narrate(tables[seat], state.events_for(seat, told[seat]))
            told[seat] = len(state.log)
            moves += 1
            screen = "\n".join(decision_text(decision_view(tables[seat], state.observe(seat), legal, news, moves)))
            assert "None" not in screen and "{" not in screen, screen
            assert f"{len(legal)}  {legal[-1]}" in screen
            state.apply(rng.choice(state.legal_actions()))
        for seat in range(players):
            lines = narrate(tables[seat], state.events_for(seat))
            assert lines and not [line for line in lines if "{" in line or "None" in line], lines
            assert lines[-1].startswith("The match is over")
            ending = ending_view(tables[seat], state.outcome.to_dict() if state.outcome else {}, lines[-3:])
            assert "Final placements:" in ending_text(ending)
