"""Property tests: random play of every preset under random seeds and option overrides.

At every step of a randomly played match the tests check that cards are conserved, that
no observation or event view leaks another seat's hidden cards, that every listed legal
action applies and random illegal ones are refused without a trace, that chips/lives
behave, and at the end that the match stopped within its round cap with valid
placements and replays to an identical log.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import (
    Steps,
    cards_in,
    check_decision,
    check_event_views,
    check_finished,
    check_replay,
    names,
    observations,
    out_rounds,
    presets,
    property_settings,
    stock_cards,
)

from arena.cards import CARDS, new_deck
from arena.rules import Action, get_variant
from arena.rules.game import rank_placements
from arena.rules.hands import special_values, thirty_one_points, thirty_one_value

PRESETS = presets("thirty-one")
SETTINGS = property_settings(max_examples=14)


overrides = st.fixed_dictionaries(
    {},
    optional={
        "trips": st.sampled_from(["none", "30", "30.5"]),
        "three_aces": st.sampled_from(["none", "32", "33"]),
        "stock_out": st.sampled_from(["draw", "reshuffle"]),
        "knock_first_turn": st.booleans(),
        "blitz_on_turn": st.booleans(),
        "blitz_only_akt": st.booleans(),
        "free_ride": st.booleans(),
        "lives": st.integers(1, 4),
        "deck": st.sampled_from([52, 32]),
        "knocker_penalty": st.integers(0, 3),
        "knocker_blitz_penalty": st.integers(0, 2),
        "knocker_tie": st.sampled_from(["safe", "loses"]),
        "out_of_the_gate": st.booleans(),
        "tiebreak": st.sampled_from(["cards", "suit", "none"]),
    },
)


def check_conservation(state: Any, deck: list[Any]) -> None:
    hands = [c for h in state.hands for c in h]
    held = hands + list(state.pile) + list(state.widow)
    assert len(held) == len(set(held)), "a card is in two places"
    assert len(held) + len(state.stock) == len(deck)
    remaining = stock_cards(state)
    assert Counter(held + remaining) == Counter(deck)
    for seat in range(state.players):
        if state.active[seat] and not state.is_over:
            assert len(state.hands[seat]) in (3, 4)
        if not state.active[seat]:
            assert state.hands[seat] == []
    assert len(state.widow) in (0, 3)


def check_observations(state: Any) -> None:
    top = {str(state.pile[-1])} if state.pile else set()
    face_up = {str(c) for c, up in zip(state.widow, state.widow_up) if up}
    face_down = {str(c) for c, up in zip(state.widow, state.widow_up) if not up}
    for seat, _, seen in observations(state):
        own = names(state.hands[seat])
        assert seen <= own | top | face_up, f"seat {seat} sees {seen - own - top - face_up}"
        assert not seen & face_down


def check_events(state: Any, events: list[Any], before: dict[str, Any]) -> None:
    """Each new event: seats see the public part plus only their own private part, and the
    public part never names a hidden card."""
    for e in events:
        check_event_views(e, state.players)
        pub_cards = cards_in(e.view(None))
        if e.kind == "deal":
            assert pub_cards == {e.public["upcard"]}
            for part in (e.private or {}).values():
                assert len(part["hand"]) == 3
                assert e.public["upcard"] not in part["hand"]
        elif e.kind == "action":
            text = e.public["action"]
            kind = text.split()[0]
            acted = cards_in(text)
            if kind == "draw":
                assert not pub_cards, "a draw is public, the card is not"
                # a draw never ends a turn: the drawn card is in the drawer's hand now
                assert e.private is not None
                drawn = cards_in(dict(e.private[e.seat]))
                assert len(drawn) == 1 and drawn <= names(state.hands[e.seat])
            elif kind == "take":
                assert pub_cards == {before["top"]}
            elif kind in ("knock", "stand"):
                assert not pub_cards
            elif kind == "discard":
                assert pub_cards == acted and acted <= before["hand"]
            elif kind == "exchange":
                assert acted <= before["hand"]
                assert set(e.public["taken_face_up"]) <= before["face_up"]
                assert pub_cards <= acted | before["face_up"]
                received = set(e.private[e.seat]["received"])
                assert received <= before["widow"]
            else:  # pragma: no cover - an unknown action kind was logged
                pytest.fail(f"unexpected action {text}")
        elif e.kind == "round_end":
            shown = e.public["hands"]
            if e.public["end"] == "showdown":
                assert shown, "a showdown shows the hands"
            elif e.public["end"] == "blitz":
                assert sorted(int(s) for s in shown) == sorted(e.public["blitz"])
            else:
                assert not shown
            rest = {k: v for k, v in e.public.items() if k != "hands"}
            assert not cards_in(rest)
        else:
            assert e.kind in ("round_start", "reshuffle", "match_end"), e.kind
            assert not pub_cards


def random_illegal(state: Any, rng: random.Random) -> list[Action]:
    legal = set(state.legal_actions())
    pool = [Action.of(k) for k in ("draw", "take", "knock", "stand", "pass", "keep")]
    deck = new_deck()
    for _ in range(4):
        pool.append(Action.of("discard", rng.choice(deck)))
        pool.append(Action.of("exchange", rng.choice(deck), arg=f"for {rng.randrange(4)}"))
    hand = list(state.hands[state.to_move])
    if len(hand) >= 2:
        pool.append(Action.of("exchange", *sorted(hand[:2]), arg="for 0"))  # two cards for one
    if state.pile:
        pool.append(Action.of("discard", state.pile[-1]))
    return [a for a in pool if a not in legal]


def choose(state: Any, rng: random.Random, knock_p: float) -> Action:
    legal = state.legal_actions()
    knocks = [a for a in legal if a.kind == "knock"]
    others = [a for a in legal if a.kind != "knock"]
    if knocks and (not others or rng.random() < knock_p):
        return knocks[0]
    return rng.choice(others)


def expected_placements(state: Any) -> tuple[int, ...]:
    """Placements recomputed from the log (docs/RULES.md 1 and 3.7): points and chips games by
    points or chips; lives games by lives for seats still in, then by the round a seat went
    out (later is better, the same round shares)."""
    if state.options["scoring"] in ("points", "chips"):
        return rank_placements(list(state.standing))
    out_round = out_rounds(state)
    keys = [(1, state.standing[s]) if state.active[s] else (0, out_round[s]) for s in range(state.players)]
    return rank_placements(keys)


@pytest.mark.parametrize("variant_name", PRESETS)
@SETTINGS
@given(
    seed=st.integers(0, 2**64 - 1),
    players=st.integers(2, 9),
    extra=overrides,
    rng_seed=st.integers(0, 2**32 - 1),
    max_rounds=st.integers(1, 6),
    rounds=st.integers(1, 4),
    knock_p=st.sampled_from([0.0, 0.05, 0.3, 0.9]),
)
def test_random_play_invariants(
    variant_name: str,
    seed: int,
    players: int,
    extra: dict[str, Any],
    rng_seed: int,
    max_rounds: int,
    rounds: int,
    knock_p: float,
) -> None:
    variant = get_variant(variant_name)
    options = {**extra, "max_rounds": max_rounds, "max_turns": 80}
    if variant_name in ("banking", "no-elimination"):
        options["rounds"] = rounds
    state: Any = variant.new_match(players, seed=seed, options=options)
    resolved = variant.resolve(options)
    deck = new_deck(resolved["deck"])
    scoring = resolved["scoring"]
    bankroll = resolved["bankroll"]
    rng = random.Random(rng_seed)
    played: Steps = []
    check_events(state, state.log, {"top": None, "hand": set(), "face_up": set(), "widow": set()})
    seen_events = len(state.log)
    while not state.is_over:
        assert len(played) < 5000, "the match does not end"
        seat = state.to_move
        check_conservation(state, deck)
        check_observations(state)
        if scoring == "chips":
            assert sum(state.standing) + state.pot == players * bankroll
        elif scoring == "lives":
            floor = 0 if resolved["free_ride"] else 1
            assert all(state.standing[s] >= floor for s in range(players) if state.active[s])
        check_decision(state, rng, random_illegal(state, rng), refusals=2, copy_p=0.08, copies=5)
        before = {
            "top": str(state.pile[-1]) if state.pile else None,
            "hand": names(state.hands[seat]),
            "face_up": {str(c) for c, up in zip(state.widow, state.widow_up) if up},
            "widow": names(state.widow),
        }
        action = choose(state, rng, knock_p)
        state.apply(action)
        played.append((seat, action))
        check_events(state, state.log[seen_events:], before)
        seen_events = len(state.log)

    # the match ended within its caps, with valid placements
    outcome = check_finished(state, max_rounds)
    if scoring != "lives":
        assert outcome.rounds <= rounds
        if outcome.reason == "rounds played":
            assert outcome.rounds == rounds
    assert outcome.placements == expected_placements(state)
    if scoring == "lives" and outcome.reason == "last player in":
        assert sum(state.active) == 1 and outcome.winners == (state.active.index(True),)
    if scoring == "points":
        assert outcome.placements == rank_placements(list(outcome.scores))
    assert list(outcome.scores) == [float(x) for x in state.standing]

    # the same seed and the same actions replay to an identical log
    check_replay(state, options, played)


@pytest.mark.parametrize("variant_name", PRESETS)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**64 - 1), players=st.integers(2, 9))
def test_rounds_lose_and_win_consistently(variant_name: str, seed: int, players: int) -> None:
    """Knock-and-stand play: every round_end's amounts match the standing it reports."""
    variant = get_variant(variant_name)
    state: Any = variant.new_match(
        players,
        seed=seed,
        options={"max_rounds": 8, "rounds": 4} if variant_name in ("banking", "no-elimination") else {"max_rounds": 8},
    )
    while not state.is_over:
        legal = state.legal_actions()
        state.apply(Action.of("knock") if Action.of("knock") in legal else Action.of("stand"))
    scoring = variant.resolve()["scoring"]
    starts = [e.public for e in state.log if e.kind == "round_start"]
    ends = [e.public for e in state.log if e.kind == "round_end"]
    assert len(starts) == len(ends) == state.outcome.rounds
    for start, end in zip(starts, ends):
        if scoring == "lives":
            lost = end["lives_lost"]
            assert all(x >= 0 for x in lost)
            assert all(lost[s] == 0 for s in range(players) if not start["active"][s])
            if end["cancelled"]:
                assert end["lives"] == start["lives"]
            else:
                assert end["lives"] == [a - b for a, b in zip(start["lives"], lost)]
        elif scoring == "points":
            won = end["points_won"]
            assert all(x in (0, 1, 2, 3, 4, 6) for x in won)
            assert end["points"] == [a + b for a, b in zip(start["points"], won)]
            if end["end"] == "showdown":
                assert max(won) >= 3  # somebody is highest
        else:
            assert sum(end["chips"]) <= players * 20


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    hand=st.lists(st.sampled_from(CARDS), min_size=3, max_size=3, unique=True),
    trips=st.sampled_from(["none", "30", "30.5"]),
    three_aces=st.sampled_from(["none", "32", "33"]),
    blitz_only_akt=st.booleans(),
    tiebreak=st.sampled_from(["cards", "suit", "none"]),
)
def test_fast_showdown_value_matches_the_evaluator(
    hand: list[Any], trips: str, three_aces: str, blitz_only_akt: bool, tiebreak: str
) -> None:
    full = thirty_one_value(hand, trips=trips, three_aces=three_aces, blitz_only_akt=blitz_only_akt, tiebreak=tiebreak)
    assert thirty_one_points(hand, *special_values(trips, three_aces)) == full.value
    # the suit sum, computed from scratch
    sums = {s: sum(c.points for c in hand if c.suit == s) for s in range(4)}
    ranks = {c.rank for c in hand}
    if len(ranks) == 1 and (trips != "none" or (three_aces != "none" and hand[0].rank == 12)):
        assert full.value in (30, 30.5, 32, 33)
    else:
        assert full.value == max(sums.values())
    assert full.low_key[0] == full.value and full.high_key[0] == full.value
    blitz = max(sums.values()) == 31 and len({c.suit for c in hand}) == 1
    if blitz:  # 31 in one suit: a blitz unless blitz_only_akt asks for exactly A K T
        assert bool(full.special) == (not blitz_only_akt or sorted(ranks) == [8, 11, 12])
    if not blitz and not (three_aces == "33" and ranks == {12}):
        assert not full.special
    assert full.value <= 33
