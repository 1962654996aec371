"""Widow family: fresh deals for the search without replaying the round each time.

In the widow family (Schwimmen, Stop the Bus, Switch) a seat's information set differs
from the true state only in the opponents' cards it has never seen, the unseen table cards
(Switch's face-down hands, and those put out of play) and the order of the stock: every
card a player gives up lands face up, and every card a player takes from the table was
face up or stays as unseen to the others as before.  So once one deal has been replayed
with the engine (the *template*: :func:`infoset.sample_state`), any other deal is the
template with those cards redrawn.  That costs a copy of the state (``MatchState.clone``)
instead of a replay of the whole round, which in a long round was most of the search's time.

A deal must still fit the history, and the history still weighs it:

* No opponent may hold a 31 or Feuer at any moment the rules would have shown it: its
  hand when the widow was turned up and after each of its turns.  Its earlier hands follow
  from its current one by undoing its swaps (``swap_one GIVE TAKE``: it held GIVE instead of
  TAKE; ``swap_all``: it held the cards it gave, which lay face up).
* Each time an opponent could knock and played on, the deal is weighed by the chance it
  would not knock with the hand it then held (:meth:`playout.Playout.declined_hand`); each
  time it knocked, by the chance that it would.

Only rounds without a forfeit use this; :mod:`pimc` replays the others.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, cast

from infoset import MAX_TRIES, MIN_ACCEPT, Knowledge
from playout import Playout

from arena.cards import Card, Stock
from arena.rules import Action, MatchState
from arena.rules.widow import WidowState, evaluate_hand

KNOCK_FLOOR = 0.05
"""A knock is weighed at least this much, however weak the hand the deal gives the knocker."""
FAMILY = "widow"
"""The rules family :class:`Redealer` serves."""


class Redealer:
    """Deals for one decision, built from a replayed template state."""

    def __init__(self, knowledge: Knowledge, template: MatchState, declines: Sequence[int], policy: Playout,
                 options: Mapping[str, Any]) -> None:
        self.knowledge = knowledge
        self.template: Any = template
        self.policy = policy
        self.options = options
        me = knowledge.me
        self.opponents = [(sim, real) for sim, real in enumerate(knowledge.seats) if sim != me]
        self.turns: dict[int, list[tuple[int, Action]]] = {sim: [] for sim, _ in self.opponents}
        for index, (seat, action) in enumerate(knowledge.history):
            if action is not None and seat in self.turns:
                self.turns[seat].append((index, action))
        for turns in self.turns.values():
            turns.reverse()  # latest first: hands are rebuilt backwards from the current one
        self.declines = set(declines)
        self.pool = set(knowledge.pool)
        widow = cast(WidowState, template)  # the widow family's state, as FAMILY says
        self.stock_size = len(widow.stock)
        self.hidden = [(h, p) for h, (cards, up) in enumerate(zip(widow.table, widow.face_up))
                       for p in range(len(cards)) if not up[p] and cards[p] in self.pool]
        """Face-down table places (Switch) whose cards the seat has not seen: redealt too ..."""
        self.lost = [i for i, card in enumerate(widow.discarded) if card in self.pool]
        """... and so are the unseen cards put out of play (Switch's renewed face-down hands)."""
        self.redealt = len(self.hidden) + len(self.lost)
        self.turned_up = _turned_up(template)
        """Whether the widow was turned up this round: before (the dealer still choosing), no
        hand has been tested for a 31 or Feuer, and an opponent may hold one."""
        self._special: dict[int, bool] = {}
        self.best = 0.0
        """The largest likelihood of a deal drawn so far."""

    @staticmethod
    def serves(variant_family: str, knowledge: Knowledge) -> bool:
        """Whether a round can be redealt: the widow family, nobody forfeited during it."""
        return variant_family == FAMILY and not knowledge.gone

    def special(self, hand: Sequence[Card]) -> bool:
        """Whether ``hand`` is a 31 or Feuer that ends the round."""
        a, b, c = hand
        key = (1 << a) | (1 << b) | (1 << c)
        found = self._special.get(key)
        if found is None:
            found = self._special[key] = bool(evaluate_hand(hand, self.options).special)
        return found

    def likelihood(self, seat: int, hand: list[Card]) -> float:
        """How likely ``seat``'s turns this round were if it holds ``hand`` now (0: impossible)."""
        if self.turned_up and self.special(hand):
            return 0.0
        weight = 1.0
        gave = self.knowledge.gave
        policy = self.policy
        for index, action in self.turns[seat]:
            kind = action.kind
            if kind == "swap_one":
                give, take = action.cards
                if take not in hand:
                    return 0.0
                before = [give if c == take else c for c in hand]
            elif kind == "swap_all":
                before = gave[index]
            elif kind in ("pass", "knock", "renew"):
                before = hand
            else:  # the dealer's keep or swap, or Switch's trade for a face-down card: the
                break  # hand before it is not known (nor, for the dealer, ever tested)
            if kind == "knock":
                weight *= max(1.0 - policy.declined_hand(before, seat), KNOCK_FLOOR)
            elif index in self.declines:
                weight *= policy.declined_hand(before, seat)
            if before is not hand and self.special(before):
                return 0.0
            hand = before
        return weight

    def draw(self, rng: random.Random) -> tuple[Any, float] | None:
        """One deal: the template with new opponents' cards and stock, and its likelihood;
        None if the deal contradicts the history."""
        knowledge = self.knowledge
        deck, unseen = knowledge.deal(rng, self.policy.value)
        hands: dict[int, list[Card]] = {}
        held: set[Card] = set()
        weight = 1.0
        for sim, real in self.opponents:
            hand = knowledge.known[real] + unseen[real]
            if len(hand) != 3:
                return None
            weight *= self.likelihood(sim, hand)
            if weight <= 0.0:
                return None
            hands[sim] = hand
            held.update(unseen[real])
        pool = self.pool
        rest = [c for c in deck if c in pool and c not in held]
        if len(rest) != self.redealt + self.stock_size:
            return None
        return self.build(hands, rest), weight

    def build(self, hands: Mapping[int, Sequence[Card]], rest: Sequence[Card]) -> Any:
        """The template with the opponents holding ``hands`` (by seat of the replayed table),
        then ``rest``: first the face-down table cards the seat has not seen (table hand by
        table hand, in place order), then the unseen cards out of play (in the order of
        :attr:`lost`), then the stock, top first."""
        state = self.template.clone()
        for sim, hand in hands.items():
            state.hands[sim] = list(hand)
        for (h, p), card in zip(self.hidden, rest):
            state.table[h][p] = card
        for i, card in zip(self.lost, rest[len(self.hidden):]):
            state.discarded[i] = card
        state.stock = Stock(rest[self.redealt:])
        return state

    def sample(self, rng: random.Random) -> Any | None:
        """A deal drawn with probability its likelihood relative to the likeliest deal drawn so
        far (at least :data:`infoset.MIN_ACCEPT`): only the ratios between deals matter, and
        a factor every deal shares (an opponent whose whole hand is known) must not starve
        the search."""
        for _ in range(MAX_TRIES):
            drawn = self.draw(rng)
            if drawn is None:
                continue
            state, weight = drawn
            if weight >= self.best:
                self.best = weight
                return state
            if rng.random() < max(weight / self.best, MIN_ACCEPT):
                return state
        return None


def _turned_up(state: MatchState) -> bool:
    """Whether the latest round's widow has been turned up (its ``turn_up`` event)."""
    for event in reversed(state.log):
        if event.kind == "turn_up":
            return True
        if event.kind == "deal":
            return False
    return False
