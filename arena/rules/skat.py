"""Skat (ISkO international rules), docs/RULES.md 6: the deal, auction, game announcement and trick play.

Three play each deal (at a table of four the dealer sits out): forehand (the dealer's
left), middlehand and rearhand get ten cards, dealt 3-(skat 2)-4-3.  Middlehand bids to
forehand (``bid N``; ``hold`` or ``pass``), the survivor hears rearhand; if both pass
without a bid forehand may still play at 18 (``bid 18``) or ``pass`` (the deal is thrown
in, or with ``all_pass = ramsch`` played as Ramsch).  The declarer picks up the skat
(``pickup``, then ``discard X Y``) or plays ``hand``, then announces the game
(``declare ...``); forehand leads, and every card is ``play X``.  Values and scores are
:mod:`arena.rules.skat_values`'; Ramsch and what seats see are :mod:`arena.rules.skat_view`'s.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, Final

from arena.cards import CARDS, Card, card_names
from arena.rules.game import Action, Event, Family, RulesError, Variant
from arena.rules.hands import HandValue, check_hand
from arena.rules.options import OptionSpec
from arena.rules.series import SeriesState, cap_options
from arena.rules.skat_values import (
    BID_VALUES,
    Contract,
    card_points,
    contracts,
    hand_value,
    legal_plays,
    score_change,
    settle,
    trick_winner,
)
from arena.rules.skat_view import ramsch_result, view

__all__ = ["SKAT", "SkatFamily", "SkatState"]

BID: Final = {v: Action.of("bid", arg=str(v)) for v in BID_VALUES}
HOLD: Final = Action.of("hold")
PASS: Final = Action.of("pass")
PICKUP: Final = Action.of("pickup")
HAND: Final = Action.of("hand")
KONTRA: Final = Action.of("kontra")
RE: Final = Action.of("re")
PLAY: Final = tuple(Action.of("play", c) for c in CARDS)

BID_PHASE, ANSWER, SKAT_PHASE, DISCARD, DECLARE, PLAY_PHASE = range(6)
PHASES: Final = ("bid", "answer", "skat", "discard", "declare", "play")

OPTIONS: Final = (
    OptionSpec("rounds", "int", 12, "deals in a match; a multiple of the table size, so that every seat deals "
               "as often", minimum=1),
    OptionSpec("all_pass", "choice", "throw_in", "when all three pass: the deal is thrown in (no score), or "
               "played as Ramsch", choices=("throw_in", "ramsch")),
    OptionSpec("lost_scoring", "choice", "source", "a lost game costs its value doubled when the skat was picked "
               "up, single when hand (source: source text 004), or doubled always (official, ISkO)",
               choices=("source", "official")),
    OptionSpec("kontra", "bool", False, "a defender may say kontra before its first card (value x2), the "
               "declarer re at its next turn (x4)"),
    OptionSpec("scoring", "choice", "plain", "plain game values, or league Seeger-Fabian points (+50 a won "
               "game, -50 a lost one, and 40 to every other seat, 30 at a table of four, when the declarer "
               "loses)", choices=("plain", "seeger")),
    *cap_options(),
)


class SkatState(SeriesState):
    """A match of Skat: ``rounds`` deals, placed by total score."""

    deck_size = 32

    def _setup(self) -> None:
        n = self.players
        self.scores: list[int] = [0] * n
        self.order: list[int] = []
        """Forehand, middlehand, rearhand of the current deal."""
        self.skat: list[Card] = []
        self.picked: list[Card] = []
        """The skat as the declarer picked it up (empty in a hand game)."""
        self.auction: list[tuple[int, str]] = []
        self.bid = 0
        self.declarer: int | None = None
        self.contract: Contract | None = None
        self.game: str | None = None
        """The game being played: a contract's game, or ``ramsch``."""
        self.declarer_cards: list[Card] = []
        self.trick: list[tuple[int, Card]] = []
        self.tricks: list[tuple[int, tuple[tuple[int, Card], ...]]] = []
        """Every finished trick of the deal: (winner, the cards by seat in the order played)."""
        self.taken: list[list[Card]] = [[] for _ in range(n)]
        self.kontra = 0
        self._played: list[int] = [0] * n
        self._re_open = False
        self._phase = BID_PHASE
        self._bidder = self._listener = -1
        self._stage = 1
        self._last_call = False

    # -- the deal and the auction ------------------------------------------------------

    def _start_round(self) -> None:
        self.order = self.seats.after(self.dealer)[:3]  # at a table of four the dealer sits out
        forehand, middlehand, rearhand = self.order
        self._begin({"forehand": forehand, "middlehand": middlehand, "rearhand": rearhand,
                     "scores": list(self.scores)})
        stock = self._new_stock()
        packets = [stock.deal_many(3 * len(self.order)), stock.deal_many(2), stock.deal_many(4 * 3),
                   stock.deal_many(3 * 3)]
        self.hands = [[] for _ in range(self.players)]
        for i, seat in enumerate(self.order):
            self.hands[seat] = packets[0][3 * i:3 * i + 3] + packets[2][4 * i:4 * i + 4] + packets[3][3 * i:3 * i + 3]
        self.skat = packets[1]
        self.picked, self.auction, self.bid = [], [], 0
        self.declarer = self.contract = self.game = None
        self.declarer_cards, self.trick, self.tricks = [], [], []
        self.taken = [[] for _ in range(self.players)]
        self.kontra, self._played, self._re_open = 0, [0] * self.players, False
        self._stage, self._last_call = 1, False
        self._bidder, self._listener = middlehand, forehand
        self._phase, self._seat, self._moving = BID_PHASE, middlehand, True
        self.log.append(Event("deal", None, {}, {s: {"hand": card_names(self.hands[s])} for s in self.order}))

    def _legal_now(self) -> list[Action]:
        phase = self._phase
        if phase == BID_PHASE:
            if self._last_call:
                return [BID[BID_VALUES[0]], PASS]
            return [BID[v] for v in BID_VALUES[bisect_right(BID_VALUES, self.bid):]] + [PASS]
        if phase == ANSWER:
            return [HOLD, PASS]
        if phase == SKAT_PHASE:
            return [PICKUP, HAND]
        if phase == DISCARD:
            return [Action.of("discard", a, b) for a, b in combinations(sorted(self.hands[self._seat]), 2)]
        if phase == DECLARE:
            return [Action.of("declare", arg=c.words) for c in contracts(not self.picked, self.bid)]
        seat = self._seat
        assert self.game is not None
        legal = [PLAY[c] for c in legal_plays(self.hands[seat], self.trick[0][1] if self.trick else None, self.game)]
        if self.options["kontra"] and self.contract is not None:
            if self.kontra == 0 and seat != self.declarer and not self._played[seat]:
                legal.append(KONTRA)
            elif self.kontra == 1 and seat == self.declarer and self._re_open:
                legal.append(RE)
        return legal

    def _act(self, seat: int, action: Action) -> None:
        kind = action.kind
        round_before = self._round
        if kind == "play":
            self.log.append(Event("action", seat, {"action": action.text}))
            self._play(seat, action.cards[0])
        elif kind in ("bid", "hold", "pass"):
            self.auction.append((seat, action.text))
            self.log.append(Event("action", seat, {"action": action.text}))
            self._auction(seat, action)
        elif kind == "pickup":
            self.picked, self.skat = self.skat, []
            self.hands[seat] += self.picked
            self.log.append(Event("action", seat, {"action": action.text}, {seat: {"skat": card_names(self.picked)}}))
            self._phase = DISCARD
        elif kind == "hand":
            self.log.append(Event("action", seat, {"action": action.text}))
            self._phase = DECLARE
        elif kind == "discard":
            self.skat = list(action.cards)
            for card in self.skat:
                self.hands[seat].remove(card)
            self.log.append(Event("action", seat, {"action": "discard"}, {seat: {"action": action.text}}))
            self._phase = DECLARE
        elif kind == "declare":
            self._declare(seat, action)
        else:  # kontra or re
            self.kontra += 1
            self._re_open = kind == "kontra"
            self.log.append(Event("action", seat, {"action": action.text}))
        if self._round == round_before and self._moving and self._turn_capped():
            self._close("turn_cap", self._standings([0] * self.players))

    def _auction(self, seat: int, action: Action) -> None:
        """Middlehand bids to forehand, then rearhand to the survivor; each bid must beat the last."""
        forehand, _, rearhand = self.order
        if action.kind == "bid":
            self.bid = int(action.arg)
            if self._last_call:
                self._to_skat(forehand)
            else:
                self._phase, self._seat = ANSWER, self._listener
            return
        if action.kind == "hold":
            self._phase, self._seat = BID_PHASE, self._bidder
            return
        if self._last_call:  # every player passed
            if self.options["all_pass"] == "ramsch":
                self.game = "ramsch"
                self._phase, self._seat = PLAY_PHASE, forehand
            else:
                self._close("thrown_in", self._standings([0] * self.players))
            return
        survivor = self._listener if seat == self._bidder else self._bidder
        if self._stage == 1:
            self._stage, self._bidder, self._listener = 2, rearhand, survivor
            self._phase, self._seat = BID_PHASE, rearhand
        elif self.bid == 0:  # middlehand and rearhand passed without a bid: forehand's call
            self._last_call = True
            self._phase, self._seat = BID_PHASE, forehand
        else:
            self._to_skat(survivor)

    def _to_skat(self, declarer: int) -> None:
        self.declarer = declarer
        self.declarer_cards = self.hands[declarer] + self.skat
        self._phase, self._seat = SKAT_PHASE, declarer

    def _declare(self, seat: int, action: Action) -> None:
        self.contract = Contract.parse(action.arg, not self.picked)
        self.game = self.contract.game
        public: dict[str, Any] = {"action": action.text}
        if self.contract.ouvert:
            public["ouvert_hand"] = card_names(sorted(self.hands[seat]))
        self.log.append(Event("action", seat, public))
        self._phase, self._seat = PLAY_PHASE, self.order[0]

    # -- the play ----------------------------------------------------------------------

    def _play(self, seat: int, card: Card) -> None:
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        self._played[seat] += 1
        if seat == self.declarer:
            self._re_open = False
        if len(self.trick) < 3:
            order = self.order
            self._seat = order[(order.index(seat) + 1) % 3]
            return
        assert self.game is not None
        winner = self.trick[trick_winner([c for _, c in self.trick], self.game)][0]
        cards = [c for _, c in self.trick]
        self.taken[winner] += cards
        self.tricks.append((winner, tuple(self.trick)))
        self.trick = []
        self.log.append(Event("trick", winner, {"cards": card_names(cards), "points": card_points(cards)}))
        if len(self.tricks) == 10 or (self.game == "null" and winner == self.declarer):
            self._settle()
        else:
            self._seat = winner

    def _settle(self) -> None:
        """Score the deal played (a game, or Ramsch) and close it."""
        points = [card_points(t) for t in self.taken]
        tricks = [sum(1 for w, _ in self.tricks if w == s) for s in range(self.players)]
        changes = [0] * self.players
        if self.contract is None:
            winner = self.tricks[-1][0]
            points[winner] += card_points(self.skat)
            public = ramsch_result(points, tricks, self.order, changes)
            self._end("ramsch", changes, {"card_points": points, "tricks_won": tricks, **public})
            return
        declarer = self.declarer
        assert declarer is not None
        points[declarer] += card_points(self.skat)
        result = settle(self.contract, self.bid, self.declarer_cards, points[declarer], tricks[declarer])
        change = score_change(result, bool(self.picked), self.options["lost_scoring"], self.kontra)
        if self.options["scoring"] == "seeger":
            change += 50 if result.won else -50
            if not result.won:
                others = [s for s in range(self.players) if self.seats.active[s] and s != declarer]
                for s in others:
                    changes[s] = 40 if len(others) == 2 else 30
        changes[declarer] = change
        self._end("played", changes, {
            "declarer": declarer, "game": self.contract.game, "announced": self.contract.announced,
            "bid": self.bid, "card_points": points, "tricks_won": tricks, "won": result.won,
            "value": result.value, "overbid": result.overbid, "matadors": result.matadors_text,
            "multiplier": result.multiplier, "schneider": result.schneider, "schwarz": result.schwarz,
            "kontra": self.kontra,
        })

    def _end(self, end: str, changes: list[int], public: dict[str, Any]) -> None:
        for s, change in enumerate(changes):
            self.scores[s] += change
        self._close(end, {**public, "skat": card_names(self.skat), **self._standings(changes)})

    def _standings(self, changes: list[int]) -> dict[str, Any]:
        return {"changes": changes, "scores": list(self.scores)}

    # -- seats, standings, views -------------------------------------------------------

    def _seat_left(self, seat: int) -> None:
        if self.seats.count < 3:
            self._finish("too few players")
        elif self._moving and seat in self.order:  # a table of four plays on, this deal without a result
            self._close("abandoned", self._standings([0] * self.players))

    def _match_over(self) -> str | None:
        return "rounds played" if self._round >= self.options["rounds"] else None

    def _standing_key(self, seat: int) -> tuple[int, ...]:
        return (self.scores[seat],)

    def _outcome_score(self, seat: int) -> float:
        return float(self.scores[seat])

    def observe(self, seat: int) -> dict[str, Any]:
        return view(self, seat, PHASES[self._phase] if self._moving else "over")

    def actions(self) -> list[tuple[int, Action]]:
        """Every decision so far; a discard's cards are in the declarer's private part."""
        out = []
        for e in self.log:
            if e.kind == "action" and e.seat is not None:
                private = e.private.get(e.seat, {}) if e.private else {}
                out.append((e.seat, Action.parse(private.get("action", e.public["action"]))))
        return out


class SkatFamily(Family):
    """Skat: three play each deal, bidding for the right to declare; placed by total score."""

    name = "skat"
    options = OPTIONS
    state = SkatState

    def check_match(self, variant: Variant, players: int, options: Mapping[str, Any]) -> None:
        if options["rounds"] % players:
            raise RulesError(f"rounds must be a multiple of the table size ({players}) so that every seat deals "
                             f"as often, not {options['rounds']}")

    def evaluate(self, cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
        check_hand(cards, 12 if len(cards) == 12 else 10, 32)
        return hand_value(cards)


SKAT: Final = SkatFamily()
