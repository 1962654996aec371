"""TrueSkill ratings, derived from the stored matches and never the other way round.

Every match is one free-for-all update: each seat is a team of one, ranked by its
placement (shared placements are draws).  Matches are rated in schedule order, so a
tournament that was stopped and resumed rates exactly like one that ran straight through.

The environment starts from TrueSkill's defaults (``mu = 25``, ``sigma = 25/3``: conservative
ratings ``mu - 3 sigma`` start at 0) and is **fitted to each ranking's own matches**:

- ``draw_probability``: the share of pairs of seats (of different bots) that shared a
  placement; elimination games share places often, points games rarely.
- ``beta``, the performance noise: how much one match says about skill.  In Thirty-One the
  cards decide much of each match, so the default (``sigma / 2``) overstates what a match
  shows.  It is chosen from a grid (the default times 2^(k/2), k = -2..6) by the
  prequential likelihood: every pair's result is predicted from the ratings before the
  match, and the beta that predicts the matches best is kept.
- ``tau = 0``: no dynamics.  TrueSkill's default ``tau`` (25/300) adds variance before
  every match so that a person's rating can follow a skill that changes; a bot version is
  a fixed program (changed code is a new version, a new entrant), so its skill is one
  number to estimate, as in the static models chess-engine testers use (BayesElo, Ordo).

TrueSkill's sigma is no confidence statement about the order (it shrinks as if every
match were a clean measurement); the intervals the tables show come from
:mod:`arena.tournament.stats`.

The float backend can fail on extreme ratings (``FloatingPointError``); the update is then
redone with the ``mpmath`` backend.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Final, Generic, TypeVar

import trueskill

from arena.tournament.results import Results
from arena.tournament.store import Store

__all__ = [
    "DEFAULT", "Environment", "Rating", "conservative", "environment", "fit_environment",
    "history", "quality", "rate", "ratings", "scope",
]

MU: Final = 25.0
SIGMA: Final = MU / 3
BETA: Final = SIGMA / 2
FIT_MATCHES: Final = 2000
"""The environment is fitted on at most this many matches (the first, in schedule order)."""
_BETA_GRID: Final = tuple(BETA * 2 ** (k / 2) for k in range(-2, 7))


@dataclass(frozen=True)
class Environment:
    """The TrueSkill settings a ranking is rated with."""

    beta: float
    draw: float

    @property
    def model(self) -> trueskill.TrueSkill:
        """The ``trueskill`` environment itself."""
        return _environment(self.beta, self.draw, "")

    @property
    def edge(self) -> str | None:
        """``"highest"`` or ``"lowest"`` when beta is at that end of the values the fit tries
        (the best fit may lie beyond: at the top, the results look like chance between these
        bots), else None."""
        if self.beta >= max(_BETA_GRID) - 1e-9:
            return "highest"
        if self.beta <= min(_BETA_GRID) + 1e-9:
            return "lowest"
        return None

    def to_dict(self) -> dict[str, object]:
        """The fitted settings as ``arena table --json`` shows them."""
        return {"beta": round(self.beta, 4), "draw": round(self.draw, 4), "beta_at_edge": self.edge}

    def describe(self) -> str:
        """One line for the table: what the ratings are computed with."""
        line = (f"rated with TrueSkill's beta {self.beta:.2f} and a draw probability of {self.draw:.2f}, "
                "both fitted to these matches")
        if self.edge == "highest":
            line += (" (beta at the highest value tried: the results look like chance between these bots, "
                     "whose ratings differ by less than their spread)")
        elif self.edge == "lowest":
            line += " (beta at the lowest value tried: the results are nearly all decided by strength)"
        return line

    def rate(self, teams: list[tuple[trueskill.Rating]], ranks: list[int]) -> list[tuple[trueskill.Rating]]:
        """TrueSkill's update; redone with the ``mpmath`` backend when floats fail."""
        try:
            return list(_environment(self.beta, self.draw, "").rate(teams, ranks=ranks))
        except FloatingPointError:
            return list(_environment(self.beta, self.draw, "mpmath").rate(teams, ranks=ranks))


_ENVIRONMENTS: dict[tuple[float, float, str], trueskill.TrueSkill] = {}


def _environment(beta: float, draw: float, backend: str) -> trueskill.TrueSkill:
    key = (beta, draw, backend)
    env = _ENVIRONMENTS.get(key)
    if env is None:
        env = _ENVIRONMENTS[key] = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=beta, tau=0.0,
                                                       draw_probability=draw, backend=backend or None)
    return env


DEFAULT: Final = Environment(BETA, 0.10)
"""Before any match is known (the league's pairing, an empty ranking)."""


@dataclass(frozen=True, slots=True)
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


def rate(matches: Results, start: dict[int, Rating] | None = None,
         env: Environment = DEFAULT) -> dict[int, Rating]:
    """Ratings per bot version after every match, in the order given, from ``start``
    (default: everyone new)."""
    state = {v: (r.mu, r.sigma) for v, r in (start or {}).items()}  # as floats: resuming rates alike
    played = {v: r.matches for v, r in (start or {}).items()}
    for versions, ranks in matches.tables():
        teams = [(trueskill.Rating(*state.get(v, (MU, SIGMA))),) for v in versions]
        updated = env.rate(teams, ranks)
        for version, (rating,) in zip(versions, updated):
            state[version] = (float(rating.mu), float(rating.sigma))
            played[version] = played.get(version, 0) + 1
    return {v: Rating(mu, sigma, played[v]) for v, (mu, sigma) in state.items()}


def quality(ratings: Iterable[Rating]) -> float:
    """TrueSkill's match quality of a free-for-all table (the draw probability, 0..1):
    high when the players are evenly matched and well known."""
    return float(DEFAULT.model.quality([(trueskill.Rating(r.mu, r.sigma),) for r in ratings]))


def fit_environment(matches: Results) -> Environment:
    """The draw probability and beta that describe these matches best (module docstring).
    A fit re-rates its matches nine times, and pages that follow a ladder ask again as every
    match lands while the first :data:`FIT_MATCHES`, all it looks at, stay the same: fits
    are remembered by what they depend on (:class:`_Remembered`)."""
    chosen = matches[:FIT_MATCHES]
    return _FITS.get(chosen.digest(), lambda: _fit(chosen))


def _fit(chosen: Results) -> Environment:
    both = chosen.pairs()
    apart = chosen.version[both.first] != chosen.version[both.second]
    pairs = int(apart.sum())
    ties = int((apart & (chosen.placement[both.first] == chosen.placement[both.second])).sum())
    if not pairs:
        return DEFAULT
    draw = min(max(ties / pairs, 0.01), 0.6)
    best = max(_BETA_GRID, key=lambda beta: _predictive(chosen, Environment(beta, draw)))
    return Environment(best, draw)


def _predictive(matches: Results, env: Environment) -> float:
    """Log-likelihood of every pair's result, each predicted from the ratings before its match."""
    unit = NormalDist()
    margin = unit.inv_cdf((env.draw + 1) / 2) * math.sqrt(2) * env.beta
    state: dict[int, trueskill.Rating] = {}
    total = 0.0
    for versions, places in matches.tables():
        teams = [(state.get(v) or trueskill.Rating(MU, SIGMA),) for v in versions]
        for i, a in enumerate(versions):
            for j in range(i + 1, len(versions)):
                if a == versions[j]:
                    continue
                ra, rb = teams[i][0], teams[j][0]
                spread = math.sqrt(2 * env.beta ** 2 + ra.sigma ** 2 + rb.sigma ** 2)
                lead = float(ra.mu - rb.mu)
                if places[i] == places[j]:
                    p = unit.cdf((margin - lead) / spread) - unit.cdf((-margin - lead) / spread)
                else:
                    sign = 1.0 if places[i] < places[j] else -1.0
                    p = unit.cdf((sign * lead - margin) / spread)
                total += math.log(max(p, 1e-12))
        for v, (rating,) in zip(versions, env.rate(teams, places)):
            state[v] = rating
    return total


T = TypeVar("T")


class _Remembered(Generic[T]):
    """The last few results of a costly pure computation, by a digest of its input
    (thread-safe: the web renders pages in threads)."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[bytes, T] = OrderedDict()

    def get(self, key: bytes, compute: Callable[[], T]) -> T:
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        value = compute()
        with self._lock:
            self._kept[key] = value
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return value


_FITS: Final[_Remembered[Environment]] = _Remembered()

MARKS: Final = 512
"""A journal keeps about this many marks at most; past that it keeps every other one."""


class _Journal:
    """A ranking rated so far, so that the next look rates only what is new.

    Every ``stride`` matches (a power of two) it marks the ratings after them, with a digest
    of every result before them.  A look checks its results against the marks and resumes
    from the last one they still agree with: a ladder's matches land out of schedule order
    (a later look finds an earlier slot filled), and only the marks past that slot are
    rated again.  The marks are also the rating history the pages draw.  Its size depends
    on the entrants, not on the matches: past :data:`MARKS` marks the stride doubles."""

    def __init__(self, env: Environment) -> None:
        self.env = env
        self.stride = 1
        self.marks: list[tuple[bytes, dict[int, Rating]]] = []
        """``marks[k]``: the digest of the first ``(k + 1) * stride`` results, and the ratings after them."""
        self.lock = threading.Lock()

    def advance(self, matches: Results) -> dict[int, Rating]:
        """The ratings after ``matches`` (all of the ranking's, in rating order)."""
        digest = hashlib.blake2b(digest_size=20)
        done = kept = 0
        for said, _ in self.marks:
            if done + self.stride > len(matches):
                break
            trial = digest.copy()
            trial.update(matches[done:done + self.stride].said())
            if trial.digest() != said:
                break
            digest, done, kept = trial, done + self.stride, kept + 1
        del self.marks[kept:]
        current = self.marks[-1][1] if self.marks else {}
        while done + self.stride <= len(matches):
            chunk = matches[done:done + self.stride]
            digest.update(chunk.said())
            current = rate(chunk, current, self.env)
            done += self.stride
            self.marks.append((digest.digest(), current))
            if len(self.marks) > MARKS and len(self.marks) % 2 == 0:  # the last mark stays
                self.marks = self.marks[1::2]
                self.stride *= 2
        return rate(matches[done:], current, self.env)


_JOURNALS: Final[OrderedDict[bytes, _Journal]] = OrderedDict()
JOURNALS: Final = 64
"""Rankings with a journal kept (the least recently read go first)."""
_JOURNALS_LOCK: Final = threading.Lock()


def _journal(store: Store, key: str, env: Environment) -> _Journal:
    """The journal of ranking ``key`` of ``store``'s database; a new one where the ranking's
    environment changed (it is fitted to the first :data:`FIT_MATCHES` matches, so it
    changes while a ranking is young, and rarely after)."""
    name = hashlib.blake2b(f"{store.path.resolve()}\0{key}".encode(), digest_size=20).digest()
    with _JOURNALS_LOCK:  # two pages of one ranking at once share one journal
        journal = _JOURNALS.get(name)
        if journal is None or journal.env != env:
            journal = _JOURNALS[name] = _Journal(env)
        _JOURNALS.move_to_end(name)
        while len(_JOURNALS) > JOURNALS:
            _JOURNALS.popitem(last=False)
        return journal


def scope(tournament: str, variant: str | None = None) -> str:
    """The cache key of a ranking: a tournament, overall (``*``) or for one variant."""
    return f"{tournament}/{variant or '*'}"


def ratings(store: Store, tournament: str, variant: str | None = None, *, fresh: bool = False) -> dict[int, Rating]:
    """The ratings of a tournament (overall or for one variant), from the cache when it
    covers every stored match, else recomputed and cached.  ``fresh`` always recomputes."""
    key = scope(tournament, variant)
    stored = store.count(tournament, variant)
    cached = None if fresh else store.cached_ratings(key)
    if cached is not None and cached[1] == stored and store.cached_environment(key) is not None:
        return {v: Rating(mu, sigma, n) for v, (mu, sigma, n) in cached[0].items()}
    matches = store.results(tournament, variant)
    env = fit_environment(matches)
    if fresh:
        result = rate(matches, env=env)
    else:
        journal = _journal(store, key, env)
        with journal.lock:
            result = journal.advance(matches)
    store.save_ratings(key, {v: (r.mu, r.sigma, r.matches) for v, r in result.items()}, len(matches),
                       (env.beta, env.draw))
    return result


def history(store: Store, tournament: str, variant: str | None = None,
            points: int = 240) -> list[tuple[int, dict[int, Rating]]]:
    """The ratings of a ranking as its matches accumulate, at most ``points`` times: (matches
    rated, ratings after them), evenly spaced (a power of two apart), the last after every
    match stored."""
    matches = store.results(tournament, variant)
    journal = _journal(store, scope(tournament, variant), _environment_of(store, scope(tournament, variant), matches))
    with journal.lock:
        last = journal.advance(matches)
        every = 1
        while len(journal.marks) // every > points - 1:
            every *= 2
        found = [((k + 1) * journal.stride, rated) for k, (_, rated) in enumerate(journal.marks)
                 if (k + 1) % every == 0]
    if not found or found[-1][0] != len(matches):
        found.append((len(matches), last))
    return found if matches else []


def _environment_of(store: Store, key: str, matches: Results) -> Environment:
    """The environment fitted to ``matches`` of ranking ``key``: the cached ratings' own where
    they cover as many matches (fitted to the same ones), else fitted now.  A fit re-rates
    its matches nine times: most of what a report spent on a ranking that was rated already."""
    cached = store.cached_ratings(key)
    fitted = store.cached_environment(key)
    if cached is not None and cached[1] == len(matches) and fitted is not None:
        return Environment(*fitted)
    return fit_environment(matches)


def environment(store: Store, tournament: str, variant: str | None = None) -> Environment:
    """The environment the ratings of ``tournament`` (or one variant) are rated with."""
    ratings(store, tournament, variant)
    fitted = store.cached_environment(scope(tournament, variant))
    return Environment(*fitted) if fitted else DEFAULT
