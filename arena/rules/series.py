"""A match played as a series of rounds, each dealt, played and scored on its own.

The bookkeeping every family shares (Thirty-One, the widow family, the four- and
five-card relatives, Skat): the seats (who is in, turn order in either direction,
forfeits and placements, :mod:`arena.rules.seats`), deals from the match seed (or
explicit decks), the cached legal actions and their check, the turn and round caps, and
the outcome.  A family supplies the deal, the legal
actions, what an action does, how a round is scored and when the match is over.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any, Final

from arena.cards import CARDS, NAMES, Card, Seed, Stock, derive_seed, new_deck
from arena.rules.game import Action, Event, MatchState, Outcome, Variant, check_deck
from arena.rules.options import OptionSpec
from arena.rules.seats import Seats

__all__ = [
    "DEAL",
    "DEFAULT_MAX_ROUNDS",
    "DISCARD",
    "RESHUFFLE",
    "ROUNDS",
    "SeriesState",
    "cap_options",
    "swap_one_actions",
]

# Labels for derive_seed: hand r is dealt from derive_seed(seed, DEAL, r).
DEAL: Final = 1
RESHUFFLE: Final = 2

DEFAULT_MAX_ROUNDS: Final = 200
"""The round cap unless a family says otherwise (docs/RULES.md 1)."""

DISCARD: Final = tuple(Action.of("discard", c) for c in CARDS)
"""``discard CARD`` by card."""

ROUNDS: Final = OptionSpec("rounds", "int", None, "hands in a match", minimum=1, default_text="auto: 2 x players")
"""The length of a match of so many hands (Fifty-One, Empat Satu): see :meth:`SeriesState._match_over`."""


def cap_options(max_rounds: int = DEFAULT_MAX_ROUNDS) -> tuple[OptionSpec, ...]:
    """The round cap (docs/RULES.md 1) and the turn safeguard every family of this kind has."""
    return (
        OptionSpec("max_rounds", "int", None, "round cap; the match then ends and seats are placed by standing",
                   minimum=1, default_text=f"auto: {max_rounds}"),
        OptionSpec("max_turns", "int", 500, "turns in one hand before it ends with no result (a safeguard "
                   "against players that never end a hand)", minimum=1),
    )


@cache
def _swap_row(give: Card, arg: str) -> tuple[Action, ...]:
    """``swap_one GIVE TAKE ARG`` for every TAKE, indexed by the card taken."""
    return tuple(Action.of("swap_one", give, take, arg=arg) for take in CARDS)


def swap_one_actions(hand: Iterable[Card], table: Sequence[Card], args: Sequence[str] = ("",)) -> list[Action]:
    """Every ``swap_one GIVE TAKE ARG`` of a hand card for a face-up card, for each of
    ``args`` (the hot path: rows of interned actions are built once)."""
    table = sorted(table)
    hand = sorted(hand)
    return [row[take] for arg in args for give in hand for row in (_swap_row(give, arg),) for take in table]


class SeriesState(MatchState):
    """A match of independently scored rounds (a family may carry lives or points over).

    ``step`` is the direction of play: +1 passes left (clockwise, seat numbers rising),
    -1 passes right.  Subclasses set ``_moving`` while a round is being played and
    implement the abstract hooks; ``apply`` checks legality and calls :meth:`_act`.
    """

    step = 1
    default_max_rounds = DEFAULT_MAX_ROUNDS
    deck_size: int | None = None
    """The deck a family always plays with (Skat: 32); ``None``: the ``deck`` option's."""

    def __init__(
        self,
        variant: Variant,
        players: int,
        options: Mapping[str, Any],
        seed: Seed,
        decks: Sequence[Sequence[Card]] | None,
        dealer: int,
    ) -> None:
        """The match with its first round dealt; the deck is the family's, else the ``deck``
        option's (52 cards without one)."""
        super().__init__(variant, players, options, seed)
        self._fresh = new_deck(self.deck_size or options.get("deck", 52))
        self._deal_seed = derive_seed(seed, DEAL)
        """derive_seed(seed, DEAL, r) is derive_seed(this, r): half the work per round."""
        self._decks = [check_deck(d, self._fresh) for d in decks or ()]
        self.seats = self._new_seats()
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        self.dealer = dealer
        self._round = 0
        self._seat = dealer
        self._moving = False
        self._legal: list[Action] | None = None
        self._round_turns = 0
        self._max_turns: int = options["max_turns"]
        self._max_rounds: int = options["max_rounds"] or self.default_max_rounds
        self._setup()
        self._start_round()

    # -- the public interface -------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        return self._seat if self._moving else None

    @property
    def round(self) -> int:
        return self._round

    @property
    def active(self) -> list[bool]:
        """Which seats are still in."""
        return self.seats.active

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._legal_now() if self._moving else []
        return legal

    def apply(self, action: Action) -> None:
        legal = self._legal if self._legal is not None else self.legal_actions()
        for candidate in legal:  # identity first: legal actions are interned
            if candidate is action:
                break
        else:
            action = self._interned(legal, action)
        self._legal = None
        self._act(self._seat, action)

    def _interned(self, legal: list[Action], action: Action) -> Action:
        """The interned legal action equal to ``action`` (families compare actions by
        identity); IllegalActionError if none is.  Only for an action not already one."""
        if action not in legal:
            raise self._illegal(action)
        return Action.of(action.kind, *action.cards, arg=action.arg)

    def forfeit(self, seat: int) -> None:
        if self.outcome is not None or not self.seats.active[seat]:
            return
        self._leave(seat)
        self._legal = None
        self.log.append(Event("forfeit", seat, {}))
        if self.seats.count <= 1:
            self._finish("every other player forfeited")
        else:
            self._seat_left(seat)

    # -- hooks ----------------------------------------------------------------------

    def _new_seats(self) -> Seats:
        """The books the family keeps on its seats: plain :class:`Seats`, play passing by ``step``."""
        return Seats(self.players, self.step)

    @abstractmethod
    def _setup(self) -> None:
        """Set up the family's own state of the match, before its first round is dealt."""

    @abstractmethod
    def _legal_now(self) -> list[Action]:
        """The legal actions of the seat to move (a round is being played)."""

    def _act(self, seat: int, action: Action) -> None:
        """Carry out ``seat``'s legal ``action``: every family does, or overrides
        :meth:`apply` with its moves inline (Thirty-One, the arena's hottest path)."""
        raise NotImplementedError(f"{type(self).__name__} carries out no actions")

    def _leave(self, seat: int) -> None:
        """Take ``seat`` out of the match (it forfeited)."""
        self.seats.forfeit(seat)

    @abstractmethod
    def _seat_left(self, seat: int) -> None:
        """``seat`` forfeited during a round that goes on: repair the turn order."""

    @abstractmethod
    def _start_round(self) -> None:
        """Deal the next round and set the seat to move."""

    def _match_over(self) -> str | None:
        """The reason the match ends after the round just scored, or None to play on.

        By default a match is ``rounds`` hands (:data:`ROUNDS`; 2 x players unless set).
        """
        return "rounds played" if self._round >= (self.options["rounds"] or 2 * self.players) else None

    @abstractmethod
    def _standing_key(self, seat: int) -> tuple[int, ...]:
        """How a seat that did not forfeit ranks at the end (higher is better)."""

    @abstractmethod
    def _outcome_score(self, seat: int) -> float:
        """A seat's score in the outcome."""

    # -- shared helpers -------------------------------------------------------------

    def _view(self, seat: int, phase: str) -> dict[str, Any]:
        """The keys a family's observation starts with, in this order: the seat, round,
        dealer, seat to move, ``phase`` and the seat's hand; the family adds its own after
        them.  (Thirty-One spells them out: its observation is built in one presized dict.)"""
        return {
            "seat": seat,
            "round": self._round,
            "dealer": self.dealer,
            "to_move": self._seat if self._moving else None,
            "phase": phase,
            "hand": [NAMES[c] for c in self.hands[seat]],
        }

    def _new_stock(self) -> Stock:
        """The deck of the round being dealt: an explicit one, or shuffled from the seed."""
        index = self._round - 1
        if index < len(self._decks):
            return Stock(self._decks[index])
        return Stock(self._fresh, derive_seed(self._deal_seed, self._round))

    def _deal(self, stock: Stock, order: Sequence[int], size: int) -> None:
        """``size`` cards to each seat of ``order``, one at a time in that order."""
        dealt = stock.deal_many(size * len(order))
        hands: list[list[Card]] = [[] for _ in range(self.players)]
        for i, seat in enumerate(order):
            hands[seat] = dealt[i :: len(order)]
        self.hands = hands

    def _begin(self, public: dict[str, Any]) -> None:
        """Open a new round: count it and log its start with the standings in ``public``."""
        self._round += 1
        self._round_turns = 0
        self._legal = None
        self.log.append(Event("round_start", None, {
            "round": self._round, "dealer": self.dealer, **public, "active": list(self.seats.active),
        }))

    def _turn_capped(self) -> bool:
        """Count a finished turn; True when the round has reached the turn cap."""
        self._round_turns += 1
        return self._round_turns >= self._max_turns

    def _close(self, end: str, public: Mapping[str, Any]) -> None:
        """Log the round's end, then deal the next round or finish the match."""
        self._moving = False
        self._legal = None
        self.log.append(Event("round_end", None, {"end": end, **public}))
        reason = self._match_over()
        if reason is None and self._round >= self._max_rounds:
            reason = "round cap"
        if reason is None:
            self._rotate()
            self._start_round()
        else:
            self._finish(reason)

    def _rotate(self) -> None:
        """Choose the next round's dealer: the deal passes in the direction of play."""
        self.dealer = self.seats.next(self.dealer)

    def _finish(self, reason: str) -> None:
        """The outcome: seats by standing, forfeited seats last (later is better)."""
        self._moving = False
        self._legal = None
        self.outcome = Outcome(
            self.seats.placements(self._standing_key),
            tuple(self._outcome_score(s) for s in range(self.players)),
            reason,
            self._round,
        )
        self.log.append(Event("match_end", None, self.outcome.to_dict()))
