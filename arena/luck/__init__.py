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

from arena.luck.highest import Highest
from arena.luck.ledger import Ledger
from arena.luck.three_cards import ThreeCards
from arena.rules import RulesError, get_variant
from arena.rules.game import Action, next_move

__all__ = ["BOUND", "VERSION", "WEIGHTS", "Luck", "match_luck", "supported"]

VERSION: Final = "luck-1"
"""Names the value estimate and its weights: results adjusted by different versions are
never mixed."""
WEIGHTS: Final = {
    "thirty-one": {"deal": 0.421, "draw": 0.777, "last draw": 0.908},
    "widow": {"deal": 0.313},
    "fifty-one": {"deal": 0.109},
    "fifty-one-chinese": {"deal": 0.011},
    "empat-satu": {"deal": 0.065, "draw": 0.078},
    "skat": {"deal": 0.033},
}
"""Each kind of event's weight, per family: the control variate's coefficients, fitted by
least squares on training matches only (``benchmarks/luck.py --fit``, 600 matches of each
of its cases, seeds of their own) and fixed here; any weights keep the estimate unbiased,
good ones remove the most noise.  A kind left out weighs nothing and costs nothing (the
Chinese draws fitted 0.013 and cost nine tenths of that family's measuring time)."""
BOUND: Final = 0.5
"""The most luck a seat can carry in one match (a result is a share in 0..1)."""

_FAMILIES: Final[dict[str, type[ThreeCards] | type[Highest]]] = {
    "thirty-one": ThreeCards, "widow": ThreeCards, "fifty-one": Highest, "fifty-one-chinese": Highest,
    "empat-satu": Highest, "skat": Highest}


@dataclass(frozen=True)
class Luck:
    """One match's luck per seat, and by kind of event."""

    seats: tuple[float, ...]
    parts: dict[str, tuple[float, ...]]
    skipped: int = 0
    """Seat terms left out to keep every seat within :data:`BOUND`."""
    version: str = VERSION


def supported(variant: str) -> bool:
    """Whether matches of ``variant`` can be adjusted (False for a variant this arena lacks)."""
    try:
        return get_variant(variant).family.name in _FAMILIES
    except RulesError:
        return False


def match_luck(variant: str, players: int, options: Mapping[str, Any], seed: int | bytes,
               events: Sequence[Mapping[str, Any]], *, weights: Mapping[str, float] | None = None,
               bound: float = BOUND) -> Luck | None:
    """The luck of each seat of a stored match, or None where it cannot be measured (a
    family without a value estimate, or a log the engine would not play again as stored)."""
    rules = get_variant(variant)
    follower = _FAMILIES.get(rules.family.name)
    if follower is None:
        return None
    ledger = Ledger(players, WEIGHTS[rules.family.name] if weights is None else weights, bound)
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
