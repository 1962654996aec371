"""Heuristic play for the widow family: schwimmen, stop-the-bus, switch (bot.toml ``notes``
lists the rules of thumb).

Only the lowest hand loses, so what matters is how a hand ranks against the others.
Hands are ranked by the match's own rules through the engine (``match.rules``): suit
sums with 30.5 trips and Feuer in Schwimmen, three-card brag ranks in Stop the Bus, scat
values in Switch; a 31 or Feuer that ends the round ranks above everything.  That rank
becomes one number, the *utility*: the share of opponents' hands it beats, opponents
being modelled as the best three of six random cards (a dealt hand improved by trades
with the table).  Every choice maximises the utility (its average over the unseen cards
for a face-down card), and the bot knocks once the chance that every opponent holds a
better hand, ``(1 - utility) ** opponents``, is small.  The table is face up, so the
observation says all it needs: nothing is remembered between turns.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from itertools import combinations
from typing import Any

from arena.cards import new_deck

RANKS = "23456789TJQKA"
SUITS = "cdhs"
INDEX = {r + s: i for i, (r, s) in enumerate((r, s) for r in RANKS for s in SUITS)}

MODEL_CARDS = 6
"""An opponent's hand is modelled as the best three of this many random cards."""
MODEL_SAMPLES = 400
"""Random opponent hands in the model (built once per process and option set)."""
KNOCK_RISK = 0.15
"""Knock when the chance of holding the lowest hand (every opponent above) is at most this ..."""
KNOCK_RISK_PENALTY = 0.08
"""... or this when a knocker who is lowest alone loses more than one life (Switch)."""
IMPROVE = 0.05
"""A hand that a trade would improve by this much utility trades instead of knocking."""
STAND_PAT = 1e-6
"""A pass beats a trade that does not improve the hand (equal trades would churn forever)."""
RENEW_COST = 1e-3
"""Renewing a table hand face up changes nothing for the bot: a pass that shows three cards."""
SWAP_SAMPLES = 30
"""Samples of the face-down cards when valuing a whole table hand that is partly face down."""
KEEP_SAMPLES = 200
"""Schwimmen dealer: samples of the unseen widow when deciding to keep or swap blind."""

_MODELS: dict[str, list[tuple[Any, ...]]] = {}
"""Sorted opponent-hand strengths by the match options they were built under."""


class WidowBot:
    """One match of the widow family, for one seat."""

    def __init__(self, match: Any) -> None:
        self.match = match
        self.options = match.resolved_options
        self.evaluate = match.evaluator()
        self.deck = [int(c) for c in new_deck(self.options["deck"])]
        self.rng = random.Random(f"{match.match_id}/{match.seat}/heuristic-widow")
        self.strengths: dict[int, tuple[Any, ...]] = {}
        signature = repr(sorted(self.options.items()))
        if signature not in _MODELS:
            _MODELS[signature] = self.model()
        self.sorted = _MODELS[signature]
        self.risk = KNOCK_RISK if self.options["knocker_penalty"] <= 1 else KNOCK_RISK_PENALTY

    # -- ranking hands ------------------------------------------------------------------

    def strength(self, a: int, b: int, c: int) -> tuple[Any, ...]:
        """How the rules rank a hand: (ends the round at once, the key that finds the loser)."""
        key = (1 << a) | (1 << b) | (1 << c)
        found = self.strengths.get(key)
        if found is None:
            hand = self.evaluate((a, b, c))
            found = self.strengths[key] = (hand.special, *hand.low_key)
        return found

    def model(self) -> list[tuple[Any, ...]]:
        """Strengths of random opponent hands, sorted: the best three of MODEL_CARDS cards."""
        rng = random.Random(6)
        return sorted(
            max(self.strength(*trio) for trio in combinations(rng.sample(self.deck, MODEL_CARDS), 3))
            for _ in range(MODEL_SAMPLES)
        )

    def utility(self, hand: list[int]) -> float:
        """The share of modelled opponent hands ``hand`` beats (ties count half)."""
        s = self.strength(*hand)
        ranked = self.sorted
        return (bisect_left(ranked, s) + bisect_right(ranked, s)) / (2 * len(ranked))

    def expected(self, hand: list[int], give: int, unseen: list[int]) -> float:
        """Average utility after giving ``give`` for a face-down card (one of ``unseen``)."""
        rest = [c for c in hand if c != give]
        return sum(self.utility([*rest, x]) for x in unseen) / len(unseen) if unseen else 0.0

    # -- decisions ------------------------------------------------------------------------

    def on_event(self, event: dict[str, Any]) -> None:
        """Nothing to remember: the observation shows the whole face-up table."""

    def choose(self, observation: dict[str, Any], legal: list[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        hand = [INDEX[c] for c in observation["hand"]]
        if observation["phase"] == "choice":
            return self.dealer_choice(observation, hand)
        tables: list[list[str | None]] = observation.get("table") or [observation["widow"]]
        visible = {INDEX[c] for t in tables for c in t if c is not None}
        unseen = [c for c in self.deck if c not in visible and c not in hand]
        current = self.utility(hand)
        scored = [(self.value(action, hand, tables, unseen, current), action) for action in legal
                  if action != "knock" and not action.endswith(" knock")]
        best_u, best = max(scored, key=lambda x: x[0])
        if "knock" in legal and best_u < current + IMPROVE and self.knock_is_safe(current, observation):
            return "knock"
        if best + " knock" in legal and self.knock_is_safe(best_u, observation):
            return best + " knock"
        return best

    def dealer_choice(self, observation: dict[str, Any], hand: list[int]) -> str:
        """Switch: play the better of the two hands seen.  Schwimmen: keep a hand at least as
        good as the average widow would be."""
        mine = self.utility(hand)
        other = observation.get("other_hand")
        if other is not None:
            return "swap_hand" if self.utility([INDEX[c] for c in other]) > mine else "keep"
        unseen = [c for c in self.deck if c not in hand]
        average = sum(self.utility(self.rng.sample(unseen, 3)) for _ in range(KEEP_SAMPLES)) / KEEP_SAMPLES
        return "keep" if mine >= average else "swap_hand"

    def value(self, action: str, hand: list[int], tables: list[list[str | None]], unseen: list[int],
              current: float) -> float:
        """The (expected) utility of the hand ``action`` leaves."""
        words = action.split()
        kind = words[0]
        if kind == "swap_one":
            give, take = INDEX[words[1]], INDEX[words[2]]
            return self.utility([take if c == give else c for c in hand])
        if kind == "swap_blind":
            return self.expected(hand, INDEX[words[1]], unseen)
        if kind == "swap_all":
            table = tables[int(words[1])] if len(words) > 1 else tables[0]
            return self.whole_hand(table, unseen)
        if kind == "renew":
            return current - RENEW_COST if words[2] == "up" else -1.0  # face down: a blind gamble later
        return current + STAND_PAT  # pass

    def whole_hand(self, table: list[str | None], unseen: list[int]) -> float:
        """Utility of taking a whole table hand, face-down cards sampled from the unseen ones."""
        known = [INDEX[c] for c in table if c is not None]
        hidden = 3 - len(known)
        if not hidden:
            return self.utility(known)
        total = sum(self.utility(known + self.rng.sample(unseen, hidden)) for _ in range(SWAP_SAMPLES))
        return total / SWAP_SAMPLES

    def knock_is_safe(self, utility: float, observation: dict[str, Any]) -> bool:
        """Whether a hand of ``utility`` is unlikely to be the lowest at the showdown."""
        opponents = sum(observation["active"]) - 1
        return bool((1.0 - utility) ** opponents <= self.risk)


FAMILIES = {"widow": WidowBot}
"""The rules families this module plays, by family name (bot.py dispatches on it)."""
