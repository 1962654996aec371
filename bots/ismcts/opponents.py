"""What the opponents' own knocks have shown about them.

A knocker plays no more turns in its round, so the hand shown at the showdown is the hand
it knocked with: over a match, those values say how bold each opponent is.  The rollouts
let each opponent knock at its estimated threshold (and the sampler weighs deals by it)
instead of the policy's one-size threshold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

PRIOR_WEIGHT = 2.0
"""The policy's own threshold counts as this many observed knocks."""
OVERSHOOT = 1.0
"""A knock's value exceeds the knocker's threshold by about this much (it knocks at the
first turn its hand is good enough, often having just passed the mark)."""


class KnockModel:
    """Each opponent's knock values in this match, read from the round ends."""

    def __init__(self, me: int) -> None:
        self.me = me
        self.values: dict[int, list[float]] = {}
        self._read = 0

    def follow(self, events: Sequence[Mapping[str, Any]]) -> None:
        """Read the events not read yet."""
        for event in events[self._read:]:
            knocker = event.get("knocker") if event.get("event") == "round_end" else None
            if knocker is not None and knocker != self.me:
                shown = (event.get("values") or {}).get(str(knocker))
                if shown is not None:
                    self.values.setdefault(knocker, []).append(float(shown))
        self._read = len(events)

    def threshold(self, seat: int, default: float) -> float:
        """The estimated knock threshold of ``seat``, shrunk towards ``default``."""
        shown = self.values.get(seat, [])
        return (PRIOR_WEIGHT * default + sum(v - OVERSHOOT for v in shown)) / (PRIOR_WEIGHT + len(shown))

    def by_replayed_seat(self, seats: Sequence[int], default: float) -> dict[int, float]:
        """Thresholds of the opponents that have knocked, by seat of the replayed table."""
        return {i: self.threshold(real, default) for i, real in enumerate(seats) if real in self.values}
