"""Search bot: determinized Monte Carlo search over the arena's own rules engine.

For every decision with a real choice it reads its information set from the events it
has seen (:mod:`infoset`), then until its time budget runs out samples deals consistent
with it, plays each candidate action on each deal and finishes the round with a cheap
policy (:mod:`playout`), and picks the candidate with the best average result
(:mod:`pimc`).  The budget is a safe fraction of the time control's ``move_ms``; when the
round cannot be followed (a reshuffled stock) or no deal fits in the time, it plays the
rollout policy's own choice.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from infoset import read_round
from pimc import pick, search
from playout import ScatPlayout, round_utility

from arena.cards import Card, parse_card
from arena.rules import Action, get_variant
from arena.sdk import MatchInfo, hookimpl

THINK_FRACTION = 0.4
"""Share of ``move_ms`` a decision may use: the rest absorbs pipe latency and a busy machine."""
MAX_THINK_S = 2.0
"""Longest any decision thinks, however generous the time control."""
RESERVE_S = 0.005
"""Kept back from every budget for reading the events and sending the reply."""
DISCARD_MARGIN = 6.0
"""Discards leaving a hand this much below the best discard's are not searched."""
MAX_CANDIDATES = 3
"""Discards or exchanges searched at most (the greedy best first)."""
STANDINGS = ("lives", "points", "chips")
"""Observation fields that hold every seat's standing (one per scoring kind)."""

get_variant("scat")  # load the variant registry now, before the referee starts the clock


class _Table:
    """An observation dressed as the few state attributes the rollout policy reads."""

    def __init__(self, observation: Mapping[str, Any]) -> None:
        self.to_move = observation["seat"]
        self.hands = {self.to_move: [parse_card(c) for c in observation["hand"]]}
        knocker = observation.get("knocker")
        self.knocker = -1 if knocker is None else knocker
        top = observation.get("discard_top")
        self.pile = [parse_card(top)] if top else []


class Player:
    """The bot's state for one match."""

    def __init__(self, match: MatchInfo) -> None:
        self.match = match
        self.options = match.resolved_options
        self.policy = ScatPlayout(self.options)
        self.rng = random.Random(zlib.crc32(match.match_id.encode()) ^ match.seat)
        move_s = float(match.time.get("move_ms", 1000)) / 1000
        self.budget_s = max(0.0, min(THINK_FRACTION * move_s, MAX_THINK_S) - RESERVE_S)

    def choose(self, observation: dict[str, Any], legal: list[str]) -> str:
        start = time.perf_counter()
        if len(legal) == 1:
            return legal[0]
        table = _Table(observation)
        actions = [Action.parse(text) for text in legal]
        fallback = self.policy.choose(table, actions).text
        candidates = self.candidates(observation, table, actions)
        if len(candidates) == 1:
            return candidates[0]
        knowledge = read_round(self.match.events, self.match.seat, self.options)
        if knowledge is None:
            return fallback
        key = next((k for k in STANDINGS if k in observation), "lives")
        standing = [float(observation[key][real]) for real in knowledge.seats]
        seats = [s for s, real in enumerate(knowledge.seats) if real not in knowledge.gone]

        def utility(result: Mapping[str, Any] | None) -> float:
            return round_utility(result, knowledge.me, seats, standing, self.options)

        tallies = search(self.match.rules, self.options, knowledge, candidates, self.policy, utility,
                         start + self.budget_s, self.rng)
        if not tallies[0].results:
            return fallback
        return pick(tallies, fallback)

    def candidates(self, observation: Mapping[str, Any], table: _Table, actions: Sequence[Action]) -> list[str]:
        """The actions worth searching: every turn action but exchanges; the greedy-best
        discards; the exchanges for face-up widow cards that improve the hand most."""
        hand = table.hands[table.to_move]
        if actions[0].kind == "discard":
            rated = sorted(((self.policy.value([c for c in hand if c != a.cards[0]]), a.text) for a in actions),
                           reverse=True)
            best = rated[0][0]
            return [text for value, text in rated[:MAX_CANDIDATES] if value >= best - DISCARD_MARGIN]
        plain = [a.text for a in actions if a.kind != "exchange"]
        widow = observation.get("widow") or []
        current = self.policy.value(hand)
        exchanges = []
        for action in actions:
            if action.kind == "exchange":
                after = _after_exchange(hand, action, widow)
                if after is not None and self.policy.value(after) > current:
                    exchanges.append((self.policy.value(after), action.text))
        exchanges.sort(reverse=True)
        return plain + [text for _, text in exchanges[:MAX_CANDIDATES]]


def _after_exchange(hand: Sequence[Card], action: Action, widow: Sequence[str | None]) -> list[Card] | None:
    """The hand after ``exchange G.. for P..`` when every card it receives lies face up, else None."""
    places = [int(p) for p in action.arg.split()[1:]]
    received = [widow[p] for p in places]
    if any(card is None for card in received):
        return None
    return [c for c in hand if c not in action.cards] + [parse_card(str(c)) for c in received]


_player: Player | None = None


@hookimpl
def match_start(match: MatchInfo) -> None:
    global _player
    _player = Player(match)


@hookimpl
def choose(observation: dict[str, Any], legal: list[str], match: MatchInfo) -> str:
    global _player
    if _player is None or _player.match is not match:
        _player = Player(match)
    action = _player.choose(observation, legal)
    return action if action in legal else legal[0]
