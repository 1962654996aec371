"""The draw-and-discard family: Scat / Blitz / Thirty-One and its presets (docs/RULES.md section 3).

One state machine covers lives games (``scat`` and relatives), the points game
(``no-elimination``) and the chips game (``banking``); the presets differ only in option
values.  A turn is one or two decisions: ``draw``/``take`` then ``discard CARD``, or a
single ``knock``, ``stand`` (last turns) or ``exchange`` (banking).

Longer than most modules: one family's state machine, read top to bottom like the rules it
follows (deal, turn, blitz, knock, showdown, scoring); the shared series machinery is in
:mod:`arena.rules.series`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from itertools import combinations
from typing import Any, Final

from arena.cards import NAMES, POINTS, Card, Stock, card_names, derive_seed
from arena.rules.game import Action, Event, Family
from arena.rules.hands import (
    ACES_33,
    BLITZ,
    HandValue,
    check_hand,
    json_number,
    special_values,
    thirty_one_points,
    thirty_one_value,
)
from arena.rules.options import OptionSpec
from arena.rules.series import DISCARD, RESHUFFLE, SeriesState

__all__ = ["ThirtyOneFamily", "ThirtyOneState", "THIRTY_ONE"]

DRAW: Final = Action.of("draw")
TAKE: Final = Action.of("take")
KNOCK: Final = Action.of("knock")
STAND: Final = Action.of("stand")

_TURN, _DISCARD = 0, 1
_PHASES: Final = ("turn", "discard")  # observation names of the phases
_LAST_PHASES: Final = ("last_turn", "discard")  # the same after a knock
POINTS_MAX_ROUNDS: Final = 500
"""The round cap of a points game (docs/RULES.md 1)."""
_CHANGE_KEYS: Final = {"lives": "lives_lost", "points": "points_won", "chips": "chips_won"}
_SEAT_KEYS: Final = tuple(str(seat) for seat in range(64))  # seats as JSON object keys

OPTIONS: Final = (
    OptionSpec("deck", "choice", 52, "deck size: 52 (full) or 32 (7 to A)", choices=(52, 32)),
    OptionSpec("scoring", "choice", "lives", "what a round changes: lives (elimination), points, chips",
               choices=("lives", "points", "chips")),
    OptionSpec("lives", "int", 3, "lives (tokens) each player starts with", minimum=1),
    OptionSpec("free_ride", "bool", True, "at zero lives a player plays on until its next loss"),
    OptionSpec("trips", "choice", "none", "value of three of a rank", choices=("none", "30", "30.5")),
    OptionSpec("three_aces", "choice", "none", "value of three aces (33 acts like a blitz and beats it)",
               choices=("none", "32", "33")),
    OptionSpec("blitz_only_akt", "bool", False, "a blitz must be exactly A K T of one suit"),
    OptionSpec("tiebreak", "choice", "cards", "how equal values are split when the highest hand is found",
               choices=("cards", "suit", "none")),
    OptionSpec("knock_first_turn", "bool", True, "a player may knock on its first turn of the round"),
    OptionSpec("knocker_penalty", "int", 2, "lives a knocker who is lowest alone loses", minimum=0),
    OptionSpec("knocker_tie", "choice", "safe", "a knocker tied for lowest is safe, or loses knocker_penalty",
               choices=("safe", "loses")),
    OptionSpec("knocker_must_beat", "bool", False,
               "a knocker who beats nobody loses knocker_penalty and nobody else loses (West Lansing)"),
    OptionSpec("knocker_blitz_penalty", "int", 1, "lives a knocker loses to a blitz", minimum=0),
    OptionSpec("out_of_the_gate", "bool", False,
               "the first player's first-turn knock ends the round at once; dealt 31s wait for it "
               "(off when knock_first_turn is no)"),
    OptionSpec("blitz_on_turn", "bool", False, "a blitz counts only when shown by knocking on one's own turn"),
    OptionSpec("stock_out", "choice", "draw", "empty stock before a knock: the round is a draw, or the "
               "discard pile (but its top) is reshuffled", choices=("draw", "reshuffle")),
    OptionSpec("bankroll", "int", 20, "chips each player starts with (chips scoring)", minimum=1),
    OptionSpec("widow", "bool", False, "deal a face-down three-card widow players may exchange with (banking)"),
    OptionSpec("rounds", "int", None, "rounds in a points or chips match", minimum=1,
               default_text="auto: 2 x players (points), 5 x players (chips)"),
    OptionSpec("max_rounds", "int", None, "round cap; players still in are then placed by standing",
               minimum=1, default_text="auto: 200, or 500 for points games"),
    OptionSpec("max_turns", "int", 500, "turns in one round before it is called a draw (a safeguard "
               "against players that never end a round)", minimum=1),
)


def evaluate_hand(cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
    """A hand's value under this family's options (no input checks: the engine's hot path)."""
    return thirty_one_value(
        cards,
        trips=options["trips"],
        three_aces=options["three_aces"],
        blitz_only_akt=options["blitz_only_akt"],
        tiebreak=options["tiebreak"],
    )


@cache
def _rotations(players: int) -> tuple[tuple[int, ...], ...]:
    """Each dealer's seats from its left, itself last: the turn order before eliminations."""
    n = players
    return tuple(tuple((d + k) % n for k in range(1, n + 1)) for d in range(n))


class ThirtyOneState(SeriesState):
    """A match of the draw-and-discard family."""

    def _setup(self) -> None:
        o = self.options
        n = self.players
        self._scoring: str = o["scoring"]
        self._rotations = _rotations(n)
        self._rounds_total: int | None = None
        if self._scoring == "points":
            self._rounds_total = o["rounds"] or 2 * n
            self._max_rounds = o["max_rounds"] or POINTS_MAX_ROUNDS
        elif self._scoring == "chips":
            self._rounds_total = o["rounds"] or 5 * n
        start = {"lives": o["lives"], "chips": o["bankroll"], "points": 0}[self._scoring]
        self.standing: list[int] = [start] * n
        """Lives, chips or points of each seat (by ``scoring``)."""
        self._out_round: list[int] = [0] * n
        self.pot = 0
        self.stock = Stock(())
        self.pile: list[Card] = []  # top card last
        self.widow: list[Card] = []
        self.widow_up: list[bool] = []
        self.knocker = -1
        self._phase = _TURN
        self._last_turns = 0
        self._turns: list[int] = [0] * n
        self._taken: Card | None = None
        self._stock_emptied = False
        self._gate = False
        self._reshuffles = 0
        self._aces_33 = o["three_aces"] == "33"
        self._akt_only = bool(o["blitz_only_akt"])
        self._blitz_on_turn = bool(o["blitz_on_turn"])
        self._trips_value, self._aces_value = special_values(o["trips"], o["three_aces"])
        self._standing_view: tuple[int, ...] = ()
        self._active_view: tuple[bool, ...] = ()
        self._publish_standing()

    # -- the series' hooks -------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """The series' cached legal actions, computed in the same call: the arena's
        hottest path (every decision of every bot) saves a call."""
        legal = self._legal
        if legal is not None:
            return legal
        if not self._moving:
            legal = []
        elif self._phase == _DISCARD:
            taken = self._taken
            legal = [DISCARD[c] for c in self.hands[self._seat] if c is not taken]
        else:
            legal = [DRAW] if self.stock.left else []
            if self.pile:
                legal.append(TAKE)
            seat = self._seat
            o = self.options
            if self.knocker < 0:
                if self._turns[seat] or o["knock_first_turn"] or self._gate or (
                    o["blitz_on_turn"] and self._special(seat)
                ):
                    legal.append(KNOCK)
            else:
                legal.append(STAND)
                if o["blitz_on_turn"] and self._special(seat):
                    legal.append(KNOCK)
            if self.widow:
                legal.extend(self._exchanges())
        self._legal = legal
        return legal

    _legal_now = legal_actions

    def apply(self, action: Action) -> None:
        """The series' apply with this family's moves inline (no ``_act``): one call fewer
        at every decision of the arena's most played family."""
        legal = self._legal if self._legal is not None else self.legal_actions()
        for candidate in legal:  # identity first: legal actions are interned
            if candidate is action:
                break
        else:
            action = self._interned(legal, action)
        self._legal = None
        seat = self._seat
        kind = action.kind
        hand = self.hands[seat]
        if kind == "discard":
            card = action.cards[0]
            hand.remove(card)
            self.pile.append(card)
            self._taken = None
            self.log.append(Event("action", seat, {"action": action.text}))
            self._end_turn(seat)
        elif kind == "draw":
            card = self.stock.deal()
            hand.append(card)
            self._phase = _DISCARD
            self.log.append(Event("action", seat, {"action": "draw"}, {seat: {"card": NAMES[card]}}))
            if not self.stock.left and self.knocker < 0:
                self._stock_emptied = True
        elif kind == "take":
            card = self.pile.pop()
            hand.append(card)
            self._taken = card
            self._phase = _DISCARD
            self.log.append(Event("action", seat, {"action": "take", "card": NAMES[card]}))
        elif kind == "knock":
            self.log.append(Event("action", seat, {"action": "knock"}))
            self._knock(seat)
        elif kind == "stand":
            self.log.append(Event("action", seat, {"action": "stand"}))
            self._end_turn(seat)
        else:  # exchange with the widow
            self._exchange(seat, action)
            self._end_turn(seat)

    def observe(self, seat: int) -> dict[str, Any]:
        pile = self.pile
        phase = self._phase
        moving = self._moving
        knocker = self.knocker
        obs: dict[str, Any] = {
            "seat": seat,
            "round": self._round,
            "dealer": self.dealer,
            "to_move": self._seat if moving else None,
            "phase": (_PHASES if knocker < 0 else _LAST_PHASES)[phase] if moving else "over",
            "hand": [NAMES[c] for c in self.hands[seat]],
            "discard_top": NAMES[pile[-1]] if pile else None,
            "discard_size": len(pile),
            "stock": self.stock.left,
            "knocker": knocker if knocker >= 0 else None,
            "active": self._active_view,
        }  # constant keys only: the dict is built presized
        obs[self._scoring] = self._standing_view
        if moving and phase == _DISCARD and seat == self._seat:
            obs["must_keep"] = NAMES[self._taken] if self._taken is not None else None
        if self.widow:
            obs["widow"] = [NAMES[c] if up else None for c, up in zip(self.widow, self.widow_up)]
            obs["pot"] = self.pot
        return obs

    def _publish_standing(self) -> None:
        """Refresh the immutable views of lives/chips/points that observations share."""
        self._standing_view = tuple(self.standing)
        self._active_view = tuple(self.seats.active)

    def _leave(self, seat: int) -> None:
        """A seat still owed a last turn after a knock (from the seat to move on) owes none."""
        if self.knocker >= 0:
            s = self._seat
            for _ in range(self._last_turns):
                if s == seat:
                    self._last_turns -= 1
                    break
                s = self.seats.next(s)
        super()._leave(seat)
        self._publish_standing()

    def _seat_left(self, seat: int) -> None:
        if self.knocker >= 0 and self._last_turns == 0:  # it was the last seat owed a turn
            self._showdown()
            return
        to_move = seat == self._seat
        if to_move:
            self._taken = None
            self._phase = _TURN
            self._seat = self.seats.next(seat)
        if self._gate and to_move:  # the first player left before deciding on knocking out of the gate
            self._gate = False
            if not self._blitz_on_turn:
                self._check_blitz(self._turn_order())

    # -- rounds -------------------------------------------------------------------

    def _start_round(self) -> None:
        o = self.options
        n = self.players
        if self._scoring == "chips":
            for s in range(n):
                if self.seats.active[s] and self.standing[s] < 1:
                    self.seats.active[s] = False
                    self._out_round[s] = self._round + 1
            if self.seats.count < 2:
                self._finish("one player holds every chip")
                return
        self._begin({self._scoring: list(self.standing)})
        order = self._turn_order()
        if self._scoring == "chips":
            for s in order:
                self.standing[s] -= 1
            self.pot += len(order)
            self._publish_standing()  # lives and points change only when a round ends
        deck = self._new_stock()
        hands = self.hands = [[] for _ in range(n)]
        per_pass = len(order) + (1 if o["widow"] else 0)
        dealt = deck.deal_many(3 * per_pass + 1)
        dealt_hands: dict[int, dict[str, Any]] = {}
        for i, s in enumerate(order):  # one loop, no comprehension per seat: deals are hot
            hand = hands[s] = dealt[i : 3 * per_pass : per_pass]
            a, b, c = hand
            dealt_hands[s] = {"hand": [NAMES[a], NAMES[b], NAMES[c]]}
        self.widow = dealt[len(order) : 3 * per_pass : per_pass] if o["widow"] else []
        self.widow_up = [False] * len(self.widow)
        self.pile = [dealt[-1]]
        self.stock = deck
        self.knocker = -1
        self._turns = [0] * n
        self._taken = None
        self._stock_emptied = False
        self._reshuffles = 0
        self._seat = order[0]
        self._phase = _TURN
        self._moving = True
        # An explicit knock_first_turn = no wins over the preset's gate (docs/RULES.md 5b).
        self._gate = bool(o["out_of_the_gate"] and o["knock_first_turn"])
        public: dict[str, Any] = {"upcard": NAMES[dealt[-1]], "stock": deck.left}
        if self.widow:
            public["widow"] = len(self.widow)
        if self._scoring == "chips":
            public["pot"] = self.pot
        self.log.append(Event("deal", None, public, dealt_hands))
        if not o["blitz_on_turn"] and not self._gate:
            self._check_blitz(order)

    def _special(self, seat: int) -> int:
        """0, BLITZ or ACES_33 for ``seat``'s hand: the per-turn check, kept cheap."""
        a, b, c = self.hands[seat]
        if self._aces_33 and a >> 2 == b >> 2 == c >> 2 == 12:
            return ACES_33
        blitz = a & 3 == b & 3 == c & 3 and POINTS[a] + POINTS[b] + POINTS[c] == 31
        if blitz and (not self._akt_only or sorted((a >> 2, b >> 2, c >> 2)) == [8, 11, 12]):
            return BLITZ
        return 0

    def _check_blitz(self, seats: Sequence[int]) -> bool:
        """End the round if any of ``seats`` holds a blitz; True if it did."""
        hands = self.hands
        top, holders = 0, []
        for seat in seats:  # every seat at every deal: only a flush or trips needs the full test
            a, b, c = hands[seat]
            if a & 3 == b & 3 == c & 3 or a >> 2 == b >> 2 == c >> 2:
                level = self._special(seat)
                if level > top:
                    top, holders = level, [seat]
                elif level and level == top:
                    holders.append(seat)
        if top:
            self._blitz(holders)
            return True
        return False

    def _knock(self, seat: int) -> None:
        if self.options["blitz_on_turn"] and self._special(seat):
            self._blitz([seat])
            return
        gate = self._gate
        self._gate = False
        self.knocker = seat
        self._turns[seat] += 1
        self._last_turns = self.seats.count - 1
        if gate or self._last_turns == 0:
            self._showdown()
        else:
            self._seat = self.seats.next(seat)
            self._phase = _TURN

    def _end_turn(self, seat: int) -> None:
        self._turns[seat] += 1
        self._phase = _TURN
        if self._gate:  # the first player declined to knock out of the gate: dealt 31s now count
            self._gate = False
            if not self._blitz_on_turn and self._check_blitz(
                [seat] + [s for s in self._turn_order() if s != seat]
            ):
                return
        elif not self._blitz_on_turn:
            a, b, c = self.hands[seat]  # only a flush or trips can be special: test inline
            if (a & 3 == b & 3 == c & 3 or a >> 2 == b >> 2 == c >> 2) and self._special(seat):
                self._blitz([seat])
                return
        if self.knocker >= 0:
            self._last_turns -= 1
            if self._last_turns == 0:
                self._showdown()
                return
        elif self._stock_emptied:
            if self.options["stock_out"] == "draw":
                self._end_round("draw", [0] * self.players, {})
                return
            self._reshuffle()
        self._round_turns += 1  # the series' _turn_capped, inline on the hot path
        if self._round_turns >= self._max_turns:
            self._end_round("turn_cap", [0] * self.players, {})
            return
        self._seat = self.seats.next(seat)

    def _turn_order(self) -> list[int]:
        """The seats still in, from the dealer's left."""
        active = self.seats.active
        return [seat for seat in self._rotations[self.dealer] if active[seat]]

    def _reshuffle(self) -> None:
        self._stock_emptied = False
        if len(self.pile) < 2:
            return
        self._reshuffles += 1
        top = self.pile.pop()
        seed = derive_seed(self.seed, RESHUFFLE, self._round, self._reshuffles)
        self.stock = Stock(self.pile, seed)
        self.pile = [top]
        self.log.append(Event("reshuffle", None, {"stock": len(self.stock)}))

    def _exchanges(self) -> list[Action]:
        hand = sorted(self.hands[self._seat])
        widow = range(len(self.widow))
        out = []
        for k in range(1, min(3, len(self.widow)) + 1):
            for give in combinations(hand, k):
                for take in combinations(widow, k):
                    out.append(Action.of("exchange", *give, arg="for " + " ".join(map(str, take))))
        return out

    def _exchange(self, seat: int, action: Action) -> None:
        positions = [int(p) for p in action.arg.split()[1:]]
        hand = self.hands[seat]
        received = [self.widow[p] for p in positions]
        public: dict[str, Any] = {
            "action": action.text,
            "taken_face_up": [str(self.widow[p]) for p in positions if self.widow_up[p]],
        }
        for give, p in zip(action.cards, positions):
            hand.remove(give)
            hand.append(self.widow[p])
            self.widow[p] = give
            self.widow_up[p] = True
        self.log.append(Event("action", seat, public, {seat: {"received": card_names(received)}}))

    # -- round ends -----------------------------------------------------------------

    def _value(self, seat: int) -> float:
        return thirty_one_points(self.hands[seat], self._trips_value, self._aces_value)

    def _blitz(self, blitzers: list[int]) -> None:
        n = self.players
        change = [0] * n
        if self._scoring == "lives":
            for s in range(n):
                if self.seats.active[s] and s not in blitzers:
                    change[s] = -(self.options["knocker_blitz_penalty"] if s == self.knocker else 1)
        elif self._scoring == "points":
            for s in blitzers:
                change[s] = 6
        else:
            for s in range(n):
                if self.seats.active[s] and s not in blitzers and self.standing[s] > 0:
                    change[s] = -1
                    self.pot += 1
            self._share_pot(blitzers, change)
        self._end_round("blitz", change, {s: self._value(s) for s in blitzers}, blitzers)

    def _share_pot(self, winners: list[int], change: list[int]) -> None:
        share = self.pot // len(winners)
        for s in winners:
            change[s] += share
        self.pot -= share * len(winners)

    def _showdown(self) -> None:
        """Score a round that ends with hands shown: losing is decided on value alone."""
        n = self.players
        hands, active, trips, aces = self.hands, self.seats.active, self._trips_value, self._aces_value
        values = {s: thirty_one_points(hands[s], trips, aces) for s in range(n) if active[s]}
        change = [0] * n
        knocker = self.knocker if self.knocker >= 0 and self.seats.active[self.knocker] else -1
        o = self.options
        if self._scoring == "lives":
            low = min(values.values())
            losers = [s for s, v in values.items() if v == low]
            if o["knocker_must_beat"] and knocker >= 0 and values[knocker] == low:  # beats nobody
                change[knocker] = -o["knocker_penalty"]
            else:
                for s in losers:
                    if s != knocker:
                        change[s] = -1
                    elif len(losers) == 1 or o["knocker_tie"] == "loses":
                        change[s] = -o["knocker_penalty"]
        elif self._scoring == "points":
            ranked = sorted(values, key=values.__getitem__, reverse=True)
            last = len(ranked) - 1
            for s in ranked:
                first = next(j for j, t in enumerate(ranked) if values[t] == values[s])
                category = 0 if first == 0 else (2 if first == last else 1)
                change[s] = ((3, 2, 1), (4, 1, 0))[s == knocker][category]
        else:  # the highest hand, by the cards tie-break, takes the pot
            shown = {s: evaluate_hand(self.hands[s], o) for s in values}
            self._share_pot([s for s, h in shown.items()
                             if not any(h.loses_to(other, highest=True) for other in shown.values())], change)
        self._end_round("showdown", change, values)

    def _end_round(self, end: str, change: list[int], shown: Mapping[int, float],
                   blitzers: Sequence[int] = ()) -> None:
        """Apply a round's result and log it; the series deals the next round or finishes the match."""
        n = self.players
        cancelled = False
        eliminated: list[int] = []
        if self._scoring == "lives":
            floor = 0 if self.options["free_ride"] else 1
            after = self.standing[:]
            for s, lost in enumerate(change):  # seats out never lose: only the changes matter
                if lost:
                    after[s] += lost
                    if after[s] < floor:
                        eliminated.append(s)
            if eliminated and len(eliminated) == self.seats.count:
                cancelled, eliminated = True, []
            else:
                self.standing = after
        else:
            for s in range(n):
                self.standing[s] += change[s]
        for s in eliminated:
            self.seats.active[s] = False
            self._out_round[s] = self._round
        self._publish_standing()
        key = _CHANGE_KEYS[self._scoring]
        amounts = [-c for c in change] if self._scoring == "lives" else change
        hands = self.hands
        shown_hands, shown_values = {}, {}
        for s, value in shown.items():  # one loop for both: every round ends here
            a, b, c = hands[s]
            shown_hands[_SEAT_KEYS[s]] = [NAMES[a], NAMES[b], NAMES[c]]
            shown_values[_SEAT_KEYS[s]] = json_number(value)
        self._close(end, {
            key: amounts,
            "cancelled": cancelled,
            "knocker": self.knocker if self.knocker >= 0 else None,
            "blitz": list(blitzers),
            "hands": shown_hands,
            "values": shown_values,
            "eliminated": eliminated,
            self._scoring: list(self.standing),
        })

    def _match_over(self) -> str | None:
        if self.seats.count <= 1:
            return "last player in"
        if self._rounds_total is not None and self._round >= self._rounds_total:
            return "rounds played"
        return None

    def _standing_key(self, seat: int) -> tuple[int, int]:
        """How a seat that did not forfeit is placed, higher better: points and chips games
        by standing; lives games players still in by lives, then players out by when."""
        if self.seats.active[seat] or self._scoring != "lives":
            return (1, self.standing[seat])
        return (0, self._out_round[seat])

    def _outcome_score(self, seat: int) -> float:
        return float(self.standing[seat])


class ThirtyOneFamily(Family):
    """Scat and relatives: three-card hands valued by suit sum, knock, blitz, showdown."""

    name = "thirty-one"
    options = OPTIONS
    state = ThirtyOneState

    def evaluate(self, cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
        check_hand(cards, 3, options["deck"])
        return evaluate_hand(cards, options)


THIRTY_ONE: Final = ThirtyOneFamily()
