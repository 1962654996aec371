"""The game interface every rules family implements.

It is shaped after OpenSpiel's game/state split: a :class:`Variant` (a named preset of a
rules :class:`Family`) creates a :class:`MatchState`, which says whose turn it is, which actions
are legal, applies one, builds per-seat observations and keeps a full event log.  Chance
(the deal) is driven inside the state by a seeded generator, or by explicit deck orders,
so a match is a pure function of its variant, options, seat count, seed and actions.
Nothing here assumes draw-and-discard play: trick-taking and bidding games (Skat) fit the
same decide/apply loop with their own action kinds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final, NamedTuple, Self

from arena.cards import CARDS, Card, Seed, card_names, parse_card
from arena.rules.errors import IllegalActionError, RulesError
from arena.rules.hands import HandValue
from arena.rules.options import OptionSpec, resolve_options

__all__ = [
    "Action",
    "Event",
    "Family",
    "IllegalActionError",
    "MatchState",
    "Outcome",
    "RulesError",
    "Variant",
    "check_deck",
    "next_move",
    "rank_placements",
]


@dataclass(frozen=True, slots=True)
class Action:
    """One decision: a kind (``draw``, ``discard``, ``swap_one`` ...), cards, an argument.

    Its text form (``str(action)``) is what bots see and send: the kind, then the
    cards, then the argument, separated by spaces (``discard 6h``, ``swap_one 9h Ah``,
    ``exchange 5c for 1``).  Use :meth:`of` to get the shared instance of an action.
    """

    kind: str
    cards: tuple[Card, ...] = ()
    arg: str = ""
    text: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        # An action built with the constructor is equal to the interned one, so it must
        # read the same way: logs, events and error messages all use the text form.
        if not self.text:
            words = [self.kind, *card_names(self.cards), *([self.arg] if self.arg else [])]
            object.__setattr__(self, "text", " ".join(words))

    def __str__(self) -> str:
        return self.text

    @staticmethod
    def of(kind: str, *cards: Card, arg: str = "") -> Action:
        """The interned action ``kind cards arg`` (one object per distinct action)."""
        key = (kind, cards, arg)
        action = _INTERNED.get(key)
        if action is None:
            action = _INTERNED[key] = Action(kind, cards, arg)
        return action

    @staticmethod
    def parse(text: str) -> Action:
        """Parse the text form: a kind, then cards, then anything else as the argument."""
        words = text.split()
        if not words:
            raise RulesError("empty action")
        cards: list[Card] = []
        rest = words[1:]
        while rest:
            try:
                cards.append(parse_card(rest[0]))
            except ValueError:
                break
            rest = rest[1:]
        return Action.of(words[0], *cards, arg=" ".join(rest))


_INTERNED: dict[tuple[str, tuple[Card, ...], str], Action] = {}


class Event(NamedTuple):
    """One entry of a match's log.

    ``public`` is what every seat sees; ``private`` maps a seat to what only that seat
    sees (its dealt hand, the card it drew).  The log with both parts is the full record.
    """

    kind: str
    seat: int | None
    public: Mapping[str, Any]
    private: Mapping[int, Mapping[str, Any]] | None = None

    def view(self, seat: int | None) -> dict[str, Any]:
        """The event as ``seat`` may see it (``None``: a spectator, public part only)."""
        out: dict[str, Any] = {"event": self.kind}
        if self.seat is not None:
            out["seat"] = self.seat
        out.update(self.public)
        if self.private is not None and seat is not None and seat in self.private:
            out.update(self.private[seat])
        return out

    def full(self) -> dict[str, Any]:
        """The event with every private part, for the match record."""
        out = self.view(None)
        if self.private:
            out["private"] = {str(s): dict(p) for s, p in self.private.items()}
        return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a match ended: per-seat placements (1 = best, ties share) and scores."""

    placements: tuple[int, ...]
    scores: tuple[float, ...]
    reason: str
    rounds: int

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats placed first."""
        return tuple(s for s, p in enumerate(self.placements) if p == 1)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "placements": list(self.placements),
            "scores": list(self.scores),
            "reason": self.reason,
            "rounds": self.rounds,
        }


def next_move(events: Sequence[Mapping[str, Any]], start: int) -> Mapping[str, Any]:
    """In a stored log (:meth:`Event.full` dicts), the first action or forfeit from
    ``start`` on, which a replay applies next: the engine may log events of its own before
    the action that caused them (Fifty-One logs a reshuffle before the clear); ``{}`` when
    there is none."""
    for event in events[start:]:
        if event.get("event") in ("action", "forfeit"):
            return event
    return {}


def rank_placements(keys: Sequence[Any]) -> tuple[int, ...]:
    """Competition ranking (1, 2, 2, 4) of seats by ``keys``, higher key better."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


class MatchState(ABC):
    """One match at one table, from the first deal to the outcome.

    Subclasses keep the rules; this base keeps what every family shares: the variant,
    options, seat count, seed and the event log.  The loop a referee runs is::

        while not state.is_over:
            seat = state.to_move
            action = choose(state.observe(seat), state.legal_actions())
            state.apply(action)
    """

    def __init__(self, variant: Variant, players: int, options: Mapping[str, Any], seed: Seed) -> None:
        self.variant = variant
        self.players = players
        self.options: Mapping[str, Any] = options
        self.seed = seed
        self.log: list[Event] = []
        self.outcome: Outcome | None = None

    @property
    def is_over(self) -> bool:
        """True once the match has an outcome."""
        return self.outcome is not None

    @property
    @abstractmethod
    def to_move(self) -> int | None:
        """The seat that must decide now, or ``None`` when the match is over."""

    @property
    @abstractmethod
    def round(self) -> int:
        """The current round (hand) number, from 1."""

    @abstractmethod
    def legal_actions(self) -> Sequence[Action]:
        """The actions the seat to move may take now (empty when the match is over)."""

    @abstractmethod
    def apply(self, action: Action) -> None:
        """Apply the seat to move's ``action``.

        Raises :class:`IllegalActionError` (and changes nothing) if it is not legal.
        """

    @abstractmethod
    def observe(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know now, as a JSON-ready dict; never another seat's secrets."""

    @abstractmethod
    def forfeit(self, seat: int) -> None:
        """Take ``seat`` out of the match at once (its bot failed): it is placed last and
        the others play on without it as the rules allow.  No effect on a seat already out."""

    def can_apply(self, action: Action) -> bool:
        """Whether ``action`` is legal now."""
        return action in self.legal_actions()

    def events_for(self, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
        """The log from index ``start`` as ``seat`` sees it."""
        return [event.view(seat) for event in self.log[start:]]

    def actions(self) -> list[tuple[int, Action]]:
        """Every decision so far as ``(seat, action)``: with the seed, a full replay.  An
        action the others see only in part (Skat's discard) is taken from its seat's own view."""
        return [
            (e.seat, Action.parse(((e.private or {}).get(e.seat) or {}).get("action") or e.public["action"]))
            for e in self.log if e.kind == "action" and e.seat is not None
        ]

    def clone(self) -> Self:
        """A copy of the match that plays on independently: actions applied to either never
        change the other (what a search needs, as OpenSpiel's ``State::Clone``).

        Fast rather than fully deep: every list is copied, and so is a list in it (hands,
        table hands); so are dicts and sets, and an attribute with a ``clone`` method (the
        seats, the stock) is cloned.  Everything else is shared, being immutable: cards,
        actions, tuples, the logged events, the variant and the options (never changed).
        A family that keeps another mutable object in its state gives it a ``clone``.
        """
        new = object.__new__(type(self))
        fields = new.__dict__
        for name, value in self.__dict__.items():
            if name in _BY_NAME:
                copier = _BY_NAME[name]
            else:
                kind = type(value)
                copier = _COPIERS[kind] if kind in _COPIERS else _copier(kind)
            fields[name] = value if copier is None else copier(value)
        return new

    def _illegal(self, action: object) -> IllegalActionError:
        legal = ", ".join(str(a) for a in self.legal_actions()) or "none (the match is over)"
        return IllegalActionError(f"{action} is not legal for seat {self.to_move} now; legal: {legal}")


class Family(ABC):
    """A rules family: the options it understands and the match state that plays it."""

    name: str
    options: tuple[OptionSpec, ...]
    state: Callable[[Variant, int, Mapping[str, Any], Seed, Sequence[Sequence[Card]] | None, int], MatchState]
    """The match state class :meth:`new_match` starts, unless the family overrides it."""

    def new_match(
        self,
        variant: Variant,
        players: int,
        options: Mapping[str, Any],
        seed: Seed,
        decks: Sequence[Sequence[Card]] | None,
        dealer: int,
    ) -> MatchState:
        """A match in its initial state (the first round dealt)."""
        self.check_match(variant, players, options)
        return self.state(variant, players, options, seed, decks, dealer)

    def check_match(self, variant: Variant, players: int, options: Mapping[str, Any]) -> None:
        """RulesError if the family cannot play ``players`` seats with these option values
        together (each value on its own is checked already); none by default."""
        return None

    @abstractmethod
    def evaluate(self, cards: Sequence[Card], options: Mapping[str, Any]) -> HandValue:
        """The value of one hand under ``options``; RulesError for a malformed hand."""


@dataclass(frozen=True)
class Variant:
    """A named preset: a family plus option values (``docs/RULES.md`` presets tables)."""

    name: str
    family: Family
    description: str
    preset: Mapping[str, Any] = field(default_factory=dict)
    min_players: int = 2
    max_players: int = 9

    def resolve(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The full option values for a match: defaults, preset, then ``overrides``."""
        if not overrides:
            return dict(self._defaults)
        return resolve_options(self.family.options, self.preset, overrides, f"variant {self.name!r}")

    def defaults(self) -> dict[str, Any]:
        """The option values this variant's name means with no overrides."""
        return self.resolve()

    def defaults_text(self) -> dict[str, str]:
        """:meth:`defaults` as users write them (``yes``/``no``, ``auto``), option by option."""
        specs = {spec.name: spec for spec in self.family.options}
        return {name: specs[name].format(value) for name, value in self.defaults().items()}

    @cached_property
    def _defaults(self) -> dict[str, Any]:
        """Defaults and preset, validated once: most matches override nothing."""
        return resolve_options(self.family.options, self.preset, None, f"variant {self.name!r}")

    def check_players(self, players: int) -> None:
        """RulesError unless ``players`` is a seat count this variant accepts."""
        if not self.min_players <= players <= self.max_players:
            raise RulesError(
                f"{self.name} is for {self.min_players} to {self.max_players} players, not {players}"
            )

    def new_match(
        self,
        players: int,
        *,
        seed: Seed = 0,
        options: Mapping[str, Any] | None = None,
        decks: Sequence[Sequence[Card]] | None = None,
        dealer: int = 0,
    ) -> MatchState:
        """Start a match: ``seed`` drives every deal unless ``decks`` gives explicit deck
        orders (top card first) for the first rounds."""
        self.check_players(players)
        if not 0 <= dealer < players:
            raise RulesError(f"dealer must be a seat from 0 to {players - 1}, not {dealer}")
        return self.family.new_match(self, players, self.resolve(options), seed, decks, dealer)

    def evaluate(self, cards: Sequence[Card], options: Mapping[str, Any] | None = None) -> HandValue:
        """The value of one hand in this variant."""
        return self.family.evaluate(cards, self.resolve(options))


def _copy_list(items: list[Any]) -> list[Any]:
    """A list and every list in it copied (hands, table hands)."""
    return [item[:] if type(item) is list else item for item in items]


_BY_NAME: Final[dict[str, Callable[[Any], Any] | None]] = {"variant": None, "options": None, "log": list.copy}
"""How :meth:`MatchState.clone` copies the base's attributes (None: shared): the options are
never changed, and the log is copied in one step (its events are never changed)."""
_COPIERS: dict[type, Callable[[Any], Any] | None] = {list: _copy_list, dict: dict.copy, set: set.copy}
"""How :meth:`MatchState.clone` copies any other value by its type (None: shared), filled in
as types are met."""


def _copier(kind: type) -> Callable[[Any], Any] | None:
    """The type's own ``clone`` method, or None: a type without one is immutable."""
    method = getattr(kind, "clone", None)
    copier = _COPIERS[kind] = method if callable(method) else None
    return copier


def check_deck(deck: Sequence[Card], expected: Sequence[Card]) -> list[Card]:
    """``deck`` as a list if it is a permutation of ``expected``; RulesError otherwise."""
    cards = [CARDS[int(c)] for c in deck]
    if sorted(cards) != sorted(expected):
        missing = sorted(set(expected) - set(cards))
        extra = sorted(set(cards) - set(expected))
        raise RulesError(
            f"an explicit deck must hold each card of the {len(expected)}-card deck once"
            f" (missing: {' '.join(card_names(missing)) or '-'}; unexpected or repeated:"
            f" {' '.join(card_names(extra)) or ('a repeated card' if len(cards) != len(set(cards)) else '-')})"
        )
    return cards

