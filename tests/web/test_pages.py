"""The pages of ``arena serve`` in a real browser (headless Chromium): what they show equals
what the command line prints, the replay steps through a match as ``arena show`` tells
it, no page logs an error or loads anything from elsewhere, and hostile bot text never
runs.  Each page type is saved as a screenshot (results/screenshots/)."""

from __future__ import annotations

import json
import re
import sqlite3
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from webtools import (
    PAYLOADS,
    STDERR_PAYLOAD,
    Server,
    Watched,
    WebData,
    arena,
    assert_clean,
    assert_same_ranking,
    make_bot,
    screenshot,
    shown_ranking,
    start_server,
    stop_server,
    table,
    tournament_file,
)

from arena.tournament.store import Store


@pytest.mark.parametrize("tournament", ["webtest", "ladder"])
def test_the_ranking_shown_is_arena_tables(tab: Watched, server: Server, web_data: WebData, tournament: str) -> None:
    page = tab.page
    page.goto(f"{server.url}/t/{tournament}/")
    expected = table(web_data.db, tournament)
    assert_same_ranking(shown_ranking(page), expected)
    assert page.inner_text(".scope-matches") == str(expected["matches"])
    fitted = expected["environment"]
    assert f"beta {fitted['beta']:.2f} and a draw probability of {fitted['draw']:.2f}" in page.inner_text(
        "p.environment")
    if tournament == "ladder":  # fourteen independent deals: intervals, and a bar for each
        assert all(s["mu_low"] is not None or s["mu_high"] is not None for s in expected["standings"])
        assert page.locator("#ranking td.bar svg").count() == len(expected["standings"])
    assert_clean(tab)


def test_every_page_type_renders_cleanly(tab: Watched, server: Server, web_data: WebData) -> None:
    """Index, tournament, variant, bot, match list and match pages: no error, nothing from
    elsewhere; the charts and the heat map are drawn; a screenshot of each."""
    page = tab.page
    page.goto(server.url + "/")
    assert page.locator("tr[data-competition]").count() == _count(web_data, "SELECT COUNT(DISTINCT tournament) FROM"
                                                                             " matches")
    screenshot(page, "index")
    page.click("text=webtest")
    page.wait_for_selector("#history-chart canvas")
    assert page.locator("#crosstable td.heat").count() == 12  # four bots, every pair met, both ways round
    screenshot(page, "tournament")
    page.click("nav.tabs >> text=skat")
    page.wait_for_selector("#history-chart canvas")
    screenshot(page, "tournament-variant")
    page.goto(server.url + "/b/heuristic/")
    assert page.locator("figure.histogram rect.bin").count() > 0
    assert page.locator("code.hash").first.inner_text() == _hash(web_data, "heuristic")
    screenshot(page, "bot")
    page.goto(server.url + "/matches/")
    assert page.inner_text("#match-count") == str(_count(web_data, "SELECT COUNT(*) FROM matches"))
    screenshot(page, "matches")
    assert_clean(tab)


def _count(web_data: WebData, sql: str) -> int:
    with closing(sqlite3.connect(f"file:{web_data.db}?mode=ro", uri=True)) as db:
        return int(db.execute(sql).fetchone()[0])


def _hash(web_data: WebData, bot: str) -> str:
    with closing(sqlite3.connect(f"file:{web_data.db}?mode=ro", uri=True)) as db:
        return str(db.execute("SELECT hash FROM versions WHERE bot = ? ORDER BY id DESC", (bot,)).fetchone()[0])


def test_the_match_list_filters_by_bot_variant_and_result(tab: Watched, server: Server, web_data: WebData) -> None:
    with closing(sqlite3.connect(f"file:{web_data.db}?mode=ro", uri=True)) as db:
        faulted = db.execute("SELECT COUNT(*) FROM seats s JOIN versions v ON v.id = s.version WHERE v.bot = 'crasher'"
                             " AND s.faults > 0").fetchone()[0]
        skat_wins = db.execute("SELECT COUNT(*) FROM seats s JOIN versions v ON v.id = s.version JOIN matches m ON"
                               " m.id = s.match WHERE v.bot = 'heuristic' AND s.placement = 1 AND m.variant = 'skat'"
                               ).fetchone()[0]
    page = tab.page
    page.goto(server.url + "/matches/?bot=crasher&result=faults")
    assert int(page.inner_text("#match-count")) == faulted == page.locator("#match-list tbody tr").count() > 0
    assert page.locator("select[name=bot]").input_value() == "crasher"  # the form shows what it lists
    page.select_option("select[name=bot]", "heuristic")
    page.select_option("select[name=result]", "won")
    page.select_option("select[name=v]", "skat")
    with page.expect_navigation():
        page.click("#match-filters button[type=submit]")
    assert int(page.inner_text("#match-count")) == skat_wins
    assert "bot=heuristic" in page.url and "v=skat" in page.url and "result=won" in page.url
    assert_clean(tab)


def _show(db: Any, match: str, seat: int | None = None) -> list[str]:
    """The event lines ``arena show`` prints (blank lines left out)."""
    result = arena("show", match, "--db", db, *(["--seat", str(seat)] if seat is not None else []))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("as "))
    end = next(i for i, line in enumerate(lines) if line.startswith("result: "))
    return [line for line in lines[start + 1:end] if line.strip()]


def _logged(page: Any) -> list[str]:
    texts: list[str] = page.eval_on_selector_all("#replay-log li .lines", "items => items.map(i => i.textContent)")
    return [line for text in texts for line in text.split("\n") if line.strip()]


def _skat_match(web_data: WebData) -> str:
    """A Skat match played to its end (no forfeit)."""
    with closing(sqlite3.connect(f"file:{web_data.db}?mode=ro", uri=True)) as db:
        return str(db.execute("SELECT id FROM matches WHERE variant = 'skat' AND faults = '[]' ORDER BY id"
                              ).fetchone()[0])


def test_the_replay_steps_from_the_deal_to_the_placements_as_arena_show_tells_it(
        tab: Watched, server: Server, web_data: WebData) -> None:
    match = _skat_match(web_data)
    shown = arena("show", match, "--db", web_data.db, "--json")
    record = json.loads(shown.stdout)
    last = len(record["log"]) - 1
    page = tab.page
    page.goto(f"{server.url}/m/{match}/")
    assert _logged(page) == _show(web_data.db, match)
    assert page.inner_text("#replay-position").startswith(f"step 0 of {last} ")
    assert page.inner_text("#replay-event").startswith("Round 1: dealer seat 0")
    page.keyboard.press("End")
    assert page.inner_text("#replay-position").startswith(f"step {last} of {last}")
    final = page.eval_on_selector_all(".final tbody tr", "rows => rows.map(r => [Number(r.dataset.seat), "
                                      "Number(r.querySelector('.place').textContent)])")
    assert sorted(map(tuple, final)) == [(s["seat"], s["placement"]) for s in record["seats"]]
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#replay-position").startswith(f"step {last - 2} of")
    page.wait_for_url(f"**/#step={last - 2}")  # the address follows once stepping pauses
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#replay-position").startswith("step 1 of")
    trick = next(i for i, e in enumerate(record["log"]) if e["event"] == "trick")
    page.click(f"#replay-log li[data-step='{trick}'] a")
    cards = page.eval_on_selector_all(".center-trick [data-card]", "cards => cards.map(c => c.dataset.card)")
    assert cards == record["log"][trick]["cards"]
    screenshot(page, "match-skat")
    assert_clean(tab)


def test_a_seat_sees_its_own_cards_and_the_log_as_it_was_shown_them(
        tab: Watched, server: Server, web_data: WebData) -> None:
    match = _skat_match(web_data)
    page = tab.page
    page.goto(f"{server.url}/m/{match}/")
    steps = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent).steps.map(s => s.e)")
    step = next(i for i, e in enumerate(steps) if e["event"] == "action" and e["action"].startswith("play"))
    # a link opened afresh, from another page: changing the open page's hash raced with the
    # viewer writing its own step into the address (a loaded machine showed step 0)
    page.goto("about:blank")
    page.goto(f"{server.url}/m/{match}/#step={step}&seat=1")
    assert page.inner_text("#replay-position").startswith(f"step {step} of")
    assert page.input_value("#replay-viewer") == "1"
    assert _logged(page) == _show(web_data.db, match, seat=1)
    faces = {s: page.locator(f"[data-seat-hand='{s}'] [data-card]").count() for s in range(3)}
    assert faces[1] > 0 and faces[0] == faces[2] == 0  # the others' hands face down
    screenshot(page, "match-seat-view")
    page.select_option("#replay-viewer", "")  # the spectator sees every hand
    assert all(page.locator(f"[data-seat-hand='{s}'] [data-card]").count() > 0 for s in (0, 2))
    page.wait_for_url(f"**/#step={step}")
    assert_clean(tab)


def test_hostile_bot_text_is_shown_as_text_and_never_runs(tab: Watched, server: Server, web_data: WebData) -> None:
    with closing(sqlite3.connect(f"file:{web_data.db}?mode=ro", uri=True)) as db:
        crashed = str(db.execute("SELECT id FROM matches WHERE faults != '[]' ORDER BY id").fetchone()[0])
        hostile = str(db.execute("SELECT s.match FROM seats s JOIN versions v ON v.id = s.version WHERE v.bot ="
                                 " 'hostile' ORDER BY s.match").fetchone()[0])
    page = tab.page
    for path in ("/", "/b/hostile/", "/b/crasher/", "/t/webtest/", "/t/webtest/v/scat/", "/matches/?bot=hostile",
                 f"/m/{crashed}/", f"/m/{hostile}/"):
        page.goto(server.url + path)
        page.mouse.move(300, 300)
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        injected = page.evaluate("""() => [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]
            .filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))
            .concat([...document.querySelectorAll('img, svg[onload], script:not([src]):not([type="application/json"])')]
            .map(e => e.outerHTML.slice(0, 80)))""")
        assert injected == [], (path, injected)
        assert page.evaluate("window.__pwned === undefined"), path
    page.goto(server.url + "/b/hostile/")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    text = page.inner_text("main")
    for payload in PAYLOADS.values():
        assert payload in text  # shown as the text it is
    page.goto(server.url + "/t/webtest/")
    assert STDERR_PAYLOAD in page.inner_text("table.faults")
    assert_clean(tab)


def _progress(server: Server, path: str, name: str) -> tuple[str, str]:
    """The ``stored / scheduled`` count and the state a page shows of competition ``name``."""
    status, _, body = server.get(path)
    assert status == 200, (path, status)
    html = body.decode()
    if path == "/":
        found = re.search(rf'<tr data-competition="{name}">.*?</tr>', html, re.S)
        assert found is not None, html
        html = found.group()
    count = re.search(r'<span class="count">([^<]*)</span>', html)
    state = re.search(r'<span class="state state-[^"]*">([^<]*)</span>', html)
    assert count is not None and state is not None, html
    return count.group(1), state.group(1)


def test_a_tournament_with_authors_apart_shows_the_total_its_run_scheduled(web_data: WebData) -> None:
    """random and heuristic share an author and never meet: the pages count the two tables
    the run played (the command's total), not the three pairs of the entrants."""
    folder = Path(tempfile.mkdtemp(prefix="apart-", dir=web_data.folder))
    folder.chmod(0o755)
    db = folder / "arena.db"
    entrants: list[Path | str] = ["random", "heuristic", make_bot(folder, "loner", variants=["scat"])]
    spec = tournament_file(folder, "apart", entrants, "\n".join(["[[variant]]", 'name = "scat"', "tables = [2]",
                                                                  "options = { lives = 1 }"]))
    result = arena("run", spec, "--db", db, "-q")
    assert result.returncode == 0, result.stderr
    assert "4/4 scheduled matches stored (complete)" in result.stdout  # 2 tables, 1 deal, 2 seatings
    server = start_server(db)
    try:
        for path in ("/", "/t/apart/"):
            assert _progress(server, path, "apart") == ("4 / 4", "complete"), path
        with Store(db) as store:  # as an arena from before authors_apart stored it: it scheduled every pair
            stored = store.tournament_spec("apart") or {}
            store.save_tournament("apart", {k: v for k, v in stored.items() if k != "authors_apart"})
        for path in ("/", "/t/apart/"):  # pages are rendered again once their moment (a second) has passed
            for _ in range(600):
                if _progress(server, path, "apart") == ("4 / 6", "incomplete"):
                    break
                time.sleep(0.05)
            assert _progress(server, path, "apart") == ("4 / 6", "incomplete"), path
    finally:
        stop_server(server)


def test_the_ranking_with_the_luck_taken_out_is_arena_table_luck(tab: Watched, server: Server,
                                                                   web_data: WebData) -> None:
    """The page offers the ranking with the cards' luck taken out; the pages never write, so
    on a database whose luck is not measured yet it says the matches count raw (and shows
    the raw ranking), and once `arena table --luck` has measured them it shows that
    command's intervals and ranks, ratings and placements unchanged."""
    page = tab.page
    page.goto(f"{server.url}/t/ladder/")
    raw = shown_ranking(page)
    assert "As played" in page.inner_text("#luck-view")
    page.click("#luck-view a")
    page.wait_for_url(re.compile(r"/t/ladder/\?luck=1$"))
    assert "The cards' luck taken out" in page.inner_text("#luck-view")
    assert page.inner_text("p.unmeasured").startswith("14 matches not measured yet count with their raw scores")
    assert shown_ranking(page) == raw  # nothing measured: the same scores
    assert_clean(tab)
    with pytest.raises(urllib.error.HTTPError) as refused:  # no query value renders a page of its own
        urllib.request.urlopen(f"{server.url}/t/ladder/?luck=yes", timeout=60)
    assert refused.value.code == 404 and b"?luck=1 shows the ranking" in refused.value.read()

    folder = Path(tempfile.mkdtemp(prefix="luck-", dir=web_data.folder))
    folder.chmod(0o755)
    db = folder / "arena.db"
    with closing(sqlite3.connect(web_data.db)) as source, closing(sqlite3.connect(db)) as target:
        source.backup(target)
    adjusted = arena("table", "--json", "-t", "ladder", "--luck", "--db", db)
    assert adjusted.returncode == 0, adjusted.stderr
    measured = start_server(db)
    try:
        page.goto(f"{measured.url}/t/ladder/?luck=1")
        shown = shown_ranking(page)
        assert_same_ranking(shown, json.loads(adjusted.stdout))
        assert page.locator("p.unmeasured").count() == 0
        assert "the cards' luck taken out (estimate luck-" in page.inner_text("#ranking + p.note")
        assert [r["cells"]["interval"] for r in shown] != [r["cells"]["interval"] for r in raw]
        assert [(r["bot"], r["cells"]["rating"], r["cells"]["place"]) for r in shown] == \
            [(r["bot"], r["cells"]["rating"], r["cells"]["place"]) for r in raw]  # ratings are placements'
        page.click("#luck-view a")
        page.wait_for_url(re.compile(r"/t/ladder/$"))
        assert_same_ranking(shown_ranking(page), table(db, "ladder"))
        assert_clean(tab)
    finally:
        stop_server(measured)
