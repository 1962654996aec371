"""TrueSkill ratings, derived from the stored matches and never the other way round.

Every match is one free-for-all update: each seat is a team of one, ranked by its
placement (shared placements are draws).  Matches are rated in schedule order, so a
tournament that was stopped and resumed rates exactly like one that ran straight through.

The environment is chosen for this game family:

- ``mu = 25``, ``sigma = 25/3``, ``beta = 25/6``: TrueSkill's defaults; conservative
  ratings (``mu - 3 sigma``) start at 0.
- ``draw_probability = 0.10``: shared placements are common in elimination games (players
  knocked out in the same round share a place) and at the round cap; about one pair of
  neighbouring placements in ten is shared in the bundled tournaments, and too low a value
  makes every shared place a large surprise.
- ``tau = 0``: no dynamics.  TrueSkill's default ``tau`` (25/300) adds variance before
  every match so that a person's rating can follow a skill that changes; a bot version is
  a fixed program (changed code is a new version, a new entrant), so its skill is one
  number to estimate, as in the static models chess-engine testers use (BayesElo, Ordo).
  The default ``tau`` also keeps sigma from shrinking much below 0.7 however many matches
  are played (0.68 after 192 four-player matches, against 0.40 without it), so a
  difference between two bots that the matches make clear never shows in their
  conservative ratings.

The float backend can fail on extreme ratings (``FloatingPointError``); the update is then
redone with the ``mpmath`` backend.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

import trueskill

from arena.tournament.store import MatchRecord, Store

__all__ = ["ENVIRONMENT", "Rating", "conservative", "quality", "rate", "ratings", "scope"]

MU: Final = 25.0
SIGMA: Final = MU / 3
ENVIRONMENT: Final = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=0.0, draw_probability=0.10)
_PRECISE: Final = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=0.0, draw_probability=0.10,
                                      backend="mpmath")


@dataclass(frozen=True)
class Rating:
    """A bot version's skill estimate and how many matches it rests on."""

    mu: float
    sigma: float
    matches: int

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: 99.7% sure the skill is at least this; tables sort by it."""
        return conservative(self.mu, self.sigma)


def conservative(mu: float, sigma: float) -> float:
    """``mu - 3 sigma``."""
    return mu - 3 * sigma


def rate(matches: Iterable[MatchRecord], start: dict[int, Rating] | None = None) -> dict[int, Rating]:
    """Ratings per bot version after every match, in the order given, from ``start``
    (default: everyone new)."""
    state = {v: trueskill.Rating(r.mu, r.sigma) for v, r in (start or {}).items()}
    played = {v: r.matches for v, r in (start or {}).items()}
    for match in matches:
        versions = [s.version for s in match.seats]
        teams = [(state.get(v) or ENVIRONMENT.create_rating(),) for v in versions]
        ranks = [s.placement for s in match.seats]
        try:
            updated = ENVIRONMENT.rate(teams, ranks=ranks)
        except FloatingPointError:
            updated = _PRECISE.rate(teams, ranks=ranks)
        for version, (rating,) in zip(versions, updated):
            state[version] = trueskill.Rating(float(rating.mu), float(rating.sigma))
            played[version] = played.get(version, 0) + 1
    return {v: Rating(r.mu, r.sigma, played[v]) for v, r in state.items()}


def quality(ratings: Iterable[Rating]) -> float:
    """TrueSkill's match quality of a free-for-all table (the draw probability, 0..1):
    high when the players are evenly matched and well known."""
    return float(ENVIRONMENT.quality([(trueskill.Rating(r.mu, r.sigma),) for r in ratings]))


def scope(tournament: str, variant: str | None = None) -> str:
    """The cache key of a ranking: a tournament, overall (``*``) or for one variant."""
    return f"{tournament}/{variant or '*'}"


def ratings(store: Store, tournament: str, variant: str | None = None, *, fresh: bool = False) -> dict[int, Rating]:
    """The ratings of a tournament (overall or for one variant), from the cache when it
    covers every stored match, else recomputed and cached.  ``fresh`` always recomputes."""
    key = scope(tournament, variant)
    stored = store.count(tournament, variant)
    cached = None if fresh else store.cached_ratings(key)
    if cached is not None and cached[1] == stored:
        return {v: Rating(mu, sigma, n) for v, (mu, sigma, n) in cached[0].items()}
    result = rate(store.matches(tournament, variant))
    store.save_ratings(key, {v: (r.mu, r.sigma, r.matches) for v, r in result.items()}, stored)
    return result
