"""The widow family: Schwimmen, Stop the Bus and Switch (docs/RULES.md section 4).

One state machine covers the three presets; they differ only in option values.  Players
never draw: they trade with cards lying on the table.  ``table = widow`` (Schwimmen, Stop
the Bus) has one three-card widow, face down until the dealer has chosen to keep its hand
or swap it unseen for the widow, then face up.  ``table = switch`` has two table hands:
the dealer's second hand (it looks at both, keeps one and lays the other face up) and a
hand dealt face down.

A turn is one decision, except Switch's ``renew N down``, after which the same player
goes on with an exchange or a swap.  The actions (their text is what bots send):

* ``keep`` / ``swap_hand``: the dealer's choice (not a turn);
* ``swap_one GIVE TAKE``: give a hand card for the face-up table card TAKE;
* ``swap_all`` (widow) / ``swap_all N`` (Switch, table hand N = 0 or 1): trade hands;
* ``pass``: keep one's hand (Switch: only in the last turns after a knock);
* ``knock``: instead of a turn; with ``knock_after_swap`` also appended to a swap
  (``swap_one 9h Ah knock``), ending the turn that made it;
* Switch only: ``swap_blind GIVE N P`` (take the face-down card at position P of table
  hand N; GIVE lands face up in its place) and ``renew N up`` / ``renew N down``.

Longer than most modules: one family's state machine (three presets, one table of options),
read top to bottom like the rules; the shared series machinery is in :mod:`arena.rules.series`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from arena.cards import CARDS, NAMES, POINTS, Card, Stock, card_names
from arena.rules.brag import brag_value
from arena.rules.game import Action, Event, Family, RulesError, Variant
from arena.rules.hands import ACES_33, BLITZ, HandValue, check_hand, json_number, thirty_one_value
from arena.rules.options import OptionError, OptionSpec
from arena.rules.seats import Lives
from arena.rules.series import SeriesState

__all__ = ["WIDOW", "WidowFamily", "WidowState"]

KEEP: Final = Action.of("keep")
SWAP_HAND: Final = Action.of("swap_hand")
SWAP_ALL: Final = Action.of("swap_all")
PASS: Final = Action.of("pass")
KNOCK: Final = Action.of("knock")
SWAP_ONE: Final = tuple(tuple(Action.of("swap_one", give, take) for take in CARDS) for give in CARDS)
"""SWAP_ONE[give][take]: every exchange of one hand card for one face-up card, interned once."""
SWAP_BLIND: Final = tuple(
    tuple(tuple(Action.of("swap_blind", give, arg=f"{h} {p}") for p in range(3)) for h in range(2)) for give in CARDS
)
"""SWAP_BLIND[give][hand][position]: Switch's exchange for a face-down card."""
SWAP_TABLE: Final = (Action.of("swap_all", arg="0"), Action.of("swap_all", arg="1"))
RENEW: Final = tuple((Action.of("renew", arg=f"{h} up"), Action.of("renew", arg=f"{h} down")) for h in range(2))

LOW_LINE: Final = 20
"""``low_threshold``: every hand under this value loses."""
LOW_LINE_PLAYERS: Final = 5
"""``low_threshold`` applies to rounds dealt to at least this many players (docs/RULES.md 4.1)."""

_CHOICE, _TURN, _RENEWED = 0, 1, 2
_PHASES: Final = ("choice", "turn", "renewed")

OPTIONS: Final = (
    OptionSpec("deck", "choice", 32, "deck size: 32 (7 to A) or 52", choices=(32, 52)),
    OptionSpec("table", "choice", "widow", "what lies on the table: one widow (Schwimmen) or two table "
               "hands, one face up and one face down (switch)", choices=("widow", "switch")),
    OptionSpec("ranking", "choice", "points", "how hands compare: points (suit sums) or brag ranks",
               choices=("points", "brag")),
    OptionSpec("lives", "int", 3, "lives (tokens) each player starts with", minimum=1),
    OptionSpec("free_ride", "bool", True, "a player who loses its last life swims: out at its next loss"),
    OptionSpec("trips", "choice", "30.5", "value of three of a rank", choices=("none", "30", "30.5")),
    OptionSpec("three_aces", "choice", "32", "value of three aces (Feuer with special_hands = schwimmen)",
               choices=("none", "32", "33")),
    OptionSpec("blitz_only_akt", "bool", False, "a 31 must be exactly A K T of one suit"),
    OptionSpec("tiebreak", "choice", "suit", "how equal values are split when the lowest hand is sought: "
               "suit (clubs > spades > hearts > diamonds, trips by rank), cards, or none",
               choices=("suit", "cards", "none")),
    OptionSpec("special_hands", "choice", "schwimmen", "what ends a round at once: schwimmen (31: the lowest "
               "loses; Feuer: every other player loses), blitz (docs/RULES.md 3.3), none",
               choices=("schwimmen", "blitz", "none")),
    OptionSpec("blind_swap", "bool", True, "the dealer may swap its hand for the first table hand "
               "(Schwimmen: unseen; Switch: having seen both)"),
    OptionSpec("knock_first_round", "bool", False, "a player may knock before every player still in "
               "has had a turn this round"),
    OptionSpec("knock_after_swap", "bool", False, "a knock may end the turn of a swap instead of replacing it"),
    OptionSpec("low_threshold", "bool", False, "with 5 or more players every hand under 20 loses, and if "
               "none is under 20 the lowest loses (points ranking only)"),
    OptionSpec("tied_lowest", "choice", "lose", "players still tied for lowest all lose, or all escape",
               choices=("lose", "escape")),
    OptionSpec("knocker_penalty", "int", 1, "lives a knocker who is lowest alone loses", minimum=0),
    OptionSpec("knocker_tie", "choice", "loses", "a knocker tied for lowest loses knocker_penalty, or is safe",
               choices=("loses", "safe")),
    OptionSpec("knocker_blitz_penalty", "int", 1, "lives a knocker loses to a blitz or Feuer", minimum=0),
    OptionSpec("max_rounds", "int", 200, "round cap; players still in are then placed by lives", minimum=1),
    OptionSpec("max_turns", "int", 500, "turns in one round before it is called a draw (a safeguard "
               "against players that never end a round)", minimum=1),
)


def special_level(hand: Sequence[Card], feuer: bool, thirty_one: bool, akt_only: bool) -> int:
    """0, BLITZ (a 31 in one suit) or ACES_33 (three aces that end the round and beat a 31).

    ``feuer``: three aces count; ``thirty_one``: a 31 counts; ``akt_only``: only A K T.
    """
    a, b, c = hand
    if feuer and a >> 2 == b >> 2 == c >> 2 == 12:
        return ACES_33
    suited_31 = thirty_one and a & 3 == b & 3 == c & 3 and POINTS[a] + POINTS[b] + POINTS[c] == 31
    if suited_31 and (not akt_only or sorted((a >> 2, b >> 2, c >> 2)) == [8, 11, 12]):
        return BLITZ
    return 0


def special_flags(options: Mapping[str, Any]) -> tuple[bool, bool]:
    """(three aces end the round, a 31 ends the round) under ``options``."""
    mode = options["special_hands"]
    if mode == "schwimmen":
        return options["three_aces"] != "none", True
    if mode == "blitz":
        return options["three_aces"] == "33", True
    return False, False


def evaluate_hand(cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
    """A hand's value under the family's options (no input checks).

    ``low_key`` orders hands when the loser is sought, with the ``tiebreak`` applied;
    ``special`` says whether the hand ends a round at once under ``special_hands``.
    """
    feuer, thirty_one = special_flags(options)
    special = special_level(cards, feuer, thirty_one, options["blitz_only_akt"])
    if options["ranking"] == "brag":
        hand = brag_value(cards)
    else:
        hand = thirty_one_value(cards, trips=options["trips"], three_aces=options["three_aces"],
                                blitz_only_akt=options["blitz_only_akt"], tiebreak=options["tiebreak"],
                                low_tiebreak=True)
    return hand if hand.special == special else replace(hand, special=special)


class WidowState(SeriesState):
    """A match of the widow family: rounds until one player is left (or the round cap)."""

    seats: Lives

    def _new_seats(self) -> Lives:
        return Lives(self.players, self.options["lives"], self.options["free_ride"])

    def _setup(self) -> None:
        o = self.options
        self._switch = o["table"] == "switch"
        self._feuer, self._thirty_one = special_flags(o)
        self._akt_only = bool(o["blitz_only_akt"])
        self._blind_swap = bool(o["blind_swap"])
        self._knock_anytime = bool(o["knock_first_round"])
        self._knock_after_swap = bool(o["knock_after_swap"])
        self.table: list[list[Card]] = []
        """The widow (one hand) or Switch's two table hands."""
        self.face_up: list[list[bool]] = []
        self.discarded: list[Card] = []
        """Cards out of play this round: old widows, renewed table hands, forfeited hands."""
        self.stock = Stock(())
        self.knocker = -1
        self.dealer_choice: str | None = None
        self._phase = _TURN
        self._owed: list[int] = []  # seats still owed a last turn after a knock, in order
        self._passes = 0
        self._played = [False] * self.players
        self._unplayed = 0
        self._lives_view: tuple[int, ...] = ()
        self._active_view: tuple[bool, ...] = ()
        self._table_key = "table" if self._switch else "widow"
        self._views: list[tuple[str | None, ...]] = []
        self._table_public: Any = ()
        """What every seat sees of the table: the widow, or Switch's two hands (None: face down)."""

    # -- the public interface -------------------------------------------------------

    def observe(self, seat: int) -> dict[str, Any]:
        phase = self._phase
        moving = self._moving
        knocker = self.knocker
        obs: dict[str, Any] = {
            **self._view(seat, "over" if not moving else "last_turn" if phase == _TURN and knocker >= 0
                         else _PHASES[phase]),
            self._table_key: self._table_public,
            "stock": len(self.stock),
            "knocker": knocker if knocker >= 0 else None,
            "dealer_choice": self.dealer_choice,
            "passes": self._passes,
            "lives": self._lives_view,
            "active": self._active_view,
        }
        if moving and phase == _CHOICE and self._switch and seat == self.dealer:
            obs["other_hand"] = card_names(self.table[0])
        return obs

    # -- the series' hooks -------------------------------------------------------------

    def _legal_now(self) -> list[Action]:
        phase = self._phase
        if phase == _CHOICE:
            return [KEEP, SWAP_HAND]
        return self._turn_actions(phase == _RENEWED)

    def _act(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == "swap_one":
            self._swap_one(seat, action)
        elif kind == "pass":
            self.log.append(Event("action", seat, {"action": "pass"}))
            self._end_turn(seat, passed=True)
        elif kind == "knock":
            self.log.append(Event("action", seat, {"action": "knock"}))
            self._end_turn(seat, knocks=True)
        elif kind == "swap_all":
            self._swap_all(seat, action)
        elif kind == "swap_blind":
            self._swap_blind(seat, action)
        elif kind == "renew":
            self._renew(seat, action)
        else:
            self._dealer_chooses(action)

    def _leave(self, seat: int) -> None:
        """The seat's hand goes out of play with it."""
        self.discarded.extend(self.hands[seat])
        self.hands[seat] = []
        if not self._played[seat]:
            self._unplayed -= 1
        super()._leave(seat)
        self._publish()

    def _seat_left(self, seat: int) -> None:
        if self._phase == _CHOICE:
            if seat == self.dealer:  # the widow is turned up as if the dealer had kept its hand
                self._turn_up()
        elif seat in self._owed:
            self._owed.remove(seat)
            if not self._owed:
                self._showdown()
            elif seat == self._seat:
                self._next_seat(seat)
        elif seat == self._seat:
            self._next_seat(seat)

    # -- turns ----------------------------------------------------------------------

    def _turn_actions(self, renewed: bool) -> list[Action]:
        """Every legal action of the seat to move in a turn (``renewed``: after renew down)."""
        hand = self.hands[self._seat]
        pre_knock = self.knocker < 0
        may_knock = pre_knock and (self._knock_anytime or self._unplayed == 0)
        if self._switch:
            legal = self._switch_exchanges(hand)
            if not renewed:
                if len(self.stock) >= 3:
                    legal.extend(RENEW[0] + RENEW[1])
                if not pre_knock:
                    legal.append(PASS)
        else:
            legal = [SWAP_ONE[give][take] for give in hand for take in self.table[0]]
            legal.append(SWAP_ALL)
            legal.append(PASS)
        if may_knock and self._knock_after_swap:
            legal.extend([Action.of(a.kind, *a.cards, arg=f"{a.arg} knock".lstrip()) for a in legal
                          if a.kind.startswith("swap")])
        if may_knock and not renewed:
            legal.append(KNOCK)
        return legal

    def _switch_exchanges(self, hand: list[Card]) -> list[Action]:
        """Switch: one card for any table card (face up by name, face down by place), or a whole table hand."""
        up: list[Card] = []
        down: list[tuple[int, int]] = []
        for h, (cards, faces) in enumerate(zip(self.table, self.face_up)):
            for p in range(3):
                if faces[p]:
                    up.append(cards[p])
                else:
                    down.append((h, p))
        legal = [SWAP_ONE[give][take] for give in hand for take in up]
        legal += [SWAP_BLIND[give][h][p] for give in hand for h, p in down]
        legal += SWAP_TABLE
        return legal

    def _dealer_chooses(self, action: Action) -> None:
        dealer = self.dealer
        self.dealer_choice = action.kind
        if action is SWAP_HAND:
            self.hands[dealer], self.table[0] = self.table[0], self.hands[dealer]
            self.log.append(Event("action", dealer, {"action": "swap_hand"},
                                  {dealer: {"hand": card_names(self.hands[dealer])}}))
        else:
            self.log.append(Event("action", dealer, {"action": "keep"}))
        self._turn_up()

    def _swap_one(self, seat: int, action: Action) -> None:
        give, take = action.cards
        hand = self.hands[seat]
        hand[hand.index(give)] = take
        for h, cards in enumerate(self.table):
            if take in cards:
                cards[cards.index(take)] = give
                self._refresh_table(h)
                break
        self.log.append(Event("action", seat, {"action": action.text}))
        self._end_turn(seat, knocks=action.arg == "knock")

    def _swap_blind(self, seat: int, action: Action) -> None:
        give = action.cards[0]
        h, p = int(action.arg[0]), int(action.arg[2])
        hand = self.hands[seat]
        take = self.table[h][p]
        hand[hand.index(give)] = take
        self.table[h][p] = give
        self.face_up[h][p] = True
        self._refresh_table(h)
        self.log.append(Event("action", seat, {"action": action.text}, {seat: {"received": [NAMES[take]]}}))
        self._end_turn(seat, knocks=action.arg.endswith("knock"))

    def _swap_all(self, seat: int, action: Action) -> None:
        h = int(action.arg[0]) if self._switch else 0
        given = self.hands[seat]
        self.hands[seat], self.table[h] = self.table[h], given
        public = {"action": action.text, "gave": card_names(given)}
        if all(self.face_up[h]):
            self.log.append(Event("action", seat, public))
        else:
            self.face_up[h] = [True, True, True]
            self.log.append(Event("action", seat, public, {seat: {"received": card_names(self.hands[seat])}}))
        self._refresh_table(h)
        self._end_turn(seat, knocks=action.arg.endswith("knock"))

    def _renew(self, seat: int, action: Action) -> None:
        h = int(action.arg[0])
        up = action.arg.endswith("up")
        self.discarded.extend(self.table[h])
        self.table[h] = self.stock.deal_many(3)
        self.face_up[h] = [up, up, up]
        self._refresh_table(h)
        public: dict[str, Any] = {"action": action.text, "stock": len(self.stock)}
        if up:
            public["cards"] = card_names(self.table[h])
        self.log.append(Event("action", seat, public))
        if up:
            self._end_turn(seat)
        else:
            self._phase = _RENEWED

    def _end_turn(self, seat: int, *, passed: bool = False, knocks: bool = False) -> None:
        """Close ``seat``'s turn: a 31 or Feuer, the last turns, passes, then the next seat."""
        self._phase = _TURN
        if not self._played[seat]:
            self._played[seat] = True
            self._unplayed -= 1
        if (self._feuer or self._thirty_one) and self._special(seat):
            self._special_end([seat])
            return
        if knocks:
            self.knocker = seat
            self._passes = 0
            self._owed = self.seats.after(seat)[:-1]
        elif self.knocker >= 0:
            self._owed.pop(0)
            if not self._owed:
                self._showdown()
                return
        elif passed:
            self._passes += 1
            if self._passes >= self.seats.count and not self._new_widow():
                return
        else:
            self._passes = 0
        if self._turn_capped():
            self._end_round("turn_cap", [0] * self.players)
            return
        self._seat = self.seats.next(seat)

    def _next_seat(self, seat: int) -> None:
        """The turn passes from ``seat`` (which left during it) to the next seat still in."""
        self._phase = _TURN
        self._seat = self.seats.next(seat)

    def _new_widow(self) -> bool:
        """Every player still in passed: a new widow from the stock, or a draw if it is short."""
        if len(self.stock) < 3:
            self._end_round("draw", [0] * self.players)
            return False
        self.discarded.extend(self.table[0])
        self.table[0] = self.stock.deal_many(3)
        self._passes = 0
        self._refresh_table(0)
        self.log.append(Event("new_widow", None, {"cards": card_names(self.table[0]), "stock": len(self.stock)}))
        return True

    # -- rounds -------------------------------------------------------------------

    def _start_round(self) -> None:
        """Deal: three cards at a time round the table from the dealer's left, then the table."""
        seats = self.seats
        self._begin({"lives": list(seats.lives)})
        self._publish()
        order = seats.after(self.dealer)
        stock = self._new_stock()
        self._deal(stock, order, 3)
        hands = self.hands
        table_hands = 2 if self._switch else 1
        self.table = [stock.deal_many(3) for _ in range(table_hands)]
        self.face_up = [[False] * 3 for _ in range(table_hands)]
        self.discarded = []
        self.stock = stock
        self.knocker = -1
        self.dealer_choice = None
        self._owed = []
        self._passes = 0
        self._played = [not a for a in seats.active]
        self._unplayed = len(order)
        self._views = [()] * table_hands
        for h in range(table_hands):
            self._refresh_table(h)
        private: dict[int, dict[str, Any]] = {s: {"hand": card_names(hands[s])} for s in order}
        if self._switch and self._blind_swap:
            private[self.dealer]["other_hand"] = card_names(self.table[0])
        self.log.append(Event("deal", None, {"stock": len(stock), self._table_key: self._table_public}, private))
        self._moving = True
        if self._blind_swap:
            self._seat = self.dealer
            self._phase = _CHOICE
        else:
            self._turn_up()

    def _turn_up(self) -> None:
        """The first table hand is turned face up and play starts left of the dealer."""
        self.face_up[0] = [True, True, True]
        self._refresh_table(0)
        self.log.append(Event("turn_up", None, {"cards": card_names(self.table[0])}))
        order = self.seats.after(self.dealer)
        self._seat = order[0]
        self._phase = _TURN
        self._legal = None
        if self._feuer or self._thirty_one:
            holders = [s for s in order if self._special(s)]
            if holders:
                self._special_end(holders)

    def _refresh_table(self, h: int) -> None:
        """Rebuild the public view of table hand ``h`` that observations share."""
        self._views[h] = tuple([NAMES[c] if up else None for c, up in zip(self.table[h], self.face_up[h])])
        self._table_public = tuple(self._views) if self._switch else self._views[0]

    def _publish(self) -> None:
        """Refresh the immutable views of lives and seats that observations share."""
        self._lives_view = tuple(self.seats.lives)
        self._active_view = tuple(self.seats.active)

    # -- round ends -----------------------------------------------------------------

    def _special(self, seat: int) -> int:
        return special_level(self.hands[seat], self._feuer, self._thirty_one, self._akt_only)

    def _special_end(self, seats: Sequence[int]) -> None:
        """A 31, a blitz or Feuer ends the round at once; the highest kind counts."""
        levels = {s: self._special(s) for s in seats}
        top = max(levels.values())
        holders = [s for s, level in levels.items() if level == top]
        if self.options["special_hands"] == "schwimmen" and top == BLITZ:
            self._showdown("thirty-one", holders)
            return
        losses = [0] * self.players
        for s in self.seats.after(self.dealer):
            if s not in holders:
                losses[s] = self.options["knocker_blitz_penalty"] if s == self.knocker else 1
        end = "blitz" if self.options["special_hands"] == "blitz" else "feuer"
        self._end_round(end, losses, {s: self._evaluate(s) for s in holders}, holders)

    def _evaluate(self, seat: int) -> HandValue:
        return evaluate_hand(self.hands[seat], self.options)

    def _showdown(self, end: str = "showdown", specials: Sequence[int] = ()) -> None:
        """Hands are shown; the lowest loses (docs/RULES.md 4.1), with the options' variations."""
        o = self.options
        shown = {s: self._evaluate(s) for s in self.seats.after(self.dealer)}
        losers = self._losers(shown)
        knocker = self.knocker if self.knocker >= 0 and self.seats.active[self.knocker] else -1
        losses = [0] * self.players
        for s in losers:
            if s != knocker:
                losses[s] = 1
            elif len(losers) == 1 or o["knocker_tie"] == "loses":
                losses[s] = o["knocker_penalty"]
        self._end_round(end, losses, shown, specials)

    def _losers(self, shown: Mapping[int, HandValue]) -> list[int]:
        """The seats that lose at a showdown (before the knocker's own rules)."""
        o = self.options
        if o["low_threshold"] and len(shown) >= LOW_LINE_PLAYERS:
            under = [s for s, hand in shown.items() if hand.value < LOW_LINE]
            if under:
                return under
        hands = shown.values()
        lowest = [s for s, hand in shown.items() if not any(other.loses_to(hand) for other in hands)]
        if len(lowest) > 1 and o["tied_lowest"] == "escape":
            return []
        return lowest

    def _end_round(self, end: str, losses: list[int], shown: Mapping[int, HandValue] | None = None,
                   specials: Sequence[int] = ()) -> None:
        """Apply a round's losses, log them, and deal the next round or finish the match."""
        seats = self.seats
        shown = shown or {}
        cancelled, eliminated = seats.settle(losses, self._round)
        self._publish()
        self._close(end, {
            "lives_lost": losses,
            "cancelled": cancelled,
            "knocker": self.knocker if self.knocker >= 0 else None,
            "specials": list(specials),
            "hands": {str(s): card_names(self.hands[s]) for s in shown},
            "values": {str(s): json_number(hand.value) for s, hand in shown.items()},
            "eliminated": eliminated,
            "lives": list(seats.lives),
        })

    def _match_over(self) -> str | None:
        return "last player in" if self.seats.count <= 1 else None

    def _standing_key(self, seat: int) -> tuple[int, ...]:
        return self.seats.standing(seat)

    def _outcome_score(self, seat: int) -> float:
        return float(self.seats.lives[seat])


class WidowFamily(Family):
    """Schwimmen and relatives: trade with table cards, knock, 31 and Feuer, lowest loses."""

    name = "widow"
    options = OPTIONS
    state = WidowState

    def check_match(self, variant: Variant, players: int, options: Mapping[str, Any]) -> None:
        if options["low_threshold"] and options["ranking"] == "brag":
            raise OptionError("option 'low_threshold' counts points: it does not apply with ranking = brag")
        table_hands = 2 if options["table"] == "switch" else 1
        if 3 * (players + table_hands) > options["deck"]:
            raise RulesError(f"{variant.name} with the {options['deck']}-card deck seats at most "
                             f"{options['deck'] // 3 - table_hands} players, not {players}")

    def evaluate(self, cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
        check_hand(cards, 3, options["deck"])
        return evaluate_hand(cards, options)


WIDOW: Final = WidowFamily()
