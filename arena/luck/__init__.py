"""Luck-adjusted results: each seat's result minus the luck of the cards it was dealt and
drew, measured after the match (AIVAT's chance terms: Burch, Schmid, Moravcik, Morrill and
Bowling, AAAI 2018).

The match is played again by the rules engine from its seed and stored log, and every
chance event's luck is entered in a :class:`~arena.luck.ledger.Ledger`.  Whatever the value
estimate, the luck has mean zero, so an adjusted score estimates the same thing as the raw
one; the better the estimate, the less of the cards' noise is left.  Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.luck.follower import Follower
from arena.luck.highest import Highest
from arena.luck.ledger import Ledger
from arena.luck.three_cards import ThreeCards
from arena.rules import RulesError, get_variant
from arena.rules.game import Action, next_move

__all__ = ["BOUND", "KINDS", "VERSION", "WEIGHTS", "Luck", "match_luck", "supported", "weights_of"]

VERSION: Final = "luck-2"
"""Names the value estimate and its weights: results adjusted by different versions are
never mixed."""
KINDS: Final = {
    "thirty-one": ("deal", "draw", "last draw"),
    "widow": ("deal",),
    "fifty-one": ("deal",),
    "fifty-one-chinese": ("deal",),
    "empat-satu": ("deal", "draw"),
    "skat": ("deal",),
}
"""The kinds of event each family's estimate enters (the Chinese draws, fitted at 0.013 on
training matches, cost nine tenths of that family's measuring time and are left out)."""
WEIGHTS: Final[dict[str, dict[str, float]]] = {
    "scat": {"deal": 0.421, "draw": 0.777, "last draw": 0.908},
    "scat-trips": {"deal": 0.442, "draw": 0.735, "last draw": 0.948},
    "dollar-bill": {"deal": 0.521, "draw": 0.82, "last draw": 0.943},
    "eenendertigen": {"deal": 0.524, "draw": 1.018, "last draw": 0.874},
    "california-quick": {"deal": 0.876, "draw": 1.09, "last draw": 0.716},
    "west-lansing": {"deal": 0.463, "draw": 0.603, "last draw": 0.91},
    "no-elimination": {"deal": 0.278, "draw": 0.381, "last draw": 0.251},
    "banking": {"deal": 0.127, "draw": 0.142, "last draw": 0.083},
    "schwimmen": {"deal": 0.313},
    "stop-the-bus": {"deal": 0.143},
    "switch": {"deal": 0.247},
    "fifty-one": {"deal": 0.109},
    "fifty-one-chinese": {"deal": 0.011},
    "empat-satu": {"deal": 0.065, "draw": 0.078},
    "skat": {"deal": 0.051},
}
"""Each kind's weight per variant: the control variate's coefficients, fitted by least
squares on training matches only (``benchmarks/luck.py --fit``: 600 matches of each case,
seeds of their own), then fixed here.  Any weights keep the estimate unbiased; good ones
remove the most noise, and a variant's own rules (chips, points, brag ranks) need their
own.  A variant without weights of its own (a plugin's preset) takes its family's first
preset's."""
_FALLBACK: Final = {"thirty-one": "scat", "widow": "schwimmen", "fifty-one": "fifty-one",
                    "fifty-one-chinese": "fifty-one-chinese", "empat-satu": "empat-satu", "skat": "skat"}
BOUND: Final = 0.5
"""The most luck a seat can carry in one match (a result is a share in 0..1)."""

_FAMILIES: Final[dict[str, type[Follower]]] = {
    "thirty-one": ThreeCards, "widow": ThreeCards, "fifty-one": Highest, "fifty-one-chinese": Highest,
    "empat-satu": Highest, "skat": Highest}


@dataclass(frozen=True)
class Luck:
    """One match's luck per seat, and by kind of event."""

    seats: tuple[float, ...]
    parts: dict[str, tuple[float, ...]]
    skipped: int = 0
    """Seat terms left out to keep every seat within :data:`BOUND`."""


def supported(variant: str) -> bool:
    """Whether matches of ``variant`` can be adjusted (False for a variant this arena lacks)."""
    try:
        return get_variant(variant).family.name in _FAMILIES
    except RulesError:
        return False


def no_estimate(variant: str) -> str | None:
    """Why ``variant``'s matches cannot have their luck taken out, or None when they can:
    a verdict asked to take it out must refuse rather than quietly judge raw scores."""
    if supported(variant):
        return None
    return f"{variant} has no luck estimate (its rules come from a plugin)"


def weights_of(variant: str) -> dict[str, float]:
    """The weights ``variant``'s luck is measured with."""
    rules = get_variant(variant)
    return WEIGHTS.get(rules.name) or WEIGHTS[_FALLBACK[rules.family.name]]


def match_luck(variant: str, players: int, options: Mapping[str, Any], seed: int | bytes,
               events: Sequence[Mapping[str, Any]], *, weights: Mapping[str, float] | None = None,
               bound: float = BOUND) -> Luck | None:
    """The luck of each seat of a stored match, or None where it cannot be measured (a
    family without a value estimate, or a log the engine would not play again as stored)."""
    rules = get_variant(variant)
    follower = _FAMILIES.get(rules.family.name)
    if follower is None:
        return None
    ledger = Ledger(players, weights_of(variant) if weights is None else weights, bound)
    try:
        state = rules.new_match(players, seed=seed, options=options)
        watcher = follower(state, ledger)
        watcher.after(state, 0)
        while len(state.log) < len(events):
            done = len(state.log)
            event = next_move(events, done)
            if event.get("event") == "action":
                own = event.get("private", {}).get(str(event.get("seat")), {})
                action = Action.parse(str(own.get("action", event["action"])))  # a Skat discard: its cards
                watcher.before(state, action)
                state.apply(action)
            elif event.get("event") == "forfeit":
                state.forfeit(int(event["seat"]))
            else:
                return None
            if len(state.log) == done:  # a forfeit the engine ignores: the logs differ
                return None
            watcher.after(state, done)
    except (RulesError, KeyError, ValueError, TypeError, IndexError):
        return None
    if len(state.log) != len(events) or not _same_deals(state.log, events):
        return None
    return Luck(tuple(ledger.total), {k: tuple(v) for k, v in ledger.parts.items()}, ledger.skipped)


def _same_deals(log: Sequence[Any], events: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the engine dealt every hand as stored (a changed deck or rule shows here)."""
    for mine, stored in zip(log, events):
        if mine.kind == "deal" and mine.full().get("private") != stored.get("private"):
            return False
    return True
