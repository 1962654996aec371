"""Search bot: determinized Monte Carlo search over the arena's own rules engine.

For every decision with a real choice it reads its information set from the events it
has seen (:mod:`infoset`), then until its time budget runs out samples deals consistent
with it, plays each candidate action on each deal and finishes the round with a cheap
policy (:mod:`playout`), and picks the candidate with the best average result
(:mod:`pimc`), keeping to the policy's own choice unless the search shows a clear gain.
The budget is a safe fraction of the time control's ``move_ms``; when the round cannot be
followed (a reshuffled stock) or no deal fits in the time, it plays the policy's choice.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Mapping
from typing import Any

from infoset import read_round
from pimc import pick, search
from playout import View, playout_for, round_utility

from arena.rules import Action, get_variant
from arena.sdk import MatchInfo, hookimpl

THINK_FRACTION = 0.4
"""Share of ``move_ms`` a decision may use: the rest absorbs pipe latency and a busy machine."""
MAX_THINK_S = 2.0
"""Longest any decision thinks, however generous the time control."""
RESERVE_S = 0.005
"""Kept back from every budget for reading the events and sending the reply."""
STANDINGS = ("lives", "points", "chips")
"""Observation fields that hold every seat's standing (one per scoring kind)."""

get_variant("scat")  # load the variant registry now, before the referee starts the clock


class Player:
    """The bot's state for one match."""

    def __init__(self, match: MatchInfo) -> None:
        self.match = match
        self.options = match.resolved_options
        self.policy = playout_for(match.rules, self.options)
        self.rng = random.Random(zlib.crc32(match.match_id.encode()) ^ match.seat)
        move_s = float(match.time.get("move_ms", 1000)) / 1000
        self.budget_s = max(0.0, min(THINK_FRACTION * move_s, MAX_THINK_S) - RESERVE_S)

    def choose(self, observation: dict[str, Any], legal: list[str]) -> str:
        start = time.perf_counter()
        if len(legal) == 1:
            return legal[0]
        view = View(observation)
        actions = [Action.parse(text) for text in legal]
        default = self.policy.choose(view, actions).text
        candidates = list(dict.fromkeys([default] + [a.text for a in self.policy.candidates(view, actions)]))
        if len(candidates) == 1:
            return default
        knowledge = read_round(self.match.events, self.match.seat, self.match.rules, self.options)
        if knowledge is None:
            return default
        key = next((k for k in STANDINGS if k in observation), "lives")
        standing = [float(observation[key][real]) for real in knowledge.seats]
        seats = [s for s, real in enumerate(knowledge.seats) if real not in knowledge.gone]

        def utility(result: Mapping[str, Any] | None) -> float:
            return round_utility(result, knowledge.me, seats, standing, self.options)

        tallies = search(self.match.rules, self.options, knowledge, candidates, self.policy, utility,
                         start + self.budget_s, self.rng)
        if not tallies[0].results:
            return default
        return pick(tallies, default)


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
