"""Property tests for the four- and five-card relatives (docs/RULES.md 5): random play of
``fifty-one``, ``fifty-one-chinese`` and ``empat-satu`` under random seeds, every allowed
player count, random option overrides and occasional forfeits.

At every step: cards are conserved, no observation or event view shows a seat another
seat's hand, the stock or cards out of play, every listed legal action applies and
random illegal ones are refused without a trace.  Every hand's result agrees with its
shown values, and at the end the match stopped within its caps with placements that
follow the standings, and replays to an identical log.
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
    property_settings,
    stock_cards,
)

from arena.cards import CARDS, SUIT_NAMES, new_deck, parse_cards
from arena.rules import Action, get_variant
from arena.rules.game import rank_placements
from arena.rules.net_suit import is_clear_count, net_suit_key, net_suit_value, suit_sum, suit_sum_value

VARIANTS = ["fifty-one", "fifty-one-chinese", "empat-satu"]
SETTINGS = property_settings(max_examples=6)
ENDING = {"stop", "knock", "pass"}
"""Action kinds (and the ``stop`` argument) that end or may end a hand."""

OVERRIDES = {
    "fifty-one": st.fixed_dictionaries({}, optional={"rounds": st.integers(1, 4)}),
    "fifty-one-chinese": st.fixed_dictionaries({}, optional={
        "target": st.integers(1, 300),
        "hand_value": st.sampled_from(["suit_sum", "net_suit"]),
        "tie_playoff": st.booleans(),
    }),
    "empat-satu": st.fixed_dictionaries({}, optional={"rounds": st.integers(1, 4)}),
}


def face_up(state: Any) -> list[Any]:
    """The cards every seat sees on the table."""
    if hasattr(state, "table"):
        return list(state.table)
    if hasattr(state, "face_up"):
        return list(state.face_up)
    return state.pile[-1:]


def out_of_play(state: Any) -> list[Any]:
    """Cards face down out of play (cleared, set aside) or under the discard top."""
    if hasattr(state, "cleared"):
        return list(state.cleared)
    if hasattr(state, "out"):
        return list(state.out)
    return state.pile[:-1]


def check_conservation(state: Any) -> None:
    held = [c for h in state.hands for c in h] + face_up(state) + out_of_play(state)
    assert len(held) == len(set(held)), "a card is in two places"
    assert Counter(held + stock_cards(state)) == Counter(new_deck())
    size = {"fifty-one": 5, "fifty-one-chinese": 5, "empat-satu": 4}[state.variant.name]
    for seat in range(state.players):
        if state.active[seat]:
            extra = 1 if seat == state.to_move and state.observe(seat)["phase"] in ("discard", "first_discard") else 0
            assert len(state.hands[seat]) == size + extra, (seat, state.hands[seat])


def check_observations(state: Any) -> None:
    public = names(face_up(state))
    hidden = names(out_of_play(state))
    for seat, obs, seen in observations(state):
        own = names(state.hands[seat])
        assert seen <= own | public, f"seat {seat} sees {seen - own - public}"
        assert obs["stock"] == len(state.stock)
        assert not seen & hidden


def check_events(state: Any, new: list[Any], public_before: set[str]) -> None:
    """Seats see the public part and their own private part only; public parts name only
    face-up cards (before or after the action), or hands shown at a hand's end."""
    public_after = names(face_up(state))
    for e in new:
        check_event_views(e, state.players)
        public = e.view(None)
        shown = cards_in(public)
        if e.kind == "round_end":
            assert shown == cards_in(public.get("hands", {}))
            if public["end"] == "turn_cap":
                assert not shown
        elif e.kind in ("action", "deal"):
            assert shown <= public_before | public_after | cards_in(e.public.get("action", "")), e
            if e.kind == "action" and e.public["action"] == "draw":
                assert not shown
        else:
            assert e.kind in ("round_start", "reshuffle", "forfeit", "match_end"), e.kind
            assert not shown


def check_round_end(state: Any, end: dict[str, Any], start: dict[str, Any]) -> None:
    """A hand's result agrees with the values it shows and the standings it reports."""
    values = {int(s): v for s, v in end.get("values", {}).items()}
    shown = {int(s): parse_cards(cards) for s, cards in end.get("hands", {}).items()}
    for s, cards in shown.items():
        assert start["active"][s]
        assert state.variant.family.evaluate(cards, state.options).value == values[s]
    name = state.variant.name
    if name == "fifty-one":
        if end["end"] == "showdown":
            top = max(values.values())
            assert all(values[w] == top for w in end["winners"])
            tied = [s for s, v in values.items() if v == top]
            stopper = end["stopper"]
            assert sorted(end["winners"]) == sorted(t for t in tied if t != stopper or len(tied) == 1)
        gained = [a - b for a, b in zip(end["hands_won"], start["hands_won"])]
        assert gained == [int(s in end.get("winners", ())) for s in range(state.players)]
    elif name == "empat-satu":
        if values:
            assert all(values[w] == max(values.values()) for w in end["winners"])
            assert all(values[w] == min(values.values()) for w in end["losers"])
            assert not set(end["winners"]) & set(end["losers"])
        assert [a - b for a, b in zip(end["wins"], start["wins"])] == [
            int(s in end.get("winners", ())) for s in range(state.players)
        ]
    else:
        won = end["points_won"]
        assert end["points"] == [a + b for a, b in zip(start["points"], won)]
        if end["end"] != "turn_cap" and not any(is_clear_count(cards) for cards in shown.values()):
            assert sum(won) == sum(values.values())  # a challenge moves points, it never makes them


def random_illegal(state: Any, rng: random.Random) -> list[Action]:
    legal = set(state.legal_actions())
    deck = new_deck()
    pool = [Action.of(k) for k in ("draw", "take", "knock", "stand", "pass", "stop", "clear", "challenge")]
    for _ in range(4):
        a, b = rng.sample(deck, 2)
        pool += [Action.of("discard", a), Action.of("swap_one", a, b), Action.of("swap_one", a, b, arg="stop"),
                 Action.of("trade", a), Action.of("trade", *sorted((a, b)))]
    hand = state.hands[state.to_move]
    pool.append(Action.of("swap_one", hand[0], hand[1]))  # two hand cards
    pool.append(Action.of("trade", *sorted(hand)))  # the whole hand, whatever lies face up
    return [a for a in pool if a not in legal]


def choose(state: Any, rng: random.Random, end_p: float) -> Action:
    legal = state.legal_actions()
    ending = [a for a in legal if a.kind in ENDING or a.arg == "stop"]
    others = [a for a in legal if a not in ending]
    if ending and (not others or rng.random() < end_p):
        return rng.choice(ending)
    return rng.choice(others)


def expected_placements(state: Any) -> tuple[int, ...]:
    """Placements from the standings (docs/RULES.md 5): seats that forfeited last, later better."""
    forfeits = [e.seat for e in state.log if e.kind == "forfeit"]
    name = state.variant.name
    keys: list[tuple[int, ...]] = []
    for s in range(state.players):
        if s in forfeits:
            keys.append((-1, forfeits.index(s)))
        elif name == "fifty-one":
            keys.append((1, state.won[s], state.totals[s]))
        elif name == "empat-satu":
            keys.append((1, state.wins[s] - state.losses[s], state.totals[s]))
        else:
            keys.append((1, state.points[s]))
    return rank_placements(keys)


def play_randomly(
    variant_name: str, players: int, seed: int, options: dict[str, Any], rng: random.Random, end_p: float,
    forfeit_p: float,
) -> tuple[Any, Steps]:
    """Play a whole match, checking every step; returns the state and the steps taken."""
    state: Any = get_variant(variant_name).new_match(players, seed=seed, options=options)
    steps: Steps = []
    check_events(state, state.log, set())
    seen = len(state.log)
    while not state.is_over:
        assert len(steps) < 20_000, "the match does not end"
        seat = state.to_move
        check_conservation(state)
        check_observations(state)
        check_decision(state, rng, random_illegal(state, rng), refusals=2, copy_p=0.05, copies=4)
        public_before = names(face_up(state))
        if rng.random() < forfeit_p:
            quitter = rng.randrange(players)
            state.forfeit(quitter)
            steps.append((quitter, None))
        else:
            action = choose(state, rng, end_p)
            state.apply(action)
            steps.append((seat, action))
        check_events(state, state.log[seen:], public_before)
        seen = len(state.log)
    return state, steps


@pytest.mark.parametrize(
    ("variant_name", "players"),
    [(v, n) for v in VARIANTS for n in range(get_variant(v).min_players, get_variant(v).max_players + 1)],
)
@SETTINGS
@given(
    data=st.data(),
    seed=st.integers(0, 2**64 - 1),
    rng_seed=st.integers(0, 2**32 - 1),
    max_rounds=st.integers(1, 6),
    max_turns=st.integers(5, 120),
    end_p=st.sampled_from([0.0, 0.05, 0.3, 0.9]),
    forfeit_p=st.sampled_from([0.0, 0.0, 0.01]),
)
def test_random_play_invariants(
    variant_name: str, players: int, data: Any, seed: int, rng_seed: int, max_rounds: int, max_turns: int, end_p: float,
    forfeit_p: float,
) -> None:
    variant = get_variant(variant_name)
    extra = data.draw(OVERRIDES[variant_name], label="options")
    options = {**extra, "max_rounds": max_rounds, "max_turns": max_turns}
    resolved = variant.resolve(options)
    state, steps = play_randomly(variant_name, players, seed, options, random.Random(rng_seed), end_p, forfeit_p)

    outcome = check_finished(state, max_rounds)
    starts = [e.public for e in state.log if e.kind == "round_start"]
    ends = [e.public for e in state.log if e.kind == "round_end"]
    assert len(ends) in (len(starts), len(starts) - 1)
    for start, end in zip(starts, ends):
        check_round_end(state, dict(end), dict(start))
    if "rounds" in resolved:
        rounds = resolved["rounds"] or 2 * players
        assert outcome.rounds <= rounds
        assert outcome.reason != "rounds played" or outcome.rounds == rounds
    if outcome.reason == "target reached":
        points = [p for s, p in enumerate(state.points) if state.active[s]]
        leaders = [p for p in points if p == max(points)]
        assert leaders[0] >= resolved["target"]
        assert len(leaders) == 1 or not resolved["tie_playoff"]
    assert outcome.placements == expected_placements(state)

    # the same seed, actions and forfeits replay to an identical log
    check_replay(state, options, steps)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(hand=st.lists(st.sampled_from(CARDS), min_size=4, max_size=5, unique=True))
def test_fast_values_match_the_evaluators(hand: list[Any]) -> None:
    """The engine's fast paths give the evaluators' values and order; the net suit score
    is the best, over the suits held, of that suit's points less the rest."""
    full = net_suit_value(hand, lowest_tiebreak=True)
    assert net_suit_key(hand) == full.low_key == full.high_key
    held = {c.suit for c in hand}
    assert full.value == max(2 * sum(c.points for c in hand if c.suit == s) - sum(c.points for c in hand) for s in held)
    assert full.label.split()[0] in {SUIT_NAMES[s] for s in held}
    assert suit_sum(hand) == suit_sum_value(hand).value == max(
        sum(c.points for c in hand if c.suit == s) for s in range(4)
    )
