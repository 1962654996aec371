"""The Python bot SDK: hook specifications and the helpers a bot author uses.

A Python bot is a module with pluggy hook implementations; the bot host
(``python -m arena.bothost``) loads it in the bot's own process and speaks the protocol
for it.  The smallest bot::

    import random
    from arena.sdk import hookimpl

    @hookimpl
    def choose(observation, legal):
        return random.choice(legal)

``match`` (a :class:`MatchInfo`) gives the variant's rules for look-ahead: hand values
with this match's options (``match.value(cards)``; ``match.evaluator()`` in a search) and
the rules engine itself (``match.rules.new_match(...)``) to simulate continuations from a
guessed deal.

Every bot process imports this module before it can answer the referee's ``hello``, so
it imports nothing heavy: not pluggy (its ``inspect`` and ``typing`` imports alone cost
a bot ~10 ms of start-up), not ``dataclasses``, not the rules engine.  ``hookimpl`` and
``hookspec`` put the very marks on functions that ``pluggy.HookimplMarker("arena-bot")``
and ``pluggy.HookspecMarker("arena-bot")`` would, so a pluggy ``PluginManager`` reads
them as its own (the bot host uses one for the rare bot whose hooks need more than a
direct call: see :mod:`arena.bothost`).

pluggy's public markers would cost every bot that start-up.  Measured with pluggy 1.7.0
(best of 15 runs): ``python -X importtime -c "import arena.sdk"`` gives 4.8 ms, and
importing pluggy after it 11.6 ms more; a process importing the SDK starts in 15 ms, in
28 ms with pluggy (``python -c pass``: 10 ms).  So the SDK keeps its own markers, and
tests/test_sdk.py holds their marks equal to pluggy's for every argument.
"""

from __future__ import annotations

from functools import cached_property

TYPE_CHECKING = False
if TYPE_CHECKING:  # the rules engine loads on first use: a bot that never needs it starts faster
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, TypeVar

    from pluggy import HookimplMarker, HookspecMarker

    from arena.protocol import MatchStart
    from arena.rules import HandValue, Variant

    _F = TypeVar("_F", bound=Callable[..., object])

__all__ = ["BotSpec", "MatchInfo", "PROJECT", "hookimpl", "hookspec"]

PROJECT = "arena-bot"


class _Marker:
    """What pluggy's two markers share: the project whose mark they put, and the decorator
    that may be called with the function or with options first.  A mark is ``options``
    stored on the function as ``{project}{suffix}``; ``error`` (pluggy's) is raised instead
    when the mark is put, as pluggy raises it."""

    __slots__ = ("project_name",)

    def __init__(self, project_name: str) -> None:
        self.project_name = project_name

    def _marking(
        self, function: _F | None, suffix: str, options: dict[str, Any], error: str | None = None,
    ) -> _F | Callable[[_F], _F]:
        def mark(func: _F) -> _F:
            if error is not None:
                raise ValueError(error)
            setattr(func, self.project_name + suffix, dict(options))
            return func

        return mark if function is None else mark(function)


class _HookspecMarker(_Marker):
    """``pluggy.HookspecMarker`` without importing pluggy: the same ``{project}_spec`` mark."""

    __slots__ = ()

    def __call__(
        self,
        function: _F | None = None,
        firstresult: bool = False,
        historic: bool = False,
        warn_on_impl: Warning | None = None,
        warn_on_impl_args: Mapping[str, Warning] | None = None,
    ) -> _F | Callable[[_F], _F]:
        return self._marking(function, "_spec", {
            "firstresult": firstresult, "historic": historic, "warn_on_impl": warn_on_impl,
            "warn_on_impl_args": warn_on_impl_args,
        }, "cannot have a historic firstresult hook" if historic and firstresult else None)


class _HookimplMarker(_Marker):
    """``pluggy.HookimplMarker`` without importing pluggy: the same ``{project}_impl`` mark."""

    __slots__ = ()

    def __call__(
        self,
        function: _F | None = None,
        hookwrapper: bool = False,
        optionalhook: bool = False,
        tryfirst: bool = False,
        trylast: bool = False,
        specname: str | None = None,
        wrapper: bool = False,
    ) -> _F | Callable[[_F], _F]:
        return self._marking(function, "_impl", {
            "wrapper": wrapper, "hookwrapper": hookwrapper, "optionalhook": optionalhook,
            "tryfirst": tryfirst, "trylast": trylast, "specname": specname,
        })


if not TYPE_CHECKING:  # type checkers see pluggy's own markers, whose signatures these share
    HookspecMarker, HookimplMarker = _HookspecMarker, _HookimplMarker

hookspec = HookspecMarker(PROJECT)
hookimpl = HookimplMarker(PROJECT)


class MatchInfo:
    """What a bot knows about the match it is playing, from the ``match_start`` message.

    (A plain class rather than a dataclass: ``dataclasses`` imports ``inspect``, which
    would delay every bot's start.)"""

    match_id: str
    variant: str
    options: dict[str, Any]
    seat: int
    players: int
    time: dict[str, Any]
    events: list[dict[str, Any]]
    """Every event this seat has seen so far in the match, oldest first."""

    _FIELDS = ("match_id", "variant", "options", "seat", "players", "time", "events")

    def __init__(self, match_id: str, variant: str, options: dict[str, Any], seat: int, players: int,
                 time: dict[str, Any], events: list[dict[str, Any]] | None = None) -> None:
        self.match_id = match_id
        self.variant = variant
        self.options = options
        self.seat = seat
        self.players = players
        self.time = time
        self.events = [] if events is None else events

    @classmethod
    def starting(cls, message: MatchStart) -> MatchInfo:
        """The match a ``match_start`` message begins: the message's fields (the protocol's
        one definition of them) are the first of this class's, in order."""
        return cls(message.match_id, message.variant, message.options, message.seat, message.players, message.time)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    @cached_property
    def rules(self) -> Variant:
        """The variant's rules engine (the same code the referee runs)."""
        from arena.rules import get_variant

        return get_variant(self.variant)

    @cached_property
    def resolved_options(self) -> dict[str, Any]:
        """Every option value of this match (defaults filled in)."""
        return self.rules.resolve(self.options)

    def value(self, cards: Sequence[str | int]) -> HandValue:
        """The value of a hand under this match's options (``match.value(obs["hand"])``): cards
        by name, or as ints (``rank * 4 + suit``, as :class:`arena.cards.Card` is).  CardError
        or RulesError for a malformed hand.  Each distinct hand is evaluated once; in a hot
        loop :meth:`evaluator` saves the names' parsing too."""
        from arena.cards import NAMES, CardError, parse_cards

        names = []
        for card in cards:
            if not isinstance(card, str):
                if not 0 <= card < len(NAMES):
                    raise CardError(f"invalid card {card!r}: a card int is rank * 4 + suit, 0 to 51")
                card = NAMES[card]
            names.append(card)
        return self._evaluator(parse_cards(names))

    def evaluator(self) -> Callable[[Sequence[int]], HandValue]:
        """A fast :meth:`value` for search and simulation: a function of a hand's cards as ints
        (``rank * 4 + suit``: :class:`arena.cards.Card` or plain ``int``, in any order) that
        gives its value under this match's options.  The rules engine evaluates each distinct
        hand once (RulesError for a malformed one, e.g. a card twice); after that a call
        costs a dict lookup::

            value = match.evaluator()
            best = max(value((a, b, c)).value for a, b, c in combinations(cards, 3))
        """
        return self._evaluator

    @cached_property
    def _evaluator(self) -> Callable[[Sequence[int]], HandValue]:
        """One evaluator for every match of the process with these rules and options."""
        options = self.resolved_options
        key = (self.variant, repr(sorted(options.items())))
        evaluator = _EVALUATORS.get(key)
        if evaluator is None:
            from arena.rules.hands import cached_evaluator

            family, fixed = self.rules.family, dict(options)  # a bot may change its match's dict
            evaluator = _EVALUATORS[key] = cached_evaluator(lambda cards: family.evaluate(cards, fixed))
        return evaluator


_EVALUATORS: dict[tuple[str, str], Callable[[Sequence[int]], HandValue]] = {}
""":meth:`MatchInfo.evaluator` by variant and option values: a bot process plays many matches."""


class BotSpec:
    """The hooks a Python bot may implement.  Only ``choose`` is required.

    pluggy passes each implementation only the arguments it names, so
    ``def choose(legal)`` is as valid as ``def choose(observation, legal, match, time_left_ms)``.
    """

    @hookspec(firstresult=True)
    def choose(  # type: ignore[empty-body]
        self, observation: dict[str, Any], legal: list[str], match: MatchInfo, time_left_ms: int
    ) -> str:
        """Return one of ``legal`` (action texts such as ``"draw"``, ``"discard 6h"``).

        ``time_left_ms``: how long this decision may take before it times out (the
        referee's own clock: the pipes and the bot host's work count against it)."""

    @hookspec
    def match_start(self, match: MatchInfo) -> None:
        """A match begins; ``match`` says which variant, options, seat and time control."""

    @hookspec
    def on_event(self, event: dict[str, Any], match: MatchInfo) -> None:
        """Something happened that this seat may see (another player's action, a round end)."""

    @hookspec
    def match_end(self, outcome: dict[str, Any], match: MatchInfo) -> None:
        """The match is over; ``outcome`` has ``placements``, ``scores`` and ``reason``."""
