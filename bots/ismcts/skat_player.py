"""The search bot's seat in a Skat match: the auction by hand evaluation, the cards by search.

The auction, the skat (pickup or hand), the discard and the game come from the heuristic
bot's hand evaluation (:mod:`skat_auction`).  Every card with a real choice is searched
(:mod:`skat_search`) within the same budget as any other decision of the bot.  Kontra and
re are never said.  Whatever goes wrong, the answer is a legal action.
"""

from __future__ import annotations

import random
import zlib
from typing import Any

from budget import Budget
from skat_auction import Auction
from skat_deal import read_deal
from skat_rollout import SkatRollout
from skat_search import candidates, choose, search

from arena.rules import Action
from arena.sdk import MatchInfo


class SkatPlayer:
    """The bot's state for one Skat match."""

    def __init__(self, match: MatchInfo) -> None:
        self.match = match
        self.options = match.resolved_options
        self.auction = Auction()
        self.rng = random.Random(zlib.crc32(match.match_id.encode()) ^ match.seat)

    def choose(self, observation: dict[str, Any], legal: list[str], budget: Budget) -> str:
        plays = [a for a in legal if a.startswith("play ")]
        if not plays:
            return self.auction.choose(observation, legal)
        if len(plays) == 1:
            return plays[0]
        known = read_deal(self.match.events, self.match.seat)
        if known is None or known.game is None:
            return plays[0]
        moves = candidates(known, [Action.parse(a) for a in plays])
        if len(moves) == 1:
            return moves[0].text
        tallies, first = search(self.match.rules, self.options, known, moves, budget, self.rng)
        if tallies[0].results:
            return choose(tallies).text
        if first is not None:  # no deal fitted in the time: the rollout policy on the one deal drawn
            card = SkatRollout(known.game).choose(first)
            if card.text in plays:
                return card.text
        return moves[0].text

