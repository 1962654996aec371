"""Property tests for the widow family: random play under random seeds, seats and options.

At every step of a randomly played Schwimmen, Stop the Bus or Switch match the tests
check that cards are conserved, that no observation or event view shows a seat another
seat's hidden cards, a face-down table card or the stock, that every listed legal action
applies and random illegal ones are refused without a trace, and at the end that the
match stopped within its round cap with valid placements and replays to an identical log.
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

from arena.cards import new_deck
from arena.rules import Action, get_variant
from arena.rules.game import Event, rank_placements
from arena.rules.widow import WidowState

PRESETS = presets("widow")
SETTINGS = property_settings(max_examples=25)

overrides = st.fixed_dictionaries(
    {},
    optional={
        "deck": st.sampled_from([32, 52]),
        "table": st.sampled_from(["widow", "switch"]),
        "ranking": st.sampled_from(["points", "brag"]),
        "lives": st.integers(1, 4),
        "free_ride": st.booleans(),
        "trips": st.sampled_from(["none", "30", "30.5"]),
        "three_aces": st.sampled_from(["none", "32", "33"]),
        "blitz_only_akt": st.booleans(),
        "tiebreak": st.sampled_from(["suit", "cards", "none"]),
        "special_hands": st.sampled_from(["schwimmen", "blitz", "none"]),
        "blind_swap": st.booleans(),
        "knock_first_round": st.booleans(),
        "knock_after_swap": st.booleans(),
        "low_threshold": st.booleans(),
        "tied_lowest": st.sampled_from(["lose", "escape"]),
        "knocker_penalty": st.integers(0, 3),
        "knocker_tie": st.sampled_from(["loses", "safe"]),
        "knocker_blitz_penalty": st.integers(0, 2),
    },
)


def face_up(state: WidowState) -> set[str]:
    return {str(c) for cards, up in zip(state.table, state.face_up) for c, u in zip(cards, up) if u}


def face_down(state: WidowState) -> set[str]:
    return {str(c) for cards, up in zip(state.table, state.face_up) for c, u in zip(cards, up) if not u}


def check_conservation(state: WidowState, deck: list[Any]) -> None:
    held = [c for h in state.hands for c in h] + [c for t in state.table for c in t] + state.discarded
    assert len(held) == len(set(held)), "a card is in two places"
    assert Counter(held + stock_cards(state)) == Counter(deck)
    for seat in range(state.players):
        assert len(state.hands[seat]) == (3 if state.active[seat] else 0)
    assert all(len(t) == 3 for t in state.table)


def check_observations(state: WidowState) -> None:
    up, down = face_up(state), face_down(state)
    for seat, obs, seen in observations(state):
        allowed = names(state.hands[seat]) | up
        if obs["phase"] == "choice" and state.options["table"] == "switch" and seat == state.dealer:
            allowed |= names(state.table[0])  # the Switch dealer has looked at its second hand
            assert obs["other_hand"] == [str(c) for c in state.table[0]]
        else:
            assert "other_hand" not in obs
            assert not seen & down
        assert seen <= allowed, f"seat {seat} sees {seen - allowed}"
        tables = obs["table"] if state.options["table"] == "switch" else (obs["widow"],)
        assert sum(card is None for t in tables for card in t) == len(down)


def check_events(state: WidowState, new: list[Event], before: dict[str, Any]) -> None:
    """Each new event: no leaks between seats, and its public part names only cards that
    are face up (or shown at a round's end)."""
    dealt: set[str] = set()
    dealer = before.get("dealer")
    for e in new:
        check_event_views(e, state.players)
        public = cards_in(e.view(None))
        if e.kind == "round_start":
            dealer = e.public["dealer"]
            assert not public
        elif e.kind == "deal":
            assert not public
            dealt = set()
            for seat, part in (e.private or {}).items():
                assert len(part["hand"]) == 3
                dealt |= set(part["hand"])
                assert "other_hand" not in part or (seat == dealer and state.options["table"] == "switch")
        elif e.kind == "action":
            check_action(e, public, before)
        elif e.kind == "turn_up":
            if dealt:  # dealt this step, no dealer's choice: the cards were in nobody's hand
                assert not public & dealt
            else:
                assert public <= before["hand"] | before["table"]
        elif e.kind == "new_widow":
            assert len(public) == 3 and not public & (before["table"] | before["hands"])
        elif e.kind == "round_end":
            shown = e.public["hands"]
            if e.public["end"] in ("showdown", "thirty-one"):
                assert shown
            elif e.public["end"] in ("feuer", "blitz"):
                assert sorted(int(s) for s in shown) == sorted(e.public["specials"])
            else:
                assert not shown
            assert not cards_in({k: v for k, v in e.public.items() if k != "hands"})
        else:
            assert e.kind == "match_end", e.kind
            assert not public


def check_action(e: Event, public: set[str], before: dict[str, Any]) -> None:
    text = e.public["action"]
    kind = text.split()[0]
    acted = cards_in(text)
    seat = e.seat if e.seat is not None else -1
    private = cards_in(dict(e.private[seat])) if e.private and seat in e.private else set()
    if kind == "swap_one":
        give, take = text.split()[1:3]
        assert give in before["hand"] and take in before["up"] and public == acted
    elif kind == "swap_blind":
        assert public == acted <= before["hand"] and len(acted) == 1
        assert private <= before["down"] and len(private) == 1
    elif kind == "swap_all":
        assert public == set(e.public["gave"]) == before["hand"]
        assert private <= before["table"]
    elif kind == "renew":
        assert not public & (before["table"] | before["hands"])
        assert text.split()[2] == "up" or not public
    elif kind == "swap_hand":
        assert not public and private == before["table0"]
    else:
        assert kind in ("keep", "pass", "knock"), text
        assert not public and not private


def random_illegal(state: WidowState, rng: random.Random) -> list[Action]:
    legal = set(state.legal_actions())
    deck = new_deck()
    pool = [Action.of(k) for k in ("draw", "take", "stand", "knock", "pass", "keep", "swap_hand", "swap_all")]
    pool += [Action.of("swap_all", arg=a) for a in ("0", "1", "2", "knock", "0 knock")]
    pool += [Action.of("renew", arg=f"{h} {f}") for h in (0, 1, 2) for f in ("up", "down")]
    for _ in range(4):
        a, b = rng.sample(deck, 2)
        pool.append(Action.of("swap_one", a, b))
        pool.append(Action.of("swap_one", a, b, arg="knock"))
        pool.append(Action.of("swap_blind", a, arg=f"{rng.randrange(3)} {rng.randrange(4)}"))
    hand = state.hands[state.to_move] if state.to_move is not None else []
    if hand and state.table:
        pool.append(Action.of("swap_one", hand[0], hand[1]))  # a hand card for a hand card
        pool.append(Action.of("swap_one", hand[0], hand[1], state.table[0][0], state.table[0][1]))  # two
    return [a for a in pool if a not in legal]


def choose(state: WidowState, rng: random.Random, knock_p: float) -> Action:
    legal = state.legal_actions()
    knocks = [a for a in legal if a.kind == "knock" or a.arg.endswith("knock")]
    others = [a for a in legal if a not in knocks]
    if knocks and (not others or rng.random() < knock_p):
        return rng.choice(knocks)
    return rng.choice(others)


def expected_placements(state: WidowState) -> tuple[int, ...]:
    """Placements recomputed from the log (docs/RULES.md 1): seats still in by lives, then the
    seats out by the round they went out in (later is better, the same round shares)."""
    out_round = out_rounds(state)
    lives = state.seats.lives
    return rank_placements([(1, lives[s]) if state.active[s] else (0, out_round[s]) for s in range(state.players)])


def fit(variant: str, players: int, extra: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Drop option combinations the family refuses: low_threshold with brag ranks, and
    seats beyond what a 32-card deck deals with two table hands."""
    options = dict(extra)
    resolved = get_variant(variant).resolve(options)
    if resolved["ranking"] == "brag":
        options["low_threshold"] = False
    if resolved["table"] == "switch" and resolved["deck"] == 32:
        players = min(players, 8)
    return players, options


def before_action(state: WidowState) -> dict[str, Any]:
    seat = state.to_move
    assert seat is not None
    return {
        "hand": names(state.hands[seat]),
        "hands": {str(c) for h in state.hands for c in h},
        "up": face_up(state),
        "down": face_down(state),
        "table": {str(c) for t in state.table for c in t},
        "table0": names(state.table[0]),
        "dealer": state.dealer,
    }


@pytest.mark.parametrize("variant_name", PRESETS)
@SETTINGS
@given(
    seed=st.integers(0, 2**64 - 1),
    players=st.integers(2, 9),
    extra=overrides,
    rng_seed=st.integers(0, 2**32 - 1),
    max_rounds=st.integers(1, 6),
    knock_p=st.sampled_from([0.0, 0.05, 0.3, 0.9]),
)
def test_random_play_invariants(
    variant_name: str, seed: int, players: int, extra: dict[str, Any], rng_seed: int, max_rounds: int,
    knock_p: float,
) -> None:
    variant = get_variant(variant_name)
    players, options = fit(variant_name, players, extra)
    options.update(max_rounds=max_rounds, max_turns=60)
    state: Any = variant.new_match(players, seed=seed, options=options)
    assert isinstance(state, WidowState)
    resolved = variant.resolve(options)
    deck = new_deck(resolved["deck"])
    rng = random.Random(rng_seed)
    played: Steps = []
    check_events(state, state.log, {"hand": set(), "hands": set(), "table": set()})
    seen_events = len(state.log)
    while not state.is_over:
        assert len(played) < 5000, "the match does not end"
        seat = state.to_move
        check_conservation(state, deck)
        check_observations(state)
        floor = 0 if resolved["free_ride"] else 1
        assert all(state.seats.lives[s] >= floor for s in range(players) if state.active[s])
        check_decision(state, rng, random_illegal(state, rng), refusals=3, copy_p=0.08, copies=5)
        before = before_action(state)
        action = choose(state, rng, knock_p)
        state.apply(action)
        played.append((seat, action))
        check_events(state, state.log[seen_events:], before)
        seen_events = len(state.log)

    outcome = check_finished(state, max_rounds)
    if outcome.reason != "round cap":
        assert outcome.reason == "last player in" and sum(state.active) == 1
        assert outcome.winners == (state.active.index(True),)
    assert outcome.placements == expected_placements(state)
    assert list(outcome.scores) == [float(x) for x in state.seats.lives]

    check_replay(state, options, played)


@pytest.mark.parametrize("variant_name", PRESETS)
@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**64 - 1), players=st.integers(2, 9), extra=overrides)
def test_round_losses_match_the_lives_reported(variant_name: str, seed: int, players: int,
                                               extra: dict[str, Any]) -> None:
    """Knock-and-pass play: every round_end's losses match the lives it reports, seats out
    lose nothing, and a cancelled round changes no lives."""
    players, options = fit(variant_name, players, extra)
    state: Any = get_variant(variant_name).new_match(players, seed=seed, options={**options, "max_rounds": 10})
    while not state.is_over:
        legal = state.legal_actions()
        kinds = {a.kind: a for a in legal}
        state.apply(kinds.get("keep") or kinds.get("knock") or kinds.get("pass") or legal[0])
    starts = [e.public for e in state.log if e.kind == "round_start"]
    ends = [e.public for e in state.log if e.kind == "round_end"]
    assert len(starts) == len(ends) == state.outcome.rounds
    for start, end in zip(starts, ends):
        lost = end["lives_lost"]
        assert all(x >= 0 for x in lost)
        assert all(lost[s] == 0 for s in range(players) if not start["active"][s])
        if end["end"] in ("draw", "turn_cap"):
            assert not any(lost)
        if end["cancelled"]:
            assert end["lives"] == start["lives"] and not end["eliminated"]
        else:
            assert end["lives"] == [a - b for a, b in zip(start["lives"], lost)]
