"""Rules families and the named variants (presets) built on them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from arena.cards import Card, Seed
from arena.rules.game import MatchState, RulesError
from arena.rules.hands import HandValue
from arena.rules.options import OptionSpec, resolve_options

__all__ = ["Family", "Variant", "check_hand"]


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


def check_hand(cards: Sequence[Card], size: int, deck: int = 52) -> None:
    """RulesError unless ``cards`` is a hand of ``size`` distinct cards of the ``deck``-card deck
    (what every family's :meth:`Family.evaluate` checks first)."""
    if len(cards) != size:
        raise RulesError(f"a hand in this game has {size} cards, not {len(cards)}")
    if len(set(cards)) != size:
        raise RulesError("a hand cannot hold the same card twice")
    if deck == 32 and any(c >> 2 < 5 for c in cards):
        low = " ".join(str(c) for c in cards if c >> 2 < 5)
        raise RulesError(f"{low}: not in the 32-card deck (7 to A)")


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
