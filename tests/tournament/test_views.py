"""The results views over real SQLite stores holding real match logs."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.rules import get_variant
from arena.rules.game import MatchState
from arena.tournament.logs import compress_log
from arena.tournament.ratings import Rating, fit_environment, rate, ratings, scope
from arena.tournament.results import Results
from arena.tournament.store import MatchRecord, SeatRecord, Store, StoreError
from arena.tournament.views import (
    EXPORT_FIELDS,
    STANDING_FIELDS,
    ResultsError,
    crosstable,
    export_rows,
    open_store,
    pick_tournament,
    replay,
    rerate,
    score_share,
    standings,
)


def play(variant: str, players: int, seed: int) -> MatchState:
    """A real match of random legal actions."""
    state = get_variant(variant).new_match(players, seed=seed)
    rng = random.Random(seed)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    return state


def add(store: Store, tournament: str, seq: int, variant: str, versions: Sequence[int], *,
        placements: Sequence[int] | None = None, faults: Sequence[int] | None = None) -> MatchRecord:
    """Play a match and store it; ``placements`` overrides its outcome's where a test needs
    results it can count by hand."""
    state = play(variant, len(versions), seed=seq)
    assert state.outcome is not None
    placed = placements or state.outcome.placements
    record = MatchRecord(
        id=f"{tournament}-{variant}-{len(versions)}p-{seq:08x}-d0r0", tournament=tournament, seq=seq,
        variant=variant, options={}, seed=seq,
        seats=tuple(SeatRecord(v, p, score, (faults or [0] * len(versions))[i], 10, 0.02)
                    for i, (v, p, score) in enumerate(zip(versions, placed, state.outcome.scores))),
        reason=state.outcome.reason, rounds=state.outcome.rounds, decisions=len(state.actions()),
        log=compress_log([e.full() for e in state.log]),
    )
    assert store.record(record)
    return record


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "arena.db")


def bots(store: Store, *names: str) -> list[int]:
    return [store.register(name, f"{i:02x}" * 32, f"{name}@1.{i}", None, {"version": f"1.{i}"}).id
            for i, name in enumerate(names)]


def test_standings_sort_by_conservative_rating_with_counts(store: Store) -> None:
    a, b, c = bots(store, "alpha", "beta", "gamma")
    store.save_tournament("t", {})
    for seq in range(6):  # alpha always first, gamma always last; gamma faults twice in match 0
        add(store, "t", seq, "scat", [c, b, a], placements=[3, 2, 1], faults=[2, 0, 0] if seq == 0 else None)
    rows = standings(store, "t")
    assert [r.version.bot for r in rows] == ["alpha", "beta", "gamma"]
    assert [r.rank for r in rows] == [1, 2, 3]
    assert rows[0].rating.conservative > rows[1].rating.conservative > rows[2].rating.conservative
    assert [(r.matches, r.wins, r.average_placement, r.faults) for r in rows] == [
        (6, 6, 1.0, 0), (6, 0, 2.0, 0), (6, 0, 3.0, 2)]
    assert rows[0].rating == ratings(store, "t")[a]
    assert tuple(rows[0].to_dict()) == STANDING_FIELDS


def test_equal_ratings_share_a_rank(store: Store) -> None:
    a, b, c = bots(store, "alpha", "beta", "gamma")
    store.save_tournament("t", {})
    for seq in range(4):  # alpha and beta always share first place
        add(store, "t", seq, "scat", [a, b, c] if seq % 2 else [b, a, c], placements=[1, 1, 3])
    rows = standings(store, "t")
    assert [r.rank for r in rows] == [1, 1, 3]
    assert {r.version.bot for r in rows[:2]} == {"alpha", "beta"}
    assert rows[0].wins == rows[1].wins == 4


def test_a_variant_is_ranked_on_its_own_matches(store: Store) -> None:
    a, b = bots(store, "alpha", "beta")
    store.save_tournament("t", {})
    add(store, "t", 0, "scat", [a, b], placements=[1, 2])
    add(store, "t", 1, "banking", [a, b], placements=[2, 1])
    add(store, "t", 2, "banking", [b, a], placements=[1, 2])
    rows = standings(store, "t", "banking")
    assert [r.version.bot for r in rows] == ["beta", "alpha"]
    assert [r.matches for r in rows] == [2, 2]
    assert rows[0].rating == ratings(store, "t", "banking")[b]
    with pytest.raises(ResultsError, match=r"no matches of variant 'dollar-bill' \(played: banking, scat\)"):
        standings(store, "t", "dollar-bill")


def test_the_default_tournament_is_the_latest_and_unknown_ones_are_named(store: Store) -> None:
    with pytest.raises(ResultsError, match="no tournaments"):
        pick_tournament(store, None)
    (a,) = bots(store, "alpha")
    store.save_tournament("old", {})
    store.save_tournament("new", {})
    assert pick_tournament(store, None) == "new"
    add(store, "old", 0, "scat", [a, a])  # a newer match makes "old" the latest
    assert pick_tournament(store, None) == "old"
    with pytest.raises(ResultsError, match=r"no tournament 'nope' .*known: old \(1 match\), new \(0 matches\)"):
        pick_tournament(store, "nope")


def test_a_missing_database_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "results" / "none.db"
    with pytest.raises(ResultsError, match="no results database at"):
        open_store(path)
    assert not path.exists()


def test_crosstable_counts_every_pair_of_seats(store: Store) -> None:
    a, b, c, d = bots(store, "alpha", "beta", "gamma", "delta")
    store.save_tournament("t", {})
    add(store, "t", 0, "scat", [a, b, c], placements=[1, 2, 3])  # a>b a>c b>c
    add(store, "t", 1, "scat", [a, b, c], placements=[2, 2, 1])  # a=b c>a c>b
    add(store, "t", 2, "scat", [a, b], placements=[2, 1])  # b>a
    add(store, "t", 3, "scat", [b, c], placements=[1, 2])  # b>c
    add(store, "t", 4, "scat", [a, a, c], placements=[1, 2, 3])  # a>c twice; a against itself is no meeting
    add(store, "t", 5, "scat", [d, a], placements=[1, 2])  # d>a
    table = crosstable(store, "t")
    assert table.record(a, b) == (1, 1, 1) and table.record(b, a) == (1, 1, 1)
    assert table.record(a, c) == (3, 0, 1) and table.record(c, a) == (1, 0, 3)
    assert table.record(b, c) == (2, 0, 1) and table.record(c, b) == (1, 0, 2)
    assert table.record(d, a) == (1, 0, 0) and table.record(a, d) == (0, 0, 1)
    assert table.record(b, d) is None and table.record(a, a) is None
    assert score_share((1, 1, 1)) == 0.5 and score_share((2, 0, 1)) == pytest.approx(2 / 3)
    assert score_share((0, 0, 0)) == 0.0
    assert [v.id for v in table.versions] == [s.version.id for s in standings(store, "t")]


def test_export_has_a_row_per_seat_and_logs_once_per_match(store: Store) -> None:
    a, b, c = bots(store, "alpha", "beta", "gamma")
    store.save_tournament("t", {})
    first = add(store, "t", 0, "scat", [a, b, c])
    add(store, "t", 1, "banking", [c, a])
    rows = list(export_rows(store, "t", None, logs=True))
    assert len(rows) == 5
    assert [tuple(r)[: len(EXPORT_FIELDS)] for r in rows] == [EXPORT_FIELDS] * 5
    assert [r["seat"] for r in rows] == [0, 1, 2, 0, 1]
    assert [r["bot"] for r in rows[:3]] == ["alpha", "beta", "gamma"]
    assert rows[0]["placement"] == first.seats[0].placement and rows[0]["hash"] == "00" * 32
    assert ["log" in r for r in rows] == [True, False, False, True, False]
    assert rows[0]["log"][0]["event"] == "round_start" and rows[0]["log"][-1]["event"] == "match_end"
    assert len(list(export_rows(store, "t", "banking"))) == 2
    assert "log" not in next(export_rows(store, "t", None))


def test_replay_as_one_seat_hides_the_others_cards(store: Store) -> None:
    a, b, c = bots(store, "alpha", "beta", "gamma")
    store.save_tournament("t", {})
    record = add(store, "t", 0, "scat", [a, b, c])
    full = replay(store, record.id)
    assert [v.bot for v in full.versions] == ["alpha", "beta", "gamma"]
    deal = next(e for e in full.events if e["event"] == "deal")
    assert set(deal["private"]) == {"0", "1", "2"}
    seen = replay(store, record.id, seat=1)
    assert seen.viewer == 1 and len(seen.events) == len(full.events)
    assert all("private" not in e for e in seen.events)
    seen_deal = next(e for e in seen.events if e["event"] == "deal")
    assert seen_deal["hand"] == deal["private"]["1"]["hand"]
    for shown, event in zip(seen.events, full.events):
        if event["event"] == "action" and event["action"] == "draw":
            assert ("card" in shown) == (event["seat"] == 1)
    with pytest.raises(ResultsError, match="has seats 0 to 2, not 3"):
        replay(store, record.id, seat=3)
    with pytest.raises(StoreError, match="did you mean"):
        replay(store, record.id[:-3])


def fitted(store: Store, tournament: str, variant: str | None = None) -> dict[int, Rating]:
    """The ratings of the stored matches, rated with the environment fitted to them."""
    matches = Results.of(store.matches(tournament, variant))
    return rate(matches, env=fit_environment(matches))


def test_rerate_replaces_a_wrong_cache_with_the_ratings_of_the_matches(store: Store) -> None:
    a, b, c = bots(store, "alpha", "beta", "gamma")
    store.save_tournament("t", {})
    for seq in range(4):
        add(store, "t", seq, "scat" if seq % 2 else "banking", [a, b, c][seq % 3:] + [a, b, c][: seq % 3])
    store.save_ratings(scope("t"), {a: (99.0, 1.0, 4)}, 4, (4.0, 0.1))  # covers the matches but is wrong
    assert ratings(store, "t")[a].mu == 99.0
    assert rerate(store, "t") == {None: 4, "banking": 2, "scat": 2}
    assert ratings(store, "t") == fitted(store, "t")
    for variant in ("banking", "scat"):
        cached = store.cached_ratings(scope("t", variant))
        assert cached is not None and cached[1] == 2
        assert ratings(store, "t", variant) == fitted(store, "t", variant)
