"""Search bot: determinized Monte Carlo search over the arena's own rules engine.

For every decision with a real choice it reads its information set from the events it
has seen (:mod:`infoset`), then until its time budget runs out samples deals consistent
with it, plays each candidate action on each deal and finishes the round with a cheap
policy (:mod:`playout`; opponents knock as their shown knocks suggest, :mod:`opponents`),
and picks the candidate with the best average result (:mod:`pimc`), keeping to its default
choice (:mod:`advice` in the draw-and-discard family, the rollout policy's in the widow
family) unless the search shows a clear gain.  The budget is a safe fraction of the time
control's ``move_ms``; when the round cannot be followed (a reshuffled stock) or no deal
fits in the time, it plays its default.  Skat has its own player (:mod:`skat_player`):
the auction by hand evaluation, every card by perfect-information Monte Carlo search;
so has Japanese Fifty-One (:mod:`fifty_one_player`): every swap, clear and stop by the same
kind of search over deals weighed by what the opponents' choices reveal.
"""

from __future__ import annotations

import random
import traceback
import zlib
from collections.abc import Mapping
from typing import Any

from advice import ScatAdvisor, Situation
from budget import Budget, budget_for
from fifty_one_player import FiftyOnePlayer
from infoset import Knowledge, read_round
from opponents import KnockModel
from pimc import Utility, pick, search
from playout import ScatPlayout, View, playout_for, round_utility
from skat_player import SkatPlayer

from arena.rules import Action, get_variant
from arena.sdk import MatchInfo, hookimpl

FIXED_DEALS: int | None = None
"""With a number, every search samples exactly that many deals whatever the clock says:
the bot then plays the same given the same match (tests and experiments set it)."""
STRICT = False
"""With True an error in the bot's play is raised instead of answered with a legal action
(tests set it, so that a bug cannot hide behind the fallback)."""
TURN_ENDS = ("discard", "knock", "stand", "exchange")
"""Action kinds that end a turn in the draw-and-discard family."""
STANDINGS = ("lives", "points", "chips")
"""Observation fields that hold every seat's standing (one per scoring kind)."""

get_variant("scat")  # load the variant registry (and the Skat rules) now, before the referee starts the clock


class Player:
    """The bot's state for one match."""

    def __init__(self, match: MatchInfo) -> None:
        self.match = match
        self.options = match.resolved_options
        self.policy = playout_for(match.rules, self.options)
        self.advisor = ScatAdvisor(self.policy, self.options) if isinstance(self.policy, ScatPlayout) else None
        self.opponents = KnockModel(match.seat)
        self.rng = random.Random(zlib.crc32(match.match_id.encode()) ^ match.seat)

    def choose(self, observation: dict[str, Any], legal: list[str], budget: Budget) -> str:
        if len(legal) == 1:
            return legal[0]
        view = View(observation)
        actions = [Action.parse(text) for text in legal]
        knowledge = read_round(self.match.events, self.match.seat, self.match.rules, self.options)
        default = self.default(view, actions, knowledge).text
        candidates = list(dict.fromkeys([default] + [a.text for a in self.policy.candidates(view, actions)]))
        if len(candidates) == 1 or knowledge is None:
            return default
        self.opponents.follow(self.match.events)
        self.policy.knock_by_seat = self.opponents.by_replayed_seat(knowledge.seats, self.policy.knock_at)
        tallies = search(self.match.rules, self.options, knowledge, candidates, self.policy,
                         self.round_value(observation, knowledge), budget, self.rng)
        if not tallies[0].results:
            return default
        return pick(tallies, default)

    def round_value(self, observation: Mapping[str, Any], knowledge: Knowledge) -> Utility:
        """What a finished replayed round is worth to this seat, given the standings now."""
        key = next((k for k in STANDINGS if k in observation), "lives")
        standing = [float(observation[key][real]) for real in knowledge.seats]
        seats = [s for s, real in enumerate(knowledge.seats) if real not in knowledge.gone]

        def utility(result: Mapping[str, Any] | None) -> float:
            return round_utility(result, knowledge.me, seats, standing, self.options)

        return utility

    def default(self, view: View, actions: list[Action], knowledge: Knowledge | None) -> Action:
        """The choice before search: the advisor's where there is one, else the rollout policy's."""
        if self.advisor is None or knowledge is None:
            return self.policy.choose(view, actions)
        return self.advisor.choose(view, actions, situation(knowledge))


def situation(knowledge: Knowledge) -> Situation:
    """What the advisor needs from the information set: the unseen cards, the seat's turns
    this round, the players in, and what the next player to move is known to hold."""
    me = knowledge.me
    turns = sum(1 for seat, action in knowledge.history
                if seat == me and action is not None and action.kind in TURN_ENDS)
    playing = [s for s, real in enumerate(knowledge.seats) if real not in knowledge.gone]
    after = playing[(playing.index(me) + 1) % len(playing)]
    knocker = next((seat for seat, action in knowledge.history if action is not None and action.kind == "knock"), -1)
    holds = [] if after in (me, knocker) else knowledge.known.get(knowledge.seats[after], [])
    return Situation(knowledge.pool, turns, len(playing), holds)


_player: Player | SkatPlayer | FiftyOnePlayer | None = None


def player_for(match: MatchInfo) -> Player | SkatPlayer | FiftyOnePlayer:
    """The seat's player: Skat's (:mod:`skat_player`), Fifty-One's (:mod:`fifty_one_player`)
    or the Thirty-One families'."""
    if match.rules.family.name == "skat":
        return SkatPlayer(match)
    if match.rules.family.name == "fifty-one":
        return FiftyOnePlayer(match)
    return Player(match)


@hookimpl
def match_start(match: MatchInfo) -> None:
    global _player
    _player = player_for(match)


@hookimpl
def choose(observation: dict[str, Any], legal: list[str], match: MatchInfo, time_left_ms: int) -> str:
    global _player
    budget = budget_for(match.time, time_left_ms, FIXED_DEALS)
    if _player is None or _player.match is not match:
        _player = player_for(match)
    try:
        action = _player.choose(observation, legal, budget)
    except Exception:  # a bug must not forfeit the match: say what it was, play a legal action
        if STRICT:
            raise
        traceback.print_exc()
        return legal[0]
    return action if action in legal else legal[0]
