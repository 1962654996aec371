"""Empat Satu (41), docs/RULES.md 5.3: four cards each, draw or take, stop with four of a suit.

A turn is ``draw`` (the stock top) or ``take`` (the discard top; never on the hand's
very first turn, when there is no discard yet), then ``discard CARD`` (not the card
just taken).  Before drawing, a player holding four cards of one suit may ``stop``:
the hand ends.  Once the stock is empty a player either takes the discard top or
``pass``es, which ends the hand.  The highest net suit score wins and the lowest loses
(equal scores ordered by the lowest card of the counted suit); the loser deals the next
hand and the winner plays first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.cards import NAMES, Card, Stock, card_names
from arena.rules.game import Action, Event, Family
from arena.rules.hands import HandValue, check_hand
from arena.rules.net_suit import net_suit_key, net_suit_value, one_suit
from arena.rules.series import DISCARD, ROUNDS, SeriesState, cap_options

__all__ = ["EMPAT_SATU", "EmpatSatuFamily", "EmpatSatuState"]

HAND_SIZE: Final = 4

DRAW: Final = Action.of("draw")
TAKE: Final = Action.of("take")
STOP: Final = Action.of("stop")
PASS: Final = Action.of("pass")

_TURN, _DISCARD = 0, 1

OPTIONS: Final = (ROUNDS, *cap_options())


def hand_value(cards: Sequence[Card]) -> HandValue:
    """The net suit score, equal scores ordered by the lowest card of the counted suit."""
    return net_suit_value(cards, lowest_tiebreak=True)


class EmpatSatuState(SeriesState):
    """A match of Empat Satu: ``rounds`` hands, placed by wins minus losses, then total score."""

    def _setup(self) -> None:
        n = self.players
        self.wins: list[int] = [0] * n
        self.losses: list[int] = [0] * n
        self.totals: list[int] = [0] * n
        """Each seat's net suit scores added over the hands played."""
        self.first = self.dealer
        """The seat that plays first in the current hand (the dealer in the first hand)."""
        self.stock = Stock(())
        self.pile: list[Card] = []  # top card last
        self._taken: Card | None = None
        self._phase = _TURN
        self._winner = self._loser = -1  # of the hand just scored, when it has them

    # -- the game -------------------------------------------------------------------

    def _start_round(self) -> None:
        self._begin({"first": self.first, **self._standings()})
        self._winner = self._loser = -1
        stock = self._new_stock()
        self._deal(stock, self.seats.after(self.dealer), HAND_SIZE)
        self.stock = stock
        self.pile = []
        self._taken = None
        self._phase = _TURN
        self._seat = self.first
        self._moving = True
        self.log.append(Event(
            "deal", None, {"stock": len(self.stock)},
            {s: {"hand": card_names(self.hands[s])} for s in range(self.players) if self.seats.active[s]},
        ))

    def _legal_now(self) -> list[Action]:
        hand = self.hands[self._seat]
        if self._phase == _DISCARD:
            taken = self._taken
            return [DISCARD[c] for c in hand if c is not taken]
        legal = [STOP] if one_suit(hand) else []
        legal.append(DRAW if self.stock else PASS)
        if self.pile:
            legal.append(TAKE)
        return legal

    def _act(self, seat: int, action: Action) -> None:
        hand = self.hands[seat]
        if action.kind == "discard":
            card = action.cards[0]
            hand.remove(card)
            self.pile.append(card)
            self._taken = None
            self._phase = _TURN
            self.log.append(Event("action", seat, {"action": action.text}))
            if self._turn_capped():
                self._close("turn_cap", self._standings())
            else:
                self._seat = self.seats.next(seat)
        elif action is DRAW:
            card = self.stock.deal()
            hand.append(card)
            self._phase = _DISCARD
            self.log.append(Event("action", seat, {"action": DRAW.text}, {seat: {"card": NAMES[card]}}))
        elif action is TAKE:
            card = self._taken = self.pile.pop()
            hand.append(card)
            self._phase = _DISCARD
            self.log.append(Event("action", seat, {"action": TAKE.text, "card": NAMES[card]}))
        else:  # stop, or pass with the stock empty: the hand ends
            self.log.append(Event("action", seat, {"action": action.text}))
            self._showdown("stop" if action is STOP else "stock_out")

    def _showdown(self, end: str) -> None:
        """Highest key wins, lowest loses; the loser deals next and the winner plays first."""
        order = self.seats.order(self.first if self.seats.active[self.first] else self.seats.next(self.first))
        keys = {s: net_suit_key(self.hands[s]) for s in order}
        top, bottom = max(keys.values()), min(keys.values())
        winners = [s for s in order if top != bottom and keys[s] == top]
        losers = [s for s in order if top != bottom and keys[s] == bottom]
        if winners:  # the first of tied winners (losers) in turn order plays first (deals)
            self._winner, self._loser = winners[0], losers[0]
        for s in winners:
            self.wins[s] += 1
        for s in losers:
            self.losses[s] += 1
        for s, (value, _) in keys.items():
            self.totals[s] += value
        self._close(end, {
            "winners": winners,
            "losers": losers,
            "hands": {str(s): card_names(self.hands[s]) for s in order},
            "values": {str(s): value for s, (value, _) in keys.items()},
            **self._standings(),
        })

    def _rotate(self) -> None:
        """The loser deals and the winner plays first.  Without a winner (every hand
        equal, or the turn cap) the deal passes left and the dealer plays first, as in the
        first hand."""
        if self._winner >= 0:
            self.dealer, self.first = self._loser, self._winner
        else:
            self.dealer = self.first = self.seats.next(self.dealer)

    def _standings(self) -> dict[str, Any]:
        return {"wins": list(self.wins), "losses": list(self.losses), "totals": list(self.totals)}

    def _seat_left(self, seat: int) -> None:
        if seat == self._seat:
            self._taken = None
            self._phase = _TURN
            self._seat = self.seats.next(seat)

    def _standing_key(self, seat: int) -> tuple[int, ...]:
        return (self.wins[seat] - self.losses[seat], self.totals[seat])

    def _outcome_score(self, seat: int) -> float:
        return float(self.wins[seat] - self.losses[seat])

    # -- what a seat sees -------------------------------------------------------------

    def observe(self, seat: int) -> dict[str, Any]:
        moving = self._moving
        pile = self.pile
        obs: dict[str, Any] = {
            "seat": seat,
            "round": self._round,
            "dealer": self.dealer,
            "first": self.first,
            "to_move": self._seat if moving else None,
            "phase": ("turn", "discard")[self._phase] if moving else "over",
            "hand": [NAMES[c] for c in self.hands[seat]],
            "discard_top": NAMES[pile[-1]] if pile else None,
            "discard_size": len(pile),
            "stock": len(self.stock),
            **self._standings(),
            "active": list(self.seats.active),
        }
        if moving and self._phase == _DISCARD and seat == self._seat:
            obs["must_keep"] = NAMES[self._taken] if self._taken is not None else None
        return obs


class EmpatSatuFamily(Family):
    """Empat Satu: four-card hands, net suit scores, wins minus losses."""

    name = "empat-satu"
    options = OPTIONS
    state = EmpatSatuState

    def evaluate(self, cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
        check_hand(cards, HAND_SIZE)
        return hand_value(cards)


EMPAT_SATU: Final = EmpatSatuFamily()
