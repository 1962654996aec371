"""Chinese Fifty-One, docs/RULES.md 5.2 and source text 000: counter-clockwise, knock and challenge.

Play passes to the right (seat numbers falling), and so does the deal.  The player to
the dealer's right draws first; after five rounds of drawing it draws a sixth card and
discards it or another face up (``discard CARD``).  A turn is then one of ``draw``
(followed by ``discard CARD``; five face-up cards go out of play first), ``trade
CARDS`` (the cards given for all the face-up cards), ``swap_one GIVE TAKE`` (only with
five face up) or ``knock``.  A knock opens the challenge round: every other player in
turn says ``challenge`` or ``pass``.  A turn that leaves a clear count (51 in one suit)
is followed by the holder's choice to ``knock`` (ending the hand at once) or ``pass``.

How the hand is scored is :func:`hand_points`; the readings of source text 000 it encodes are
in docs/RULES-NOTES.md.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from itertools import combinations
from typing import Any, Final

from arena.cards import NAMES, Card, Stock, card_names
from arena.rules.game import Action, Event, Family
from arena.rules.hands import HandValue, check_hand
from arena.rules.net_suit import (
    is_clear_count,
    net_suit_key,
    net_suit_value,
    one_suit,
    suit_sum,
    suit_sum_value,
)
from arena.rules.options import OptionSpec
from arena.rules.series import DISCARD, SeriesState, cap_options, swap_one_actions

__all__ = ["CHINESE_FIFTY_ONE", "ChineseFiftyOneFamily", "ChineseFiftyOneState", "hand_points"]

HAND_SIZE: Final = 5
FACE_UP_MAX: Final = 5
CLEAR_COUNT_POINTS: Final = 102
POINTS_MAX_ROUNDS: Final = 500
"""The round cap of a points game (docs/RULES.md 1)."""

DRAW: Final = Action.of("draw")
KNOCK: Final = Action.of("knock")
PASS: Final = Action.of("pass")
CHALLENGE: Final = Action.of("challenge")

_FIRST_DISCARD, _TURN, _DISCARD, _CLEAR_COUNT, _CHALLENGE = range(5)
_PHASES: Final = ("first_discard", "turn", "discard", "clear_count", "challenge")

OPTIONS: Final = (
    OptionSpec("target", "int", 500, "points that end the game after the hand that reaches them", minimum=1),
    OptionSpec("hand_value", "choice", "suit_sum", "what a hand is worth: its best suit's points, "
               "or the net suit score (docs/RULES.md 2)", choices=("suit_sum", "net_suit")),
    OptionSpec("tie_playoff", "bool", True, "players tied for the lead at the target play another hand"),
    *cap_options(POINTS_MAX_ROUNDS),
)


def _value(cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
    return net_suit_value(cards) if options["hand_value"] == "net_suit" else suit_sum_value(cards)


def hand_points(
    values: Mapping[int, int],
    caller: int | None = None,
    challengers: Sequence[int] = (),
    clear: Collection[int] = (),
    one_suited: Collection[int] = (),
) -> dict[int, int]:
    """Points each seat of ``values`` (its hand's value) scores for the hand.

    A clear count decides alone: each holder in ``clear`` scores 102, the others of
    ``one_suited`` (five cards of one suit) their value, everyone else 0.  Otherwise a
    seat that neither knocked (``caller``) nor challenged scores its value.  With no
    challenger the caller scores its value too.  Else the best challenger (the last to
    challenge among those tied) wins if it is equal to or higher than the caller and
    scores the caller's value plus every challenger's; otherwise the caller scores its
    own value plus every challenger's.  The caller and the challengers who do not win
    score 0.  ``challengers`` is in the order the challenges were made.
    """
    if clear:
        return {s: CLEAR_COUNT_POINTS if s in clear else (v if s in one_suited else 0) for s, v in values.items()}
    points = dict(values)
    if caller is None or not challengers:
        return points
    best = challengers[0]
    for s in challengers[1:]:
        if values[s] >= values[best]:
            best = s
    winner = best if values[best] >= values[caller] else caller
    pot = values[caller] + sum(values[s] for s in challengers)
    for s in (caller, *challengers):
        points[s] = pot if s == winner else 0
    return points


class ChineseFiftyOneState(SeriesState):
    """A match of Chinese Fifty-One: hands until a player reaches ``target`` points."""

    step = -1
    default_max_rounds = POINTS_MAX_ROUNDS

    def _setup(self) -> None:
        self.points: list[int] = [0] * self.players
        self.face_up: list[Card] = []
        self.stock = Stock(())
        self.out: list[Card] = []
        self.caller = -1
        self.challengers: list[int] = []
        self._pending: list[int] = []  # seats still to decide on challenging, in order
        self._net_suit = self.options["hand_value"] == "net_suit"
        self._phase = _TURN

    # -- the game -------------------------------------------------------------------

    def _start_round(self) -> None:
        self._begin({"points": list(self.points)})
        order = self.seats.after(self.dealer)
        stock = self._new_stock()
        self._deal(stock, order, HAND_SIZE)
        self.hands[order[0]].append(stock.deal())
        self.stock = stock
        self.face_up = []
        self.out = []
        self.caller = -1
        self.challengers = []
        self._pending = []
        self._phase = _FIRST_DISCARD
        self._seat = order[0]
        self._moving = True
        self.log.append(Event(
            "deal", None, {"first": order[0], "stock": len(self.stock)},
            {s: {"hand": card_names(self.hands[s])} for s in order},
        ))

    def _legal_now(self) -> list[Action]:
        phase = self._phase
        hand = self.hands[self._seat]
        if phase in (_FIRST_DISCARD, _DISCARD):
            return [DISCARD[c] for c in sorted(hand)]
        if phase == _CLEAR_COUNT:
            return [KNOCK, PASS]
        if phase == _CHALLENGE:
            return [CHALLENGE, PASS]
        legal = [DRAW] if self.stock else []
        if self.face_up:
            legal += [Action.of("trade", *give) for give in combinations(sorted(hand), len(self.face_up))]
        if len(self.face_up) == FACE_UP_MAX:
            legal += swap_one_actions(hand, self.face_up)
        legal.append(KNOCK)
        return legal

    def _act(self, seat: int, action: Action) -> None:
        kind = action.kind
        phase = self._phase
        if phase == _CHALLENGE:
            self._challenge(seat, action is CHALLENGE)
        elif phase == _CLEAR_COUNT:
            self.log.append(Event("action", seat, {"action": action.text}))
            if action is KNOCK:
                self._score("clear_count")
            else:
                self._pass_turn(seat)
        elif kind == "discard":
            self.hands[seat].remove(action.cards[0])
            self.face_up.append(action.cards[0])
            self.log.append(Event("action", seat, {"action": action.text}))
            if phase == _FIRST_DISCARD:
                self._pass_turn(seat)
            else:
                self._end_turn(seat)
        elif action is DRAW:
            self._draw(seat)
        elif action is KNOCK:
            self.log.append(Event("action", seat, {"action": action.text}))
            self.caller = seat
            self._pending = self.seats.after(seat)[:-1]
            self._phase = _CHALLENGE
            self._seat = self._pending[0]
        else:
            self._exchange(seat, action)
            self._end_turn(seat)

    def _draw(self, seat: int) -> None:
        """Stock top to the hand; five face-up cards go out of play before the discard."""
        card = self.stock.deal()
        public: dict[str, Any] = {"action": DRAW.text}
        if len(self.face_up) == FACE_UP_MAX:
            self.out += self.face_up
            self.face_up = []
            public["out_of_play"] = FACE_UP_MAX
        self.hands[seat].append(card)
        self._phase = _DISCARD
        self.log.append(Event("action", seat, public, {seat: {"card": NAMES[card]}}))

    def _exchange(self, seat: int, action: Action) -> None:
        """A trade (every face-up card for as many hand cards) or a one-card swap."""
        if action.kind == "trade":
            given, taken = list(action.cards), self.face_up
            self.face_up = given[:]
        else:
            give, take = action.cards
            given, taken = [give], [take]
            self.face_up[self.face_up.index(take)] = give
        hand = self.hands[seat]
        for card in given:
            hand.remove(card)
        hand += taken
        self.log.append(Event("action", seat, {"action": action.text}))

    def _end_turn(self, seat: int) -> None:
        """After a full turn: an empty stock ends the hand; a clear count may knock."""
        self._phase = _TURN
        if self._turn_capped():
            self._close("turn_cap", {"points_won": [0] * self.players, "points": list(self.points)})
        elif not self.stock:
            self._score("stock_out")
        elif is_clear_count(self.hands[seat]):
            self._phase = _CLEAR_COUNT
        else:
            self._pass_turn(seat)

    def _pass_turn(self, seat: int) -> None:
        self._phase = _TURN
        self._seat = self.seats.next(seat)

    def _challenge(self, seat: int, challenges: bool) -> None:
        self.log.append(Event("action", seat, {"action": (CHALLENGE if challenges else PASS).text}))
        if challenges:
            self.challengers.append(seat)
        self._pending.pop(0)
        if self._pending:
            self._seat = self._pending[0]
        else:
            self._score("knock")

    def _score(self, end: str) -> None:
        """Show the hands and score them (:func:`hand_points`)."""
        seats = [s for s in range(self.players) if self.seats.active[s]]
        hands = self.hands
        values = {s: self._points(hands[s]) for s in seats}
        won = hand_points(
            values,
            self.caller if self.caller >= 0 else None,
            self.challengers,
            [s for s in seats if is_clear_count(hands[s])],
            [s for s in seats if one_suit(hands[s])],
        )
        change = [won.get(s, 0) for s in range(self.players)]
        for s in seats:
            self.points[s] += change[s]
        self._close(end, {
            "caller": self.caller if self.caller >= 0 else None,
            "challengers": list(self.challengers),
            "hands": {str(s): card_names(hands[s]) for s in seats},
            "values": {str(s): v for s, v in values.items()},
            "points_won": change,
            "points": list(self.points),
        })

    def _points(self, hand: Sequence[Card]) -> int:
        """A hand's value under ``hand_value``: the fast path of the family's ``evaluate``."""
        return net_suit_key(hand)[0] if self._net_suit else suit_sum(hand)

    def _seat_left(self, seat: int) -> None:
        if seat in self.challengers:
            self.challengers.remove(seat)
        if self._phase == _CHALLENGE:
            if seat == self.caller:  # no call left to challenge: the hand is scored as it stands
                self.caller = -1
                self.challengers = []
                self._score("knock")
                return
            if seat in self._pending:
                self._pending.remove(seat)
            if not self._pending:
                self._score("knock")
            else:
                self._seat = self._pending[0]
        elif seat == self._seat:
            self._pass_turn(seat)

    def _match_over(self) -> str | None:
        top = max(self.points[s] for s in range(self.players) if self.seats.active[s])
        if top < self.options["target"]:
            return None
        leaders = sum(1 for s in range(self.players) if self.seats.active[s] and self.points[s] == top)
        return None if leaders > 1 and self.options["tie_playoff"] else "target reached"

    def _standing_key(self, seat: int) -> tuple[int, ...]:
        return (self.points[seat],)

    def _outcome_score(self, seat: int) -> float:
        return float(self.points[seat])

    # -- what a seat sees -------------------------------------------------------------

    def observe(self, seat: int) -> dict[str, Any]:
        return {
            **self._view(seat, _PHASES[self._phase] if self._moving else "over"),
            "face_up": [NAMES[c] for c in self.face_up],
            "stock": len(self.stock),
            "out_of_play": len(self.out),
            "caller": self.caller if self.caller >= 0 else None,
            "challengers": list(self.challengers),
            "points": list(self.points),
            "active": list(self.seats.active),
        }


class ChineseFiftyOneFamily(Family):
    """Chinese Fifty-One: draw, trade, swap or knock; the challenge round; game to 500."""

    name = "fifty-one-chinese"
    options = OPTIONS
    state = ChineseFiftyOneState

    def evaluate(self, cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
        check_hand(cards, HAND_SIZE)
        return _value(cards, options)


CHINESE_FIFTY_ONE: Final = ChineseFiftyOneFamily()
