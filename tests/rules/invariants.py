"""Checks the property tests of every family make on randomly played matches.

What a seat may see, that a refused action leaves no trace, that legal actions apply,
that a finished match is well formed and that it replays to the same log hold for every
family alike; what is hidden or public in a family's observations and events is checked
by its own test module.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from arena.rules import Action, Event, IllegalActionError, MatchState, Outcome, variants

CARD_RE = re.compile(r"\b([2-9TJQKA][cdhs])\b")

Steps = list[tuple[int, Action | None]]
"""A match as played: ``(seat, action)``, or ``(seat, None)`` where the seat forfeited."""


def presets(family: str) -> list[str]:
    """Every registered variant of ``family``, in registration order."""
    return [name for name, variant in variants().items() if variant.family.name == family]


def property_settings(max_examples: int) -> settings:
    """Hypothesis settings for random play: the same examples on every run, no deadline,
    and no complaint about slow examples or large draws."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def cards_in(obj: Any) -> set[str]:
    """Every card name mentioned anywhere in a JSON-ready object (which this checks it is)."""
    return set(CARD_RE.findall(json.dumps(obj)))


def names(cards: Any) -> set[str]:
    return {str(c) for c in cards}


def stock_cards(state: Any) -> list[Any]:
    """The stock's remaining cards, dealt from a copy (the real stock is untouched)."""
    stock = state.stock.clone()
    return [stock.deal() for _ in range(len(stock))]


def snapshot(state: MatchState) -> tuple[Any, ...]:
    """Everything observable: every seat's view, the log length, the legal actions, the seat to move."""
    views = [json.dumps(state.observe(s), sort_keys=True) for s in range(state.players)]
    return views, len(state.log), [str(a) for a in state.legal_actions()], state.to_move


def observations(state: Any) -> Iterator[tuple[int, dict[str, Any], set[str]]]:
    """Each seat's observation and the cards it names, once the checks every family shares
    hold: JSON-ready, the seat's own hand as it is, no other seat's cards, no stock card, no seed."""
    stock = names(stock_cards(state))
    for seat in range(state.players):
        obs = state.observe(seat)
        seen = cards_in(obs)
        assert obs["hand"] == [str(c) for c in state.hands[seat]]
        for other in range(state.players):
            if other != seat:
                assert not seen & names(state.hands[other]), f"seat {seat} sees seat {other}'s cards"
        assert not seen & stock, f"seat {seat} sees stock cards {seen & stock}"
        assert "seed" not in obs
        yield seat, obs, seen


def check_event_views(event: Event, players: int) -> None:
    """A seat sees the public part and its own private part, never another seat's secrets."""
    public = event.view(None)
    for seat in range(players):
        view = event.view(seat)
        own = dict(event.private[seat]) if event.private and seat in event.private else {}
        assert set(view) <= set(public) | set(own)
        others = set()
        for other, part in (event.private or {}).items():
            if other != seat:
                others |= cards_in(dict(part))
        leaked = cards_in(view) & (others - cards_in(public) - cards_in(own))
        assert not leaked, f"{event.kind} shows seat {seat} another seat's {leaked}"


def check_decision(
    state: Any, rng: random.Random, illegal: Sequence[Action], refusals: int, copy_p: float, copies: int
) -> None:
    """The checks at a decision: the seat to move is in and has distinct legal actions;
    ``refusals`` of the ``illegal`` actions are refused without a trace; now and then
    (``copy_p``) ``copies`` of the legal actions each apply to a clone of the state,
    leaving the state as it was."""
    seat = state.to_move
    assert seat is not None and state.active[seat]
    legal = state.legal_actions()
    assert legal, "a seat to move always has a legal action"
    assert len(set(legal)) == len(legal)
    for action in rng.sample(illegal, min(refusals, len(illegal))):
        before = snapshot(state)
        with pytest.raises(IllegalActionError):
            state.apply(action)
        assert snapshot(state) == before
    if rng.random() < copy_p:
        before = snapshot(state)
        for action in rng.sample(legal, min(copies, len(legal))):
            twin = state.clone()
            twin.apply(action)
            assert len(twin.log) > len(state.log)
            assert snapshot(state) == before, "applying an action to a clone changed the original"


def check_placements(placements: Sequence[int], players: int) -> None:
    """One placement a seat, in competition ranking (1, 2, 2, 4)."""
    assert len(placements) == players
    assert all(1 <= p <= players for p in placements) and 1 in placements
    for p in placements:  # a seat placed p has exactly p - 1 seats placed ahead of it
        assert p == 1 + sum(1 for q in placements if q < p), placements


def check_finished(state: MatchState, max_rounds: int) -> Outcome:
    """The match is over within its round cap, its placements are a competition ranking,
    and the outcome is the last event; returns the outcome."""
    outcome = state.outcome
    assert outcome is not None and state.to_move is None and state.legal_actions() == []
    assert 1 <= outcome.rounds <= max_rounds
    assert outcome.rounds == sum(1 for e in state.log if e.kind == "round_start")
    if outcome.reason == "round cap":
        assert outcome.rounds == max_rounds
    check_placements(outcome.placements, state.players)
    assert state.log[-1].kind == "match_end"
    return outcome


def out_rounds(state: MatchState) -> list[int]:
    """The round each seat was eliminated in, read from the log (0: never)."""
    out = [0] * state.players
    current = 0
    for e in state.log:
        if e.kind == "round_start":
            current = e.public["round"]
        elif e.kind == "round_end":
            for s in e.public["eliminated"]:
                out[s] = current
    return out


def check_replay(state: MatchState, options: dict[str, Any], steps: Steps) -> None:
    """The same seed, options, actions and forfeits replay to an identical log and outcome."""
    replay = state.variant.new_match(state.players, seed=state.seed, options=options)
    for seat, action in steps:
        if action is None:
            replay.forfeit(seat)
        else:
            assert replay.to_move == seat
            replay.apply(action)
    assert [e.full() for e in replay.log] == [e.full() for e in state.log]
    assert replay.outcome == state.outcome
    assert state.actions() == [(seat, action) for seat, action in steps if action is not None]
