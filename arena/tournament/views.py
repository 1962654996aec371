"""What the results commands show, computed from the store: standings, head-to-head
records, export rows, a match's log as one seat or a spectator saw it, and re-rating.

Pure queries and aggregations (no printing), each one pass over the stored matches, so a
tournament of ten thousand matches is summed in a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from arena.errors import ArenaError
from arena.luck import VERSION as LUCK_VERSION
from arena.text import counted
from arena.tournament.adjust import measure_luck
from arena.tournament.logs import decompress_log
from arena.tournament.ratings import Rating, environment, ratings
from arena.tournament.results import Results
from arena.tournament.stats import Uncertainty, ahead, rating_points, uncertainty
from arena.tournament.store import MatchRecord, Store, VersionRow

__all__ = [
    "Crosstable",
    "Replay",
    "EXPORT_FIELDS",
    "STANDING_FIELDS",
    "ResultsError",
    "Standing",
    "check_variant",
    "crosstable",
    "export_rows",
    "labels",
    "open_store",
    "pick_tournament",
    "ranked",
    "ranking_groups",
    "replay",
    "rerate",
    "score_share",
    "standings",
    "variants_played",
]


class ResultsError(ArenaError, ValueError):
    """What was asked for is not in the results database."""


def open_store(path: Path) -> Store:
    """The results database at ``path``; unlike :class:`Store`, never creates an empty one."""
    if not path.is_file():
        raise ResultsError(
            f"no results database at {path}: play a tournament first (`arena run`), or point --db"
            " (or ARENA_DB) at one"
        )
    return Store(path)


def pick_tournament(store: Store, name: str | None) -> str:
    """``name`` if the store knows it, else (when ``None``) the most recently updated one."""
    known = store.tournaments()
    if name is None:
        if not known:
            raise ResultsError(f"no tournaments in {store.path} yet: `arena run TOURNAMENT` plays one")
        return known[0][0]
    if any(t == name for t, _, _ in known) or store.count(name):
        return name
    listed = ", ".join(f"{t} ({counted(n, 'match')})" for t, n, _ in known) or "none yet"
    raise ResultsError(f"no tournament {name!r} in {store.path}; known: {listed}")


def variants_played(store: Store, tournament: str | None) -> list[str]:
    """The variants with stored matches in ``tournament`` (all tournaments for ``None``)."""
    return store.variants(tournament)


def check_variant(store: Store, tournament: str, variant: str | None) -> None:
    """Refuse a variant the tournament has no matches of, naming those it has."""
    if variant is not None and not store.count(tournament, variant):
        played = ", ".join(variants_played(store, tournament)) or "none yet"
        raise ResultsError(f"tournament {tournament!r} has no matches of variant {variant!r} (played: {played})")


def labels(versions: Iterable[VersionRow]) -> dict[int, str]:
    """A short name per version: the bot's name, or ``name:hash8`` where a bot has several."""
    chosen = list(versions)
    names = [v.bot for v in chosen]
    return {v.id: v.bot if names.count(v.bot) == 1 else v.short for v in chosen}


# -- standings ----------------------------------------------------------------------------


@dataclass
class _Tally:
    matches: int = 0
    wins: int = 0
    placements: int = 0
    faults: int = 0
    ahead: bool = False
    """Placed better than another bot at least once."""
    behind: bool = False
    """Placed worse than another bot at least once."""

    @property
    def bound(self) -> str | None:
        """``"at most"`` for a bot that never placed better than another (the data bound its
        strength from above only), ``"at least"`` for one that never placed worse."""
        if self.behind and not self.ahead:
            return "at most"
        if self.ahead and not self.behind:
            return "at least"
        return None


STANDING_FIELDS = (
    "rank", "bot", "hash", "version", "rating", "mu", "sigma", "mu_low", "mu_high", "interval_bound", "rank_best",
    "rank_worst",
    "ahead_of_next", "matches", "wins", "average_placement", "faults",
)
"""The columns of a ranking as data (``arena table --json`` / ``--csv``), in order."""


@dataclass(frozen=True)
class Standing:
    """One bot version's line in a ranking table."""

    rank: int
    """Competition rank (1, 2, 2, 4) by conservative rating: ratings equal to two decimals
    share a rank."""
    version: VersionRow
    rating: Rating
    matches: int
    wins: int
    """Matches it placed first in (shared first places count)."""
    faults: int
    placement_sum: int
    interval: tuple[float, float] | None
    """95% interval of ``mu`` (:mod:`arena.tournament.stats`: deal-group bootstrap); None
    while too few deals were played to say."""
    ranks: tuple[int, int] | None
    """The best and worst rank it holds in the middle 95% of the bootstrap."""
    ahead_of_next: float | None
    """How sure the data are that it is stronger than the next line (the bootstrap's share;
    None on the last line, and while too few deals were played)."""
    bound: str | None = None
    """``"at most"`` when it never placed better than another bot, ``"at least"`` when it
    never placed worse: then only that end of ``interval`` rests on the data (the other is
    the prior's, however narrow the interval looks)."""

    @property
    def interval_text(self) -> str:
        """The interval as the tables show it: ``-``, ``L to H``, or the one end the data
        support (``at most H``: a bot that never placed better than another)."""
        if self.interval is None:
            return "-"
        low, high = self.interval
        if self.bound == "at most":
            return f"at most {high:.1f}"
        if self.bound == "at least":
            return f"at least {low:.1f}"
        return f"{low:.1f} to {high:.1f}"

    @property
    def separated(self) -> bool | None:
        """Whether the data put it ahead of the next line at 95% (two-sided)."""
        return None if self.ahead_of_next is None else ahead(self.ahead_of_next)

    @property
    def average_placement(self) -> float:
        """Mean placement (1 = first)."""
        return self.placement_sum / self.matches if self.matches else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON- and CSV-ready form."""
        return {
            "rank": self.rank,
            "bot": self.version.bot,
            "hash": self.version.hash,
            "version": self.version.manifest.get("version", ""),
            "rating": round(self.rating.conservative, 4),
            "mu": round(self.rating.mu, 4),
            "sigma": round(self.rating.sigma, 4),
            "mu_low": None if self.interval is None or self.bound == "at most" else round(self.interval[0], 4),
            "mu_high": None if self.interval is None or self.bound == "at least" else round(self.interval[1], 4),
            "interval_bound": self.bound if self.interval is not None else None,
            "rank_best": None if self.ranks is None else self.ranks[0],
            "rank_worst": None if self.ranks is None else self.ranks[1],
            "ahead_of_next": None if self.ahead_of_next is None else round(self.ahead_of_next, 4),
            "matches": self.matches,
            "wins": self.wins,
            "average_placement": round(self.average_placement, 4),
            "faults": self.faults,
        }


def _tally(matches: Results) -> dict[int, _Tally]:
    """Each version's seats, wins, placements and faults, and whether it ever placed ahead
    of (or behind) another bot, in order of first appearance."""
    found, first, seat_of = np.unique(matches.version, return_index=True, return_inverse=True)
    seat_of = seat_of.reshape(-1)
    size = len(found)
    seats = np.bincount(seat_of, minlength=size)
    wins = np.bincount(seat_of, weights=matches.placement == 1, minlength=size)
    placements = np.bincount(seat_of, weights=matches.placement, minlength=size)
    faults = np.bincount(seat_of, weights=matches.faults, minlength=size)
    both = matches.pairs()
    a, b = seat_of[both.first], seat_of[both.second]
    pa, pb = matches.placement[both.first], matches.placement[both.second]
    first_ahead, second_ahead = (a != b) & (pa < pb), (a != b) & (pb < pa)
    ahead, behind = np.zeros(size, dtype=bool), np.zeros(size, dtype=bool)
    ahead[a[first_ahead]] = ahead[b[second_ahead]] = True
    behind[b[first_ahead]] = behind[a[second_ahead]] = True
    return {int(found[k]): _Tally(int(seats[k]), int(wins[k]), int(placements[k]), int(faults[k]), bool(ahead[k]),
                                  bool(behind[k])) for k in np.argsort(first, kind="stable")}


def standings(store: Store, tournament: str, variant: str | None = None, *, level: float = 0.95,
              luck: bool = False) -> list[Standing]:
    """The ranking of ``tournament`` (or of one of its variants), best conservative rating
    first; ties in rating are ordered by mu, then by name.  ``ahead_of_next`` is computed
    for statements at ``level`` (the bootstrap's stretch for few deal groups depends on it).
    With ``luck``, the intervals, ranks and odds rest on luck-adjusted comparisons
    (:mod:`arena.tournament.adjust`); ratings and placements stay as played.  A read-only
    store cannot measure: matches not measured yet keep their raw scores."""
    return ranked(store, tournament, variant, level=level, luck=luck)[0]


def ranked(store: Store, tournament: str, variant: str | None = None, *,
           level: float = 0.95, luck: bool = False) -> tuple[list[Standing], Uncertainty]:
    """:func:`standings`, and the bootstrap they rest on (indexed like them): a page that
    also shows the head-to-head odds need not bootstrap twice."""
    check_variant(store, tournament, variant)
    if luck:
        measure_luck(store, tournament, variant)
    matches = store.results(tournament, variant, luck=LUCK_VERSION if luck else None)
    tallies = _tally(matches)
    rated = ratings(store, tournament, variant)  # after the tally: it covers every match tallied
    rows = [(store.version(v), rated[v], t) for v, t in tallies.items()]
    rows.sort(key=lambda r: (-_rank_key(r[1]), -r[1].mu, r[0].bot, r[0].hash))
    keys = [_rank_key(r[1]) for r in rows]
    spread = uncertainty(matches, [r[0].id for r in rows], level=level)
    points = rating_points(environment(store, tournament, variant).beta)
    result = []
    for k, ((version, rating, t), key) in enumerate(zip(rows, keys)):
        interval = ranks = ahead = None
        if spread.enough:
            low, high = spread.shift(k, level)
            interval, ranks = (rating.mu + points * low, rating.mu + points * high), spread.rank_range(k, level)
            ahead = spread.stronger(k, k + 1) if k + 1 < len(rows) else None
        result.append(Standing(1 + sum(other > key for other in keys), version, rating, t.matches, t.wins,
                               t.faults, t.placements, interval, ranks, ahead, t.bound))
    return result, spread


def ranking_groups(store: Store, tournament: str, variant: str | None = None) -> int:
    """How many independent deal groups the ranking rests on."""
    return store.results(tournament, variant).groups()[1]


def _rank_key(rating: Rating) -> float:
    """The conservative rating as tables show it (two decimals): TrueSkill's free-for-all
    update depends slightly on seat order, so bots that tied every match differ in the
    fourth decimal, and a rank split that a reader cannot see would look like a bug."""
    return round(rating.conservative, 2)


# -- head to head -------------------------------------------------------------------------


@dataclass(frozen=True)
class Crosstable:
    """Head-to-head records: for two versions that met, how often the first placed better
    than the second, the same, or worse, over every pair of their seats at a table."""

    versions: list[VersionRow]
    """Every version that played, best rated first (the order of the table)."""
    records: dict[tuple[int, int], tuple[int, int, int]]
    """(version a, version b) -> (a better, tied, a worse); stored both ways round."""
    stronger: dict[tuple[int, int], float]
    """(version a, version b) -> how likely a is the stronger, by the deal-group bootstrap
    (empty while too few deals were played to say)."""

    def record(self, a: int, b: int) -> tuple[int, int, int] | None:
        """``a``'s (wins, ties, losses) against ``b``; ``None`` if they never met."""
        return self.records.get((a, b))


def score_share(record: tuple[int, int, int]) -> float:
    """The score of a (wins, ties, losses) record, a tie counting half: 1.0 = always placed
    better; 0.0 for no meetings."""
    wins, ties, losses = record
    met = wins + ties + losses
    return (wins + ties / 2) / met if met else 0.0


def crosstable(store: Store, tournament: str, variant: str | None = None,
               known: tuple[Sequence[Standing], Uncertainty] | None = None) -> Crosstable:
    """Head-to-head records of ``tournament`` (or one variant), ordered like its ranking
    (``known``: its standings at level 0.95 and their bootstrap, where the caller has them)."""
    rows, spread = ranked(store, tournament, variant) if known is None else known
    order = [s.version for s in rows]
    matches = store.results(tournament, variant)
    stronger = {(a.id, b.id): spread.stronger(i, j) for i, a in enumerate(order) for j, b in enumerate(order)
                if i != j and spread.enough}
    both = matches.pairs()
    first, second = matches.version[both.first], matches.version[both.second]
    apart = first != second
    outcome = np.sign(matches.placement[both.first[apart]] - matches.placement[both.second[apart]])  # -1: first better
    records: dict[tuple[int, int], tuple[int, int, int]] = {}
    if outcome.size:
        cases, times = np.unique(np.stack([first[apart], second[apart], outcome], axis=1), axis=0,
                                   return_counts=True)
        tallied: dict[tuple[int, int], list[int]] = {}
        for (x, y, result), count in zip(cases.tolist(), times.tolist()):
            tallied.setdefault((x, y), [0, 0, 0])[1 + result] += count
            tallied.setdefault((y, x), [0, 0, 0])[1 - result] += count
        records = {pair: (w, t, lost) for pair, (w, t, lost) in tallied.items()}
    return Crosstable(order, records, stronger)


# -- export -------------------------------------------------------------------------------

EXPORT_FIELDS = (
    "match", "tournament", "variant", "seed", "deal", "seat", "bot", "hash", "label", "placement", "score", "faults",
    "decisions", "think_s", "reason", "rounds", "finished",
)
"""The columns of ``arena export``, in order (``log`` is added to JSON lines on request)."""


def export_rows(store: Store, tournament: str | None, variant: str | None, *,
                logs: bool = False) -> Iterator[dict[str, Any]]:
    """One row per seat of every stored match, in schedule order; with ``logs``, the first
    seat's row of each match also carries the match's decompressed event log."""
    versions: dict[int, VersionRow] = {}
    for match in store.matches(tournament, variant, with_log=logs):
        finished = datetime.fromtimestamp(match.finished, UTC).isoformat(timespec="seconds")
        for number, seat in enumerate(match.seats):
            version = versions.get(seat.version)
            if version is None:
                version = versions[seat.version] = store.version(seat.version)
            row: dict[str, Any] = {
                "match": match.id, "tournament": match.tournament, "variant": match.variant,
                "seed": match.seed if match.deal is None else None, "deal": match.deal,
                "seat": number, "bot": version.bot, "hash": version.hash, "label": version.label,
                "placement": seat.placement, "score": seat.score, "faults": seat.faults,
                "decisions": seat.decisions, "think_s": round(seat.think_s, 6), "reason": match.reason,
                "rounds": match.rounds, "finished": finished,
            }
            if logs and number == 0:
                row["log"] = decompress_log(match.log)
            yield row


# -- one match ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    """A stored match and its log as a viewer saw it."""

    match: MatchRecord
    versions: list[VersionRow]
    """The bot version in each seat."""
    viewer: int | None
    """The seat whose view this is, or ``None``: a spectator after the match, who sees all."""
    events: list[dict[str, Any]]
    """The log: each event's public fields, plus ``private`` (seat -> fields) for a
    spectator, or merged with the viewer's own private fields."""


def replay(store: Store, match_id: str, seat: int | None = None) -> Replay:
    """Match ``match_id`` with its log, as everyone's (``seat=None``) or one seat's view."""
    match = store.match(match_id)
    if seat is not None and not 0 <= seat < len(match.seats):
        raise ResultsError(f"match {match_id} has seats 0 to {len(match.seats) - 1}, not {seat}")
    events = decompress_log(match.log)
    if seat is not None:
        events = [_seen_by(event, seat) for event in events]
    return Replay(match, [store.version(s.version) for s in match.seats], seat, events)


def _seen_by(event: dict[str, Any], seat: int) -> dict[str, Any]:
    """``event`` as ``seat`` saw it during play: the public part and its own private part."""
    seen = {k: v for k, v in event.items() if k != "private"}
    seen.update(event.get("private", {}).get(str(seat), {}))
    return seen


# -- ratings ------------------------------------------------------------------------------


def rerate(store: Store, tournament: str) -> dict[str | None, int]:
    """Recompute every rating scope of ``tournament`` from its stored matches (overall, key
    ``None``, and each variant played) and cache them; matches rated per scope."""
    ratings(store, tournament, fresh=True)
    rated: dict[str | None, int] = {None: store.count(tournament)}
    for variant in variants_played(store, tournament):
        ratings(store, tournament, variant, fresh=True)
        rated[variant] = store.count(tournament, variant)
    return rated
