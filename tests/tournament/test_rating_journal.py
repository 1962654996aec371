"""A ranking looked at again rates only what is new, and rates exactly as afresh: matches
that land out of schedule order (a ladder's) and marks thinned as the matches grow."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.tournament import ratings as ratings_module
from arena.tournament.ratings import fit_environment, history, rate, ratings
from arena.tournament.results import Results
from arena.tournament.store import MatchRecord, SeatRecord, Store


def store_with_bots(path: Path, count: int) -> tuple[Store, list[int]]:
    store = Store(path)
    return store, [store.register(f"b{i}", f"{i:02x}" * 32, f"b{i}@1", None, {}).id for i in range(count)]


def add(store: Store, seq: int, versions: list[int], rng: random.Random, name: str = "") -> None:
    placements = list(range(1, len(versions) + 1))
    rng.shuffle(placements)
    assert store.record(MatchRecord(
        id=name or f"t-{seq:06d}", tournament="t", seq=seq, variant="scat", options={}, seed=seq,
        seats=tuple(SeatRecord(v, p, 0.0) for v, p in zip(versions, placements)), reason="test",
        rounds=1, decisions=1))


def afresh(store: Store) -> dict[int, ratings_module.Rating]:
    matches = store.results("t")
    return rate(matches, env=fit_environment(matches))


@pytest.mark.parametrize("marks", [ratings_module.MARKS, 8])  # 8: the marks thinned as they land
def test_matches_landing_out_of_order_rate_as_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     marks: int) -> None:
    monkeypatch.setattr(ratings_module, "MARKS", marks)
    store, versions = store_with_bots(tmp_path / "arena.db", 5)
    rng = random.Random(4)
    order = list(range(120))
    for start in range(0, 120, 6):  # each batch of six lands shuffled, as parallel tables finish
        batch = order[start:start + 6]
        rng.shuffle(batch)
        order[start:start + 6] = batch
    for landed, seq in enumerate(order, 1):
        add(store, seq, rng.sample(versions, rng.choice((2, 3))), rng)
        if landed % 5 == 0:
            assert ratings(store, "t") == afresh(store)
    assert ratings(store, "t") == afresh(store)


def test_the_history_is_evenly_spaced_and_ends_at_the_ratings(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratings_module, "MARKS", 8)  # so that a few dozen matches thin the marks twice
    store, versions = store_with_bots(tmp_path / "arena.db", 4)
    rng = random.Random(9)
    for seq in range(75):
        add(store, seq, rng.sample(versions, 2), rng)
        ratings(store, "t")
    points = history(store, "t", points=5)
    matches = store.results("t")
    env = fit_environment(matches)
    xs = [x for x, _ in points]
    assert xs[-1] == 75 and len(points) <= 5
    step = xs[0]
    assert step & (step - 1) == 0 and xs[:-1] == [step * (k + 1) for k in range(len(xs) - 1)]
    for x, rated in points:
        assert rated == rate(matches[:x], env=env)
    assert points[-1][1] == ratings(store, "t") == afresh(store)


def test_an_empty_ranking_has_no_history(tmp_path: Path) -> None:
    store, _ = store_with_bots(tmp_path / "arena.db", 2)
    assert history(store, "t") == [] and ratings(store, "t") == {}


def test_results_read_what_matches_read_in_the_same_order(tmp_path: Path) -> None:
    """Was a crash: matches sharing a schedule position (a tournament played again with
    more deals) had their seats interleaved into one-seat results."""
    store, versions = store_with_bots(tmp_path / "arena.db", 3)
    rng = random.Random(2)
    for n, seq in enumerate([0, 1, 0, 1, 2, 2, 0]):
        add(store, seq, rng.sample(versions, rng.choice((2, 3))), rng, name=f"z-{6 - n}")
    full = list(store.matches("t"))
    assert columns(store.results("t")) == columns(Results.of(full))
    assert [m.id for m in full] == ["z-6", "z-4", "z-0", "z-5", "z-3", "z-2", "z-1"]  # by seq, then as stored


def columns(results: Results) -> tuple[object, ...]:
    return (results.variants, *(c.tolist() for c in (results.variant, results.deal, results.starts, results.version,
                                                     results.placement, results.faults)))
