"""The server's match list is filtered, counted and paged by the database: a ladder stores
too many matches to send (31,665 made a page of 16 MB).  Its filters mean what the
report's list, filtered in the browser, means."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest
from webtools import start_server, stop_server

from arena.tournament.store import MatchRecord, SeatRecord, Store
from arena.web.botpage import FAULTS_SHOWN, bot_view
from arena.web.matchpage import LISTED
from arena.web.ranking import tournament_view
from arena.web.readonly import ReadOnlyStore, Wanted
from arena.web.site import slug

BOTS = ("ann", "bob", "cy")
MATCHES = 2 * LISTED + 37


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("list") / "arena.db"
    rng = random.Random(8)
    with Store(path) as store:
        versions = [store.register(name, f"{i:02x}" * 32, f"{name}@1", None, {}).id for i, name in enumerate(BOTS)]
        for n in range(MATCHES):
            seated = rng.sample(versions, rng.choice((2, 3)))
            places = rng.sample(range(1, len(seated) + 1), len(seated))
            store.record(MatchRecord(
                id=f"m-{n:04d}", tournament=rng.choice(("cup", "ladder")), seq=n, variant=rng.choice(("scat", "skat")),
                options={}, seed=n, reason="test", rounds=1, decisions=1, finished=1e9 + rng.random() * 1e6,
                seats=tuple(SeatRecord(v, p, 0.0, faults=int(rng.random() < 0.2)) for v, p in zip(seated, places))))
    return path


def keeps(match: MatchRecord, wanted: Wanted, bots: dict[int, str]) -> bool:
    """The report's filter (matches.js), as the reference."""
    if wanted.tournament and match.tournament != wanted.tournament:
        return False
    if wanted.variant and match.variant != wanted.variant:
        return False
    mine = [s for s in match.seats if not wanted.bot or bots[s.version] == wanted.bot]
    if wanted.bot and not mine:
        return False
    if wanted.result == "won":
        return any(s.placement == 1 for s in mine)
    if wanted.result == "lost":
        return all(s.placement != 1 for s in mine) if wanted.bot else True
    if wanted.result == "faults":
        return any(s.faults > 0 for s in mine)
    return True


def test_every_filter_keeps_what_the_reports_list_keeps_newest_first_page_by_page(db: Path) -> None:
    with ReadOnlyStore(db) as store:
        bots = {v.id: v.bot for name in BOTS for v in store.versions(name)}
        every = sorted(store.matches(), key=lambda m: -m.finished)
        for t, v, bot, result in itertools.product((None, "cup"), (None, "skat"), (None, *BOTS),
                                                   (None, "won", "lost", "faults")):
            wanted = Wanted(t, v, bot, result)
            expected = [m.id for m in every if keeps(m, wanted, bots)]
            found: list[str] = []
            for page in itertools.count():
                total, listed = store.listed(wanted, page * LISTED, LISTED)
                assert total == len(expected) and len(listed) <= LISTED
                found += [m.id for m in listed]
                if len(listed) < LISTED:
                    break
            assert found == expected, wanted


def test_the_server_pages_the_list_and_refuses_filters_it_does_not_offer(db: Path) -> None:
    server = start_server(db)
    try:
        status, _, body = server.get("/matches/?page=2&bot=&junk=1")
        assert status == 200
        text = body.decode()
        assert f'<span id="match-count">{MATCHES}</span>' in text and "page 2 of 3" in text
        assert len(re.findall(r"<tr data-match=", text)) == LISTED
        assert 'rel="prev" href="/matches/?page=1"' in text and 'rel="next" href="/matches/?page=3"' in text
        status, _, body = server.get("/matches/?page=3")
        assert status == 200 and 'rel="next"' not in body.decode()
        for wrong in ("bot=nobody", "result=maybe", "v=%3Cscript%3E", "page=0", "page=x", "t=nowhere", "page=4"):
            status, _, body = server.get(f"/matches/?{wrong}")
            assert status == 404 and b"<script>" not in body, wrong
    finally:
        stop_server(server)


def test_the_ids_pages_name_by_a_hash_are_found_by_the_database_alone(tmp_path: Path) -> None:
    """A page is found by a hashed address without hashing every id of a ladder (a made-up
    ``/m/~...`` made the server hash them all, each time): the query must pick exactly the
    ids :func:`slug` hashes."""
    ids = ["a", "A.b-c_9", "x" * 128, "x" * 129, ".hidden", "-dash", "_under", "a/b", "a b", "é", "a~b", "a\nb",
           "ok.", "9", "a..b", "a\x00b", "tab\t", "[x]", "*", "?"]
    with Store(tmp_path / "arena.db") as store:
        version = store.register("ann", "00" * 32, "ann@1", None, {}).id
        for n, match_id in enumerate(ids):
            store.record(MatchRecord(id=match_id, tournament="t", seq=n, variant="scat", options={}, seed=n,
                                     seats=(SeatRecord(version, 1, 0.0),), reason="test", rounds=1, decisions=1))
    with ReadOnlyStore(tmp_path / "arena.db") as store:
        assert sorted(store.hashed_match_ids()) == sorted(i for i in ids if slug(i) != i)


def test_a_bots_page_and_a_ranking_list_the_newest_faults_and_count_them_all(tmp_path: Path) -> None:
    """A bot that kept faulting on a long ladder made its pages list every fault (and read
    every faulty match with its log); they list the newest and say how many there were."""
    faulty = FAULTS_SHOWN + 20
    with Store(tmp_path / "arena.db") as store:
        ann, bob = (store.register(name, f"{i:02x}" * 32, f"{name}@1", None, {}).id for i, name in enumerate(BOTS[:2]))
        for n in range(faulty + 5):
            seat = n % 2
            faults = [{"seat": seat, "kind": "crash", "penalty": "forfeit", "decision": 1, "detail": f"crash {n}"}]
            store.record(MatchRecord(
                id=f"f-{n:03d}", tournament="cup", seq=n, variant="scat", options={}, seed=n, reason="test", rounds=1,
                decisions=1, finished=1e9 + n, faults=faults if n < faulty else [],
                seats=tuple(SeatRecord(v, 2 if i == seat and n < faulty else 1, 0.0,
                                       faults=int(i == seat and n < faulty)) for i, v in enumerate((ann, bob)))))
    with ReadOnlyStore(tmp_path / "arena.db") as store:
        view = bot_view(store, "ann")
        mine = (faulty + 1) // 2  # ann sits in seat 0 and faults in the even matches
        assert view["fault_count"] == mine and len(view["faults"]) == min(mine, FAULTS_SHOWN)
        assert [m for m, _ in view["faults"]] == [f"f-{n:03d}" for n in range(faulty - 1, -1, -1) if n % 2 == 0][
            :FAULTS_SHOWN]
        ranking = tournament_view(store, "cup", None)
        assert ranking["fault_count"] == faulty and len(ranking["faults"]) == FAULTS_SHOWN
        assert ranking["faults"][0].match == f"f-{faulty - 1:03d}" and ranking["faults"][0].bot == "bob"
        assert [t.matches for t in store.tallies([ann])] == [faulty + 5]
