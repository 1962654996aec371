"""The geometry of the small charts drawn as SVG on the server: interval bars beside a
ranking, a histogram of thinking times, and the rating history a page hands to uPlot.

Small static pictures are drawn here rather than in the browser: they need no script (the
pages read the same with scripts off), and an SVG's coordinates are attributes, which the
pages' Content-Security-Policy allows where inline styles are not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.tournament.ratings import history
from arena.tournament.store import Store

__all__ = ["Bar", "Bin", "Histogram", "BAR_WIDTH", "interval_bars", "histogram", "rating_history"]

BAR_WIDTH: Final = 160
"""Width of an interval bar's SVG, in its own units."""
HISTORY_POINTS: Final = 240
"""A rating history has at most this many points (one every 2^k matches)."""


@dataclass(frozen=True)
class Bar:
    """One ranking line's 95% interval of mu (``low`` to ``high``) and mu, as x positions."""

    low: float
    high: float
    mu: float


def interval_bars(lines: Sequence[tuple[float, tuple[float, float] | None]]) -> list[Bar | None]:
    """For each (mu, interval or None), its bar on a scale shared by every line."""
    values: list[float] = [v for mu, interval in lines for v in (mu, *(interval or ()))]
    if not values:
        return []
    low, high = min(values), max(values)
    span = (high - low) or 1.0

    def x(value: float) -> float:
        return round(4 + (value - low) / span * (BAR_WIDTH - 8), 1)

    return [None if interval is None else Bar(x(interval[0]), x(interval[1]), x(mu)) for mu, interval in lines]


@dataclass(frozen=True)
class Bin:
    """One bar of a histogram: its range, count and drawn height (0..1 of the tallest)."""

    low: float
    high: float
    count: int
    height: float
    tick: str
    """Its lower edge when that is a power of ten (the axis labels), else empty."""


@dataclass(frozen=True)
class Histogram:
    """Counts of values in logarithmic bins (four per factor of ten)."""

    bins: list[Bin]
    median: float
    p90: float
    largest: float


def histogram(values: Sequence[float]) -> Histogram | None:
    """A histogram of positive ``values`` (None for none); zeros fall in the first bin."""
    if not values:
        return None
    ordered = sorted(values)
    positive = [v for v in ordered if v > 0] or [1e-3]
    first = math.floor(4 * math.log10(positive[0]))
    last = max(math.floor(4 * math.log10(positive[-1])) + 1, first + 1)
    counts = [0] * (last - first)
    for value in ordered:
        step = math.floor(4 * math.log10(value)) if value > 0 else first
        counts[min(max(step - first, 0), len(counts) - 1)] += 1
    tallest = max(counts)
    bins = [Bin(10 ** ((first + k) / 4), 10 ** ((first + k + 1) / 4), n, n / tallest,
                f"{10 ** ((first + k) // 4):g}" if (first + k) % 4 == 0 else "") for k, n in enumerate(counts)]
    return Histogram(bins, _quantile(ordered, 0.5), _quantile(ordered, 0.9), ordered[-1])


def _quantile(ordered: Sequence[float], p: float) -> float:
    return ordered[min(int(p * len(ordered)), len(ordered) - 1)]


def rating_history(store: Store, tournament: str, variant: str | None, versions: Sequence[int],
                   labels: Sequence[str]) -> dict[str, Any]:
    """Each version's conservative rating (the tables' ``rating``) as the matches of the
    ranking accumulate, in schedule order, rated with the ranking's own environment: the
    last point is the table's rating.  ``{"x": matches rated, "series": [{"label",
    "values"}]}`` (``None`` before a version's first match)."""
    points = history(store, tournament, variant, HISTORY_POINTS)
    series = [[None if (r := rated.get(v)) is None else round(r.conservative, 3) for _, rated in points]
              for v in versions]
    return {"x": [n for n, _ in points],
            "series": [{"label": label, "values": values} for label, values in zip(labels, series)]}
