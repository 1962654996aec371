"""The search bot's seat in a Japanese Fifty-One match: every decision by determinized search.

Each decision with a real choice reads the hand so far (:mod:`fifty_one_deal`), rebuilds it
once with the engine, and while the budget allows samples a deal of the unseen cards
(weighed by what the opponents' choices reveal), plays every candidate on a copy of that
same deal, and finishes the hand with the rule of thumb for every seat
(:mod:`fifty_one_policy`).  A finished hand is worth the seat's chance of ending the match
ahead of each opponent (:class:`MatchValue`): hands won count first, total scores break
ties, and the hands still to come can change either.  The rule of thumb's choice stands
unless the search beats it clearly (:func:`pimc.pick`).
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from budget import Budget, deals_while
from fifty_one_deal import HandKnowledge, Sampler, read_hand, replay
from fifty_one_policy import LENGTH_BONUS, RuleOfThumb, finish_hand, net_score, stop_threshold, suit_points, swap_score
from pimc import Tally, clear_leader, pick

from arena.cards import Card, parse_card
from arena.rules import Action
from arena.rules.fifty_one import FiftyOneState
from arena.sdk import MatchInfo

MAX_SWAPS = 5
"""Swaps searched at most (the best by the rule of thumb's score first)."""
SWAP_MARGIN = 10.0
"""Swaps scoring this much below the best are not searched."""
STOP_SWAPS = 2
"""The best swaps (by the score they leave) searched both with and without a stop."""
TOTAL_SPREAD = 15.0
"""Standard deviation of the difference of two seats' scores in one hand: how far a total
score lead carries over the hands to come."""


class MatchValue:
    """What a finished replayed hand is worth to the seat: the mean over the opponents still
    in of its chance to finish the match ahead of each (a level finish counts half).

    Hands won decide first, then total scores.  Over the hands still to come each seat of
    a pair wins a hand with the chance ``1 / players``; the totals' difference spreads by
    :data:`TOTAL_SPREAD` a hand."""

    def __init__(self, known: HandKnowledge, observation: Mapping[str, Any], remaining: int) -> None:
        self.me = known.me
        won = observation["hands_won"]
        totals = observation["totals"]
        active = observation["active"]
        self.won = [int(won[real]) for real in known.seats]
        self.totals = [int(totals[real]) for real in known.seats]
        self.rivals = [s for s, real in enumerate(known.seats) if s != known.me and active[real]]
        self.remaining = remaining
        share = 1.0 / max(2, len(self.rivals) + 1)
        self.swings = _swings(remaining, share)
        self._ahead: dict[tuple[int, int], float] = {}

    def __call__(self, state: FiftyOneState) -> float:
        me = self.me
        won = state.won
        totals = state.totals
        mine = self.won[me] + won[me]
        score = self.totals[me] + totals[me]
        chances = [self.ahead(mine - self.won[s] - won[s], score - self.totals[s] - totals[s]) for s in self.rivals]
        return sum(chances) / len(chances) if chances else 0.5

    def ahead(self, hands: int, points: int) -> float:
        """The chance to finish ahead of a seat now ``hands`` hands won and ``points`` behind."""
        key = (hands, points)
        value = self._ahead.get(key)
        if value is None:
            level = (1.0 if points > 0 else 0.0 if points < 0 else 0.5) if self.remaining == 0 else \
                0.5 * (1.0 + math.erf(points / (TOTAL_SPREAD * math.sqrt(2 * self.remaining))))
            value = sum(p * (1.0 if hands + k > 0 else 0.0 if hands + k < 0 else level) for k, p in self.swings)
            self._ahead[key] = value
        return value


def _swings(hands: int, share: float) -> list[tuple[int, float]]:
    """The change in a pair's difference of hands won over ``hands`` hands, each won by
    either seat with the chance ``share``: (change, chance) pairs."""
    dist = {0: 1.0}
    for _ in range(hands):
        step: dict[int, float] = {}
        for k, p in dist.items():
            for move, q in ((1, share), (-1, share), (0, 1.0 - 2 * share)):
                if q > 0:
                    step[k + move] = step.get(k + move, 0.0) + p * q
        dist = step
    return sorted(dist.items())


class FiftyOnePlayer:
    """The bot's state for one Fifty-One match."""

    def __init__(self, match: MatchInfo) -> None:
        self.match = match
        self.options = match.resolved_options
        self.rng = random.Random(zlib.crc32(match.match_id.encode()) ^ match.seat)

    def choose(self, observation: dict[str, Any], legal: list[str], budget: Budget) -> str:
        if len(legal) == 1:
            return legal[0]
        players = sum(1 for on in observation["active"] if on)
        rule = RuleOfThumb([stop_threshold(players)] * self.match.players)
        hand = [parse_card(c) for c in observation["hand"]]
        table = [parse_card(c) for c in observation["table"]]
        may_stop = observation.get("stopper") is None
        default = rule.choose(self.match.seat, hand, table, "clear" in legal, may_stop).text
        candidates = self.candidates(hand, table, legal, default, may_stop)
        if len(candidates) == 1:
            return default
        known = read_hand(self.match.events, self.match.seat)
        if known is None:
            return default
        template = replay(self.match.rules, self.options, known, table)
        if template is None:
            return default
        thresholds = [stop_threshold(len(known.seats))] * len(known.seats)
        sampler = Sampler(known, template, thresholds)
        if not sampler.consistent():
            return default
        value = MatchValue(known, observation, self.remaining(observation))
        tallies = search(sampler, candidates, RuleOfThumb(thresholds), value, budget, self.rng)
        if not tallies[0].results:
            return default
        return pick(tallies, default)

    def remaining(self, observation: Mapping[str, Any]) -> int:
        """Hands still to be played after this one: the match's hands, or fewer when the
        round cap (200 unless set) ends it first."""
        rounds = self.options.get("rounds") or 2 * self.match.players
        cap = self.options.get("max_rounds") or FiftyOneState.default_max_rounds
        return max(0, min(rounds, cap) - int(observation["round"]))

    @staticmethod
    def candidates(hand: Sequence[Card], table: Sequence[Card], legal: Sequence[str], default: str,
                   may_stop: bool) -> list[str]:
        """The actions worth searching: ``default`` first; for each table card the best swap
        that takes it (taking a card can be worth it just to keep it from the next seat) and
        for each suit the best swap that collects it, by the rule of thumb's score; the best
        of these by the score they leave both with and without a stop; and a clear."""
        bonus = LENGTH_BONUS if may_stop else 0.0
        best: dict[tuple[str, int], tuple[float, Action]] = {}
        for text in legal:
            if not text.startswith("swap_one") or text.endswith("stop"):
                continue
            action = Action.parse(text)
            give, take = action.cards
            score = swap_score(hand, give, take, bonus)
            for key in (("take", take), ("suit", _counted_suit([c for c in hand if c != give] + [take]))):
                if key not in best or score > best[key][0]:
                    best[key] = (score, action)
        ranked = sorted(dict.fromkeys(best.values()), key=lambda x: -x[0])
        chosen = [a for score, a in ranked if score >= ranked[0][0] - SWAP_MARGIN][:MAX_SWAPS]
        out = [default] + [a.text for a in chosen]
        if may_stop:
            by_net = sorted(chosen, key=lambda a: -net_score([c for c in hand if c != a.cards[0]] + [a.cards[1]]))
            out += [a.text + " stop" for a in by_net[:STOP_SWAPS]]
            plain = default.removesuffix(" stop")
            out += [plain, plain + " stop"] if default.startswith("swap_one") else []
        if "clear" in legal:
            out.append("clear")
        return [a for a in dict.fromkeys(out) if a in legal]


def _counted_suit(cards: Sequence[Card]) -> int:
    """The suit the net suit score counts (the first of equals)."""
    sums = suit_points(cards)
    return max(range(4), key=sums.__getitem__)


def search(sampler: Sampler, candidates: Sequence[str], policy: RuleOfThumb, value: MatchValue, budget: Budget,
           rng: random.Random) -> list[Tally]:
    """Every candidate played on copies of the same sampled deals, the hand finished by
    ``policy``, while ``budget`` allows; one :class:`Tally` per candidate, all with the same
    number of results.  Stops early once the leader is clear (:func:`pimc.clear_leader`)."""
    tallies = [Tally(text, Action.parse(text)) for text in candidates]
    last = len(tallies) - 1
    for _ in deals_while(budget, lambda: clear_leader(tallies)):
        state = sampler.deal(rng)
        for i, tally in enumerate(tallies):
            played = state if i == last else state.clone()
            played.apply(tally.action)
            finish_hand(played, policy)
            tally.results.append(value(played))
    return tallies

