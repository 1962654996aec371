"""A ranking's matches as arrays (arena/tournament/results.py) against the same matches
read one object at a time."""

from __future__ import annotations

import random

import pytest

from arena.tournament.results import NO_DEAL, Results
from arena.tournament.store import MatchRecord, SeatRecord


def played(rng: random.Random, count: int) -> list[MatchRecord]:
    """Matches of 2 to 5 seats of versions 1..6 (a version may sit twice), some on shared
    deals of two variants, some from public seeds."""
    found = []
    for number in range(count):
        size = rng.randint(2, 5)
        seats = tuple(SeatRecord(rng.randint(1, 6), rng.randint(1, size), 0.0, rng.randint(0, 2)) for _ in range(size))
        deal = rng.choice([None, rng.randint(0, 3)])
        found.append(MatchRecord(f"m{number}", "t", number, rng.choice(["scat", "schwimmen"]), {}, 0, seats, "over",
                                 1, 1, deal=deal))
    return found


@pytest.mark.parametrize("seed", range(5))
def test_arrays_hold_each_match_as_read(seed: int) -> None:
    matches = played(random.Random(seed), 60)
    results = Results.of(matches)
    assert len(results) == 60
    tables = list(results.tables())
    assert tables == [([s.version for s in m.seats], [s.placement for s in m.seats]) for m in matches]
    assert [results.variants[v] for v in results.variant.tolist()] == [m.variant for m in matches]
    assert results.deal.tolist() == [NO_DEAL if m.deal is None else m.deal for m in matches]
    assert results.faults.tolist() == [s.faults for m in matches for s in m.seats]
    low, high = 17, 41
    assert list(results[low:high].tables()) == tables[low:high]


@pytest.mark.parametrize("seed", range(5))
def test_groups_and_pairs_are_those_of_one_match_at_a_time(seed: int) -> None:
    matches = played(random.Random(seed), 80)
    results = Results.of(matches)
    keys: dict[tuple[object, ...], int] = {}
    expected = [keys.setdefault(("match", m.id) if m.deal is None else (m.variant, len(m.seats), m.deal), len(keys))
                for m in matches]
    group, groups = results.groups()
    assert group.tolist() == expected and groups == len(keys)
    both = results.pairs()
    got = sorted(zip(both.match.tolist(), results.version[both.first].tolist(), results.placement[both.first].tolist(),
                     results.version[both.second].tolist(), results.placement[both.second].tolist()))
    want = sorted((k, a.version, a.placement, b.version, b.placement) for k, m in enumerate(matches)
                  for i, a in enumerate(m.seats) for b in m.seats[i + 1:])
    assert got == want


def test_what_rating_reads_joins_like_the_matches() -> None:
    """The rating journal digests runs of matches one after another: two runs' digests,
    chained, must be the digest of both, and any change of a version or placement shows."""
    results = Results.of(played(random.Random(9), 50))
    assert results[:20].said() + results[20:].said() == results.said()
    assert results[:0].said() == b""
    changed = played(random.Random(9), 50)
    first = changed[30]
    changed[30] = MatchRecord(first.id, first.tournament, first.seq, first.variant, {}, 0,
                              (SeatRecord(first.seats[0].version, first.seats[0].placement + 1, 0.0),
                               *first.seats[1:]), "over", 1, 1, deal=first.deal)
    assert Results.of(changed).digest() != results.digest()
