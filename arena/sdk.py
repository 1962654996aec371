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
with this match's options (``match.value(cards)``) and the rules engine itself
(``match.rules.new_match(...)``) to simulate continuations from a guessed deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:  # the rules engine loads on first use: a bot that never needs it starts faster
    from arena.cards import Card
    from arena.rules import HandValue, Variant

__all__ = ["BotSpec", "MatchInfo", "PROJECT", "hookimpl", "hookspec"]

PROJECT = "arena-bot"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@dataclass
class MatchInfo:
    """What a bot knows about the match it is playing, from the ``match_start`` message."""

    match_id: str
    variant: str
    options: dict[str, Any]
    seat: int
    players: int
    time: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    """Every event this seat has seen so far in the match, oldest first."""

    @cached_property
    def rules(self) -> Variant:
        """The variant's rules engine (the same code the referee runs)."""
        from arena.rules import get_variant

        return get_variant(self.variant)

    @cached_property
    def resolved_options(self) -> dict[str, Any]:
        """Every option value of this match (defaults filled in)."""
        return self.rules.resolve(self.options)

    def value(self, cards: Sequence[str | Card]) -> HandValue:
        """The value of a hand under this match's options (``match.value(obs["hand"])``)."""
        from arena.cards import parse_cards

        parsed = parse_cards([str(c) for c in cards])
        return self.rules.family.evaluate(parsed, self.resolved_options)


class BotSpec:
    """The hooks a Python bot may implement.  Only ``choose`` is required.

    pluggy passes each implementation only the arguments it names, so
    ``def choose(legal)`` is as valid as ``def choose(observation, legal, match)``.
    """

    @hookspec(firstresult=True)
    def choose(self, observation: dict[str, Any], legal: list[str], match: MatchInfo) -> str:  # type: ignore[empty-body]
        """Return one of ``legal`` (action texts such as ``"draw"``, ``"discard 6h"``)."""

    @hookspec
    def match_start(self, match: MatchInfo) -> None:
        """A match begins; ``match`` says which variant, options, seat and time control."""

    @hookspec
    def on_event(self, event: dict[str, Any], match: MatchInfo) -> None:
        """Something happened that this seat may see (another player's action, a round end)."""

    @hookspec
    def match_end(self, outcome: dict[str, Any], match: MatchInfo) -> None:
        """The match is over; ``outcome`` has ``placements``, ``scores`` and ``reason``."""
