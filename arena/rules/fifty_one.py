"""Japanese Fifty-One (Goju Ichi), docs/RULES.md 5.1: five cards each, five face up on the table.

A turn is one decision: ``swap_one GIVE TAKE`` (a hand card for a table card), or from
one's second turn ``clear`` (the five table cards go out of play face down, five from
the stock replace them) followed by the swap the player must then make.  Saying *stop*
is part of the swap (``swap_one GIVE TAKE stop``): the player knows the table when it
swaps, so a separate decision would only cost a round trip.  After a stop every other
player has one last turn; then the highest net suit score wins the hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.cards import NAMES, Card, Stock, card_names, derive_seed
from arena.rules.game import Action, Event, Family
from arena.rules.hands import HandValue, check_hand
from arena.rules.net_suit import net_suit_key, net_suit_value
from arena.rules.series import RESHUFFLE, ROUNDS, SeriesState, cap_options, swap_one_actions

__all__ = ["FIFTY_ONE", "FiftyOneFamily", "FiftyOneState"]

HAND_SIZE: Final = 5
TABLE_SIZE: Final = 5
CLEAR: Final = Action.of("clear")
STOP: Final = "stop"

_TURN, _MUST_SWAP = 0, 1
_MAY_STOP: Final = ("", STOP)
_NO_STOP: Final = ("",)

OPTIONS: Final = (ROUNDS, *cap_options())


class FiftyOneState(SeriesState):
    """A match of Japanese Fifty-One: ``rounds`` hands, placed by hands won, then total score."""

    def _setup(self) -> None:
        n = self.players
        self.won: list[int] = [0] * n
        """Hands won by each seat."""
        self.totals: list[int] = [0] * n
        """Each seat's net suit scores added over the hands played."""
        self.table: list[Card] = []
        self.stock = Stock(())
        self.cleared: list[Card] = []
        self.stopper = -1
        self._owed: list[int] = []  # seats still owed a last turn after a stop, in order
        self._turns: list[int] = [0] * n
        self._phase = _TURN
        self._reshuffles = 0

    # -- the game -------------------------------------------------------------------

    def _start_round(self) -> None:
        self._begin(self._standings())
        order = self.seats.after(self.dealer)
        stock = self._new_stock()
        self._deal(stock, order, HAND_SIZE)
        self.table = stock.deal_many(TABLE_SIZE)
        self.stock = stock
        self.cleared = []
        self.stopper = -1
        self._owed = []
        self._turns = [0] * self.players
        self._phase = _TURN
        self._reshuffles = 0
        self._seat = order[0]
        self._moving = True
        self.log.append(Event(
            "deal", None, {"table": card_names(self.table), "stock": len(self.stock)},
            {s: {"hand": card_names(self.hands[s])} for s in order},
        ))

    def _legal_now(self) -> list[Action]:
        seat = self._seat
        legal = swap_one_actions(self.hands[seat], self.table, _MAY_STOP if self.stopper < 0 else _NO_STOP)
        if self._phase == _TURN and self._turns[seat]:
            legal.append(CLEAR)
        return legal

    def _act(self, seat: int, action: Action) -> None:
        if action is CLEAR:
            self._clear(seat)
            return
        give, take = action.cards
        hand = self.hands[seat]
        hand.remove(give)
        hand.append(take)
        self.table[self.table.index(take)] = give
        self.log.append(Event("action", seat, {"action": action.text}))
        self._turns[seat] += 1
        self._phase = _TURN
        if action.arg == STOP:
            self.stopper = seat
            self._owed = self.seats.after(seat)[:-1]
        elif self._owed:
            self._owed.pop(0)
        if self._turn_capped():
            self._close("turn_cap", self._standings())
        elif self.stopper >= 0 and not self._owed:
            self._showdown()
        else:
            self._seat = self._owed[0] if self._owed else self.seats.next(seat)

    def _clear(self, seat: int) -> None:
        """The table goes out of play face down; five from the stock replace it.  A stock
        too short is shuffled (seeded) with every cleared card into a new stock."""
        self.cleared += self.table
        if len(self.stock) < TABLE_SIZE:
            self._reshuffles += 1
            rest = self.stock.deal_many(len(self.stock))
            seed = derive_seed(self.seed, RESHUFFLE, self._round, self._reshuffles)
            self.stock = Stock(rest + self.cleared, seed)
            self.cleared = []
            self.log.append(Event("reshuffle", None, {"stock": len(self.stock)}))
        self.table = self.stock.deal_many(TABLE_SIZE)
        self._phase = _MUST_SWAP
        self.log.append(Event("action", seat, {"action": CLEAR.text, "table": card_names(self.table)}))

    def _showdown(self) -> None:
        """The highest score wins; a non-stopper tied with the stopper wins instead of it."""
        values = {s: net_suit_key(self.hands[s])[0] for s in range(self.players) if self.seats.active[s]}
        top = max(values.values())
        winners = [s for s, v in values.items() if v == top]
        if len(winners) > 1 and self.stopper in winners:
            winners.remove(self.stopper)
        for s in winners:
            self.won[s] += 1
        for s, v in values.items():
            self.totals[s] += v
        self._close("showdown", {
            "stopper": self.stopper if self.stopper >= 0 else None,
            "winners": winners,
            "hands": {str(s): card_names(self.hands[s]) for s in values},
            "values": {str(s): v for s, v in values.items()},
            **self._standings(),
        })

    def _standings(self) -> dict[str, Any]:
        return {"hands_won": list(self.won), "totals": list(self.totals)}

    def _seat_left(self, seat: int) -> None:
        if seat in self._owed:
            self._owed.remove(seat)
        if seat != self._seat:
            return
        self._phase = _TURN
        if self.stopper >= 0 and not self._owed:
            self._showdown()
        else:
            self._seat = self._owed[0] if self._owed else self.seats.next(seat)

    def _standing_key(self, seat: int) -> tuple[int, ...]:
        return (self.won[seat], self.totals[seat])

    def _outcome_score(self, seat: int) -> float:
        return float(self.won[seat])

    # -- what a seat sees -------------------------------------------------------------

    def observe(self, seat: int) -> dict[str, Any]:
        phase = ("over" if not self._moving else "must_swap" if self._phase == _MUST_SWAP
                 else "last_turn" if self.stopper >= 0 else "turn")
        return {
            **self._view(seat, phase),
            "table": [NAMES[c] for c in self.table],
            "stock": len(self.stock),
            "cleared": len(self.cleared),
            "stopper": self.stopper if self.stopper >= 0 else None,
            "turns": list(self._turns),
            "hands_won": list(self.won),
            "totals": list(self.totals),
            "active": list(self.seats.active),
        }


class FiftyOneFamily(Family):
    """Japanese Fifty-One: swap with the table, clear it, stop; net suit scores."""

    name = "fifty-one"
    options = OPTIONS
    state = FiftyOneState

    def evaluate(self, cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
        check_hand(cards, HAND_SIZE)
        return net_suit_value(cards)


FIFTY_ONE: Final = FiftyOneFamily()
