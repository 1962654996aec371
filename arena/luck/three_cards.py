"""The chance events of the three-card games (the thirty-one and widow families).

* **The deal.**  Given the hands dealt (as a set of packets) and everything else the deal
  put out, which seat holds which packet is uniform: the event's outcomes are every
  assignment of the packets to the seats dealt (the 24 orders of four players; above five
  players, the cyclic shifts, a subgroup, whose mean is just as unbiased).
* **A card drawn** from the stock: uniform over the cards still in it, read before the
  draw (a reshuffled discard pile is a new stock of known cards).  A draw after a knock
  (``last draw``) is its own kind: with one turn left each, hands decide the loser far
  more sharply, and the two kinds are weighted apart.

A widow's face-down cards, the upcard, a switch table's renewal and the cards a seat
receives from a face-down widow are chance too; they are left out, which keeps the
estimate unbiased and only forgoes their share of the variance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import permutations
from typing import Any, Final

from arena.cards import Card, parse_cards
from arena.luck.follower import Follower
from arena.luck.ledger import Ledger
from arena.luck.values import after_loss, hand_ranks, seat_values
from arena.rules.game import Event, MatchState

__all__ = ["ALL_ORDERS_UP_TO", "TEMPERATURES", "ThreeCards"]

TEMPERATURES: Final = {"deal": 0.3, "draw": 0.5, "last draw": 0.05}
"""Of the soft minimum that finds the round's likely loser, per kind of event (strength
units, 0..1): picked from a few values on Scat matches of training seeds (before any
evaluation), then fixed."""

ALL_ORDERS_UP_TO: Final = 5
"""Tables up to this size average the deal over every assignment of the hands (120 at
five); larger ones over the cyclic shifts."""


class ThreeCards(Follower):
    """Follows a match of the three-card games."""

    def __init__(self, state: MatchState, ledger: Ledger) -> None:
        super().__init__(state, ledger)
        options = state.options
        self.ranks = hand_ranks(state.variant.family, options)
        self.floor = 0 if options.get("free_ride", True) else 1
        self.lives = options.get("scoring", "lives") == "lives"
        self.standing: Mapping[str, Any] = {}

    def _seen(self, event: Event) -> None:
        if event.kind == "round_start":
            self.standing = event.public  # the lives the next deal is played for
        elif event.kind == "deal":
            self._deal(event)

    def _left(self, seats: Sequence[int], lives: Sequence[int] | None) -> tuple[int, ...] | None:
        """Lives left before each seat is out, or None in games without lives."""
        if not self.lives or lives is None:
            return None
        return tuple(max(lives[s] - self.floor + 1, 1) for s in seats)

    def _deal(self, event: Event) -> None:
        private = event.private or {}
        seats = sorted(private)
        if len(seats) < 2:
            return
        strengths = [self.ranks.of(parse_cards(private[s]["hand"])) for s in seats]
        table = after_loss(self._left(seats, self.standing.get("lives")), len(seats), self.players)
        m = len(seats)
        if m <= ALL_ORDERS_UP_TO:
            orders: Sequence[Sequence[int]] = list(permutations(range(m)))
        else:
            orders = [[(i + k) % m for i in range(m)] for k in range(m)]
        values = [seat_values([strengths[p[i]] for i in range(m)], table, TEMPERATURES["deal"]) for p in orders]
        self.ledger.add("deal", values, 0, seats)

    def _draw(self, state: MatchState, seat: int, candidates: list[Card]) -> None:
        active = [s for s in range(self.players) if state.seats.active[s]]  # type: ignore[attr-defined]
        hands: list[list[Card]] = state.hands  # type: ignore[attr-defined]
        kept = hands[seat][:-1]
        mine = active.index(seat)
        strengths = [self.ranks.of(hands[s]) for s in active]
        table = after_loss(self._left(active, state.standing), len(active), self.players)  # type: ignore[attr-defined]
        kind = "draw" if state.knocker < 0 else "last draw"  # type: ignore[attr-defined]
        temperature = TEMPERATURES[kind]
        values = []
        for card in candidates:
            strengths[mine] = self.ranks.of([*kept, card])
            values.append(seat_values(strengths, table, temperature))
        self.ledger.add(kind, values, candidates.index(hands[seat][-1]), active)
