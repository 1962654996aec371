"""The results commands (table, crosstable, show, export, rerate), run as the real `arena`
command on real SQLite databases holding real match logs."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import random
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from arena.luck import VERSION as LUCK_VERSION
from arena.rules import get_variant
from arena.tournament.logs import compress_log, decompress_log
from arena.tournament.ratings import fit_environment, rate, scope
from arena.tournament.results import Results
from arena.tournament.store import MIGRATIONS, MatchRecord, SeatRecord, Store
from arena.tournament.views import EXPORT_FIELDS, STANDING_FIELDS

BOTS = ("alpha", "beta", "gamma", "delta")


def arena(*args: str, db: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "arena.cli", *args, *(["--db", str(db)] if db else [])]
    environment = {k: v for k, v in os.environ.items() if k != "ARENA_DB"} | (env or {})
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=environment)


def store_match(store: Store, tournament: str, seq: int, variant: str, versions: Sequence[int], *,
                placements: Sequence[int] | None = None, faults: Sequence[int] | None = None) -> MatchRecord:
    """Play a real match of random legal actions and store it (``placements`` overrides
    the outcome where a test counts results by hand)."""
    state = get_variant(variant).new_match(len(versions), seed=seq)
    rng = random.Random(seq)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    outcome = state.outcome
    assert outcome is not None
    record = MatchRecord(
        id=f"{tournament}-{variant}-{len(versions)}p-{seq:08x}-d0r0", tournament=tournament, seq=seq,
        variant=variant, options={"lives": 3} if variant == "scat" else {}, seed=seq,
        seats=tuple(SeatRecord(v, p, s, (faults or [0] * len(versions))[i], 12, 0.03)
                    for i, (v, p, s) in enumerate(zip(versions, placements or outcome.placements, outcome.scores))),
        reason=outcome.reason, rounds=outcome.rounds, decisions=len(state.actions()),
        faults=[{"seat": 0, "bot": "alpha@1.0", "kind": "timeout", "detail": "no answer in 1000 ms",
                 "decision": 4, "penalty": "substituted"}] if faults else [],
        sandbox=["namespaces", "landlock"], duration_s=0.25, log=compress_log([e.full() for e in state.log]),
    )
    assert store.record(record)
    return record


def register(store: Store, names: Sequence[str] = BOTS) -> list[int]:
    return [store.register(n, f"{i + 10:02x}" * 32, f"{n}@2.{i}", None, {"version": f"2.{i}"}).id
            for i, n in enumerate(names)]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two tournaments: "spring" (older, 2 matches) and "summer" (12 matches of scat and
    banking at 3 and 4 players, alpha faulting twice in the first)."""
    path = tmp_path_factory.mktemp("results") / "arena.db"
    with Store(path) as store:
        versions = register(store)
        store.save_tournament("spring", {})
        for seq in range(2):
            store_match(store, "spring", seq, "scat", versions[:2])
        store.save_tournament("summer", {})
        for seq in range(12):
            seated = versions[seq % 4:] + versions[: seq % 4]
            store_match(store, "summer", seq, "scat" if seq % 3 else "banking", seated[: 3 + seq % 2],
                        faults=[2, 0, 0] if seq == 0 else None)
    return path


def test_table_ranks_the_latest_tournament_by_conservative_rating(db: Path) -> None:
    result = arena("table", db=db)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "tournament summer, all variants: 12 matches"
    data = json.loads(arena("table", "--json", db=db).stdout)
    assert data["tournament"] == "summer" and data["matches"] == 12
    rows = data["standings"]
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert all(r["rating"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=1e-3) for r in rows)
    assert sum(r["matches"] for r in rows) == sum(3 + seq % 2 for seq in range(12))  # seats played
    assert {r["bot"]: r["faults"] for r in rows}["alpha"] == 2
    assert {r["version"] for r in rows} == {"2.0", "2.1", "2.2", "2.3"}
    body = lines[3:7]  # after the header line, the column names and the rule; then the notes
    assert [line.split()[1] for line in body] == [r["bot"] for r in rows]
    assert lines[8] == "intervals and ranks: 95%, resampling whole deals (12 independent deal groups)."
    assert all(r["mu_low"] <= r["mu"] <= r["mu_high"] and r["rank_best"] <= r["rank"] + 1 for r in rows)
    assert body[0].split()[2:4] == [rows[0]["version"], rows[0]["hash"][:8]]
    fitted = data["environment"]  # shown nowhere before: the beta and draw the ratings use
    assert fitted["beta"] > 0 and 0 < fitted["draw"] < 1 and fitted["beta_at_edge"] in (None, "highest", "lowest")
    shown = next(line for line in lines if line.startswith("rated with TrueSkill's beta"))
    assert f"beta {fitted['beta']:.2f} and a draw probability of {fitted['draw']:.2f}" in shown
    assert body[0].split()[4] == f"{rows[0]['rating']:.2f}"


def test_table_of_another_tournament_variant_csv_and_format(db: Path) -> None:
    spring = json.loads(arena("table", "--tournament", "spring", "--json", db=db).stdout)
    assert spring["tournament"] == "spring" and spring["matches"] == 2
    assert {r["bot"] for r in spring["standings"]} == {"alpha", "beta"}
    banking = json.loads(arena("table", "-v", "banking", "--json", db=db).stdout)
    assert banking["variant"] == "banking" and banking["matches"] == 4
    assert sum(r["matches"] for r in banking["standings"]) == sum(3 + seq % 2 for seq in range(0, 12, 3))
    text = arena("table", "--csv", db=db).stdout
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert tuple(parsed[0]) == STANDING_FIELDS and len(parsed) == 4
    github = arena("table", "--format", "github", db=db).stdout.splitlines()
    assert github[1].split() == ["|", "rank", "|", "bot", *github[1].split()[4:]] and github[2].startswith("|---")


def test_table_with_the_luck_taken_out_measures_each_match_once_and_keeps_the_ratings(db: Path,
                                                                                     tmp_path: Path) -> None:
    copy = tmp_path / "arena.db"
    copy.write_bytes(db.read_bytes())
    raw = json.loads(arena("table", "--json", db=copy).stdout)
    adjusted = arena("table", "--luck", "--json", db=copy)
    assert adjusted.returncode == 0, adjusted.stderr
    luck = json.loads(adjusted.stdout)
    assert luck["luck_adjusted"] is True and raw["luck_adjusted"] is False
    assert "measuring the cards' luck once (it is stored): 0 of 12 matches done" in adjusted.stderr
    assert [(r["bot"], r["rating"], r["mu"], r["matches"]) for r in luck["standings"]] == \
        [(r["bot"], r["rating"], r["mu"], r["matches"]) for r in raw["standings"]]  # ratings are placements'
    assert [(r["mu_low"], r["mu_high"]) for r in luck["standings"]] != \
        [(r["mu_low"], r["mu_high"]) for r in raw["standings"]]  # the intervals rest on adjusted comparisons
    with Store(copy) as store:
        measured = store.luck("summer", LUCK_VERSION)
        assert len(measured) == 12 and all(m is not None and len(m) in (3, 4) for m in measured.values())
        assert not list(store.unmeasured("summer", LUCK_VERSION))  # the next look measures nothing again
        assert np.isfinite(store.results("summer", luck=LUCK_VERSION).luck).all()
        assert store.results("summer").luck is None
    again = arena("table", "--luck", db=copy)
    assert "measuring" not in again.stderr  # measured once
    text = again.stdout.splitlines()
    assert text[8] == "intervals and ranks: 95%, resampling whole deals (12 independent deal groups), the cards' " \
        "luck taken out."


def test_arena_db_environment_variable_names_the_database(db: Path) -> None:
    result = arena("table", "--json", env={"ARENA_DB": str(db)})
    assert result.returncode == 0 and json.loads(result.stdout)["tournament"] == "summer"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["table", "--tournament", "winter"], "no tournament 'winter'"),
        (["table", "--tournament", "winter"], "known: summer (12 matches), spring (2 matches)"),
        (["table", "--format", "fancy"], "unknown table format 'fancy'; choose one of: asciidoc"),
        (["table", "--json", "--csv"], "--json and --csv exclude each other"),
        (["table", "-v", "dollar-bill"], "no matches of variant 'dollar-bill' (played: banking, scat)"),
        (["crosstable", "-t", "winter"], "no tournament 'winter'"),
        (["show", "summer-scat-3p-0000ffff-d0r0"], "no match 'summer-scat-3p-0000ffff-d0r0'"),
        (["show", "summer-scat-4p-00000001"], "did you mean summer-scat-4p-00000001-d0r0"),
        (["show", "summer-scat-4p-00000001-d0r0", "--seat", "4"], "has seats 0 to 3, not 4"),
        (["export", "--format", "xml"], "unknown export format 'xml'"),
        (["export", "--format", "csv", "--logs"], "--logs needs --format jsonl"),
        (["export", "-t", "winter"], "no tournament 'winter'"),
        (["rerate", "-t", "winter"], "no tournament 'winter'"),
    ],
)
def test_bad_requests_are_one_clear_line(db: Path, args: list[str], message: str) -> None:
    result = arena(*args, db=db)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_database_is_named_and_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "arena.db"
    for command in ("table", "crosstable", "export", "rerate"):
        result = arena(command, db=missing)
        assert result.returncode == 2 and f"no results database at {missing}" in result.stderr
    assert not missing.parent.exists()


def test_crosstable_counts_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store(path) as store:
        a, b, c = register(store, BOTS[:3])
        store.save_tournament("small", {})
        store_match(store, "small", 0, "scat", [a, b, c], placements=[1, 2, 3])  # a>b a>c b>c
        store_match(store, "small", 1, "scat", [c, a, b], placements=[1, 2, 2])  # c>a c>b a=b
        store_match(store, "small", 2, "scat", [b, a], placements=[1, 2])  # b>a
    data = json.loads(arena("crosstable", "--json", db=path).stdout)
    pairs = {(p["bot"], p["opponent"]): (p["wins"], p["ties"], p["losses"]) for p in data["pairs"]}
    assert pairs == {
        ("alpha", "beta"): (1, 1, 1), ("beta", "alpha"): (1, 1, 1),
        ("alpha", "gamma"): (1, 0, 1), ("gamma", "alpha"): (1, 0, 1),
        ("beta", "gamma"): (1, 0, 1), ("gamma", "beta"): (1, 0, 1),
    }
    assert {p["share"] for p in data["pairs"]} == {0.5}
    assert sorted(data["bots"]) == ["alpha", "beta", "gamma"]
    text = arena("crosstable", db=path).stdout
    assert "1-1-1" in text and "1-0-1" in text and "wins-ties-losses" in text
    # no bracketed odds below 10 deal groups, so the legend does not explain them (it did)
    assert "(in brackets)" not in text and "shows from 10 independent deals on (3 so far)" in text
    assert "50%" in arena("crosstable", "--share", db=path).stdout
    rows = list(csv.DictReader(io.StringIO(arena("crosstable", "--csv", db=path).stdout)))
    assert len(rows) == 6 and rows[0].keys() == {"bot", "opponent", "wins", "ties", "losses", "share", "stronger"}


def test_show_replays_every_round_to_the_final_placements(db: Path) -> None:
    with Store(db) as store:
        match = store.match("summer-banking-3p-00000000-d0r0")
    result = arena("show", match.id, db=db)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    lines = out.splitlines()
    assert lines[0] == f"match {match.id}"
    assert "tournament summer, variant banking" in lines[1] and "seed 0" in lines[1]
    assert "sandbox: namespaces, landlock" in out and "seat 2 (gamma): gamma@2.2" in out
    for number in range(1, match.rounds + 1):
        assert f"\nRound {number}: " in out
    assert f"\nRound {match.rounds + 1}: " not in out
    events = decompress_log(match.log)
    first_hands = next(e for e in events if e["event"] == "deal")["private"]
    for seat, part in first_hands.items():
        assert f"seat {seat} ({BOTS[int(seat)]}): hand {' '.join(part['hand'])}" in out
    assert out.count("\nround end (") == match.rounds
    result_at = lines.index(f"result: {match.reason} after {match.rounds} rounds, {match.decisions} decisions")
    placed = [line.split() for line in lines[result_at + 3 : result_at + 6]]
    assert [(int(p[0]), int(p[1])) for p in placed] == sorted((s.placement, i) for i, s in enumerate(match.seats))
    assert "timeout" in out and "no answer in 1000 ms" in out


def test_show_as_one_seat_and_as_json(db: Path) -> None:
    with Store(db) as store:
        match = store.match("summer-scat-4p-00000001-d0r0")
    deal = next(e for e in decompress_log(match.log) if e["event"] == "deal")
    out = arena("show", match.id, "--seat", "3", db=db).stdout
    assert "as seat 3 (alpha) saw it during play" in out  # match 1 seats beta, gamma, delta, alpha
    assert f"hand {' '.join(deal['private']['3']['hand'])}" in out
    for other in ("0", "1", "2"):
        assert f"hand {' '.join(deal['private'][other]['hand'])}" not in out
    data = json.loads(arena("show", match.id, "--json", "--seat", "3", db=db).stdout)
    assert data["viewer"] == 3 and data["rounds"] == match.rounds
    assert [s["bot"] for s in data["seats"]] == ["beta", "gamma", "delta", "alpha"]
    assert len(data["log"]) == len(decompress_log(match.log))
    assert not any("private" in e for e in data["log"])
    full = json.loads(arena("show", match.id, "--json", db=db).stdout)
    assert full["viewer"] is None and full["log"] == decompress_log(match.log)


def test_show_prints_events_it_does_not_know_generically(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store(path) as store:
        a, b = register(store, BOTS[:2])
        store.save_tournament("t", {})
        record = store_match(store, "t", 0, "scat", [a, b])
        log = decompress_log(record.log)
        bid = {"event": "bid", "seat": 1, "amount": 18, "suits": ["h", "s"], "private": {"1": {"skat": ["Jc"]}}}
        log.insert(1, bid)
        store.record(dataclasses.replace(record, id="t-bid", log=compress_log(log)))
    out = arena("show", "t-bid", db=path).stdout
    assert "bid seat 1 (beta): amount 18 · suits h s" in out
    assert "  seat 1 (beta): skat Jc" in out


def test_export_writes_a_row_per_match_seat(db: Path, tmp_path: Path) -> None:
    lines = arena("export", db=db).stdout.splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 2 * 2 + 6 * 3 + 6 * 4
    assert tuple(rows[0]) == EXPORT_FIELDS
    assert {r["tournament"] for r in rows} == {"spring", "summer"}
    target = tmp_path / "out" / "summer.csv"
    result = arena("export", "-t", "summer", "-v", "scat", "--format", "csv", "--output", str(target), db=db)
    assert result.returncode == 0 and result.stdout == ""
    parsed = list(csv.DictReader(target.open(encoding="utf-8")))
    assert len(parsed) == sum(3 + seq % 2 for seq in range(12) if seq % 3)
    assert f"wrote {len(parsed)} rows to {target}" in result.stderr
    assert {r["variant"] for r in parsed} == {"scat"} and tuple(parsed[0]) == EXPORT_FIELDS
    with_logs = [json.loads(line) for line in arena("export", "-t", "spring", "--logs", db=db).stdout.splitlines()]
    assert ["log" in r for r in with_logs] == [True, False, True, False]
    assert with_logs[0]["log"][-1]["event"] == "match_end"


def test_rerate_recomputes_the_cached_ratings(db: Path) -> None:
    with Store(db) as store:
        store.save_ratings(scope("summer"), {1: (50.0, 1.0, 12)}, 12, (4.0, 0.1))  # a wrong cache covering every match
    result = arena("rerate", db=db)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "summer: 12 matches rated (banking 4, scat 8)",
        "spring: 2 matches rated (scat 2)",
    ]
    with Store(db) as store:
        for tournament, variant in (("summer", None), ("summer", "banking"), ("summer", "scat"), ("spring", None)):
            cached = store.cached_ratings(scope(tournament, variant))
            matches = Results.of(store.matches(tournament, variant))
            expected = rate(matches, env=fit_environment(matches))
            assert cached is not None
            assert cached[0] == {v: (r.mu, r.sigma, r.matches) for v, r in expected.items()}
            assert cached[1] == store.count(tournament, variant)


def test_ratings_cached_by_an_older_arena_are_dropped_and_recomputed(db: Path) -> None:
    """Schema 1 cached ratings under TrueSkill's default dynamics; opening the database
    drops them, so the table shows ratings of the current environment."""
    with Store(db) as store:
        store.save_ratings(scope("summer"), {1: (50.0, 1.0, 12)}, store.count("summer"))
    with sqlite3.connect(db) as raw:  # back to schema 1: later migrations' tables and columns go
        raw.execute("DROP TABLE deal_keys")  # (its published column came in 6)
        raw.execute("ALTER TABLE matches DROP COLUMN deal")
        raw.execute("ALTER TABLE rated DROP COLUMN beta")
        raw.execute("ALTER TABLE rated DROP COLUMN draw")
        raw.execute("ALTER TABLE matches DROP COLUMN luck_version")  # (7)
        raw.execute("ALTER TABLE seats DROP COLUMN luck")
        for table in ("audit", "uploads", "submissions", "owners", "sessions", "accounts"):
            raw.execute(f"DROP TABLE {table}")
        raw.execute("PRAGMA user_version = 1")
    with Store(db) as store:
        assert store.schema_version == len(MIGRATIONS) and store.cached_ratings(scope("summer")) is None
    result = arena("table", "--tournament", "summer", "--json", db=db)
    assert result.returncode == 0, result.stderr
    with Store(db) as store:
        matches = Results.of(store.matches("summer"))
        expected = rate(matches, env=fit_environment(matches))
    assert sorted(r["mu"] for r in json.loads(result.stdout)["standings"]) == pytest.approx(
        sorted(r.mu for r in expected.values()), abs=0.01)


def test_rerate_of_an_empty_database_says_there_is_nothing(tmp_path: Path) -> None:
    Store(tmp_path / "arena.db").close()
    result = arena("rerate", db=tmp_path / "arena.db")
    assert result.returncode == 0 and result.stdout == f"no tournaments in {tmp_path / 'arena.db'}: nothing to rate\n"


def test_every_command_explains_itself() -> None:
    for command, phrase in (("table", "conservative TrueSkill rating"), ("crosstable", "Head-to-head"),
                            ("show", "round by round"), ("export", "one row per seat"),
                            ("rerate", "Recompute every rating")):
        result = arena(command, "--help")
        assert result.returncode == 0 and phrase in result.stdout
        assert "ARENA_DB" in result.stdout


def test_a_bot_that_never_placed_better_gets_an_upper_bound_not_a_point(tmp_path: Path) -> None:
    """A bot that lost every comparison got an interval as narrow as the prior made it
    ("random 10.3 to 10.3"): the data bound its strength from above only."""
    path = tmp_path / "arena.db"
    with Store(path) as store:
        versions = register(store, ["alpha", "beta", "gamma"])
        store.save_tournament("lopsided", {})
        for seq in range(12):  # gamma always last; alpha and beta share the other places
            store_match(store, "lopsided", seq, "scat", versions,
                        placements=[1, 2, 3] if seq % 2 else [2, 1, 3])
    data = json.loads(arena("table", "--json", db=path).stdout)
    last = next(r for r in data["standings"] if r["bot"] == "gamma")
    assert last["interval_bound"] == "at most" and last["mu_low"] is None and last["mu_high"] is not None
    others = [r for r in data["standings"] if r["bot"] != "gamma"]
    assert all(r["interval_bound"] is None and r["mu_low"] is not None for r in others)
    shown = arena("table", db=path).stdout
    assert f"at most {last['mu_high']:.1f}" in shown, shown


def test_show_prints_what_only_the_actor_saw_of_its_own_action_as_its_action() -> None:
    """Skat's discard printed as ``discard [action discard 9s Ts]``."""
    from arena.cli.results import _event_lines

    who = {0: "seat 0 (alice)", 1: "seat 1 (bob)"}.__getitem__
    discard = {"event": "action", "seat": 0, "action": "discard", "private": {"0": {"action": "discard Js Ad"}}}
    assert list(_event_lines(discard, who)) == ["  seat 0 (alice): discard Js Ad (the others saw: discard)"]
    pickup = {"event": "action", "seat": 1, "action": "pickup", "private": {"1": {"skat": ["9d", "9h"]}}}
    assert list(_event_lines(pickup, who)) == ["  seat 1 (bob): pickup [skat 9d 9h]"]
