"""Playing the bots in the browser: the real ``arena serve`` (play on, as on a loopback
address), a real referee and real bot processes, the page driven by clicks and keys.

A whole short match is played to its placements and found stored and replayable; a typed
answer that names no legal action is refused with the reason and the turn kept; leaving,
by the button or by closing the tab, records the match as abandoned; a bot that crashes
mid-match leaves it and the person is told; Ctrl+C on the server mid-match records the match
as abandoned; a page of another site cannot open a table; a message the server cannot read
(a JSON document 100,000 deep among them) gets one clear error, before the table is seated
and mid-match, where the match is recorded as abandoned for what the page sent."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from webtools import Server, Watched, arena, assert_clean, screenshot, start_server, stop_server
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, BytesMessage, CloseConnection, Event, Request, TextMessage

from arena.botspec import load_manifest
from arena.human.record import PlayError
from arena.tournament.logs import decompress_log
from arena.tournament.registry import install
from arena.tournament.store import MatchRecord, Store
from arena.web.playtable import seat_seconds, seat_table

SHORT = "lives=1 free_ride=no"
"""Scat to one life, no free ride: a match of one round, a handful of decisions."""
WAIT_MS = 60_000


def empty_database(folder: Path) -> Path:
    """A new results database in ``folder``, which sandboxed bots (other users) can enter
    to reach the registry beside it."""
    folder.chmod(0o755)
    db = folder / "arena.db"
    with Store(db):
        pass
    return db


@pytest.fixture(scope="module")
def play_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """``arena serve`` over a database of its own (the games played here are written to it)."""
    db = empty_database(tmp_path_factory.mktemp("play"))
    running = start_server(db)
    try:
        yield running, db
    finally:
        stop_server(running)


def sit_down(page: Any, url: str, *, name: str, seed: int, seconds: int | None = None, variant: str = "scat",
             players: int = 2, seat: int = 0, options: str = SHORT) -> None:
    """Open the play page and take ``seat`` (0) at ``variant`` (scat), against random, in a
    short match (with ``seconds`` per decision, if given)."""
    page.goto(f"{url}/play/")
    if seconds is not None:
        page.fill("#play-seconds", str(seconds))
    page.select_option("#play-variant", variant)
    page.select_option("#play-players", str(players))
    page.select_option("#play-seat", str(seat))
    for choice in page.locator("#play-bots select").all():
        choice.select_option("random")
    page.fill("#play-name", name)
    page.fill("#play-options", options)
    page.fill("#play-seed", str(seed))
    page.click("#play-start")


def next_screen(page: Any) -> str:
    """``ask`` when the person is asked, ``end`` once the match is recorded."""
    page.wait_for_function("() => document.querySelector('#play-ask button.action:enabled, #play-recorded')",
                           timeout=WAIT_MS)
    return "end" if page.locator("#play-recorded").count() else "ask"


def stored(db: Path) -> list[MatchRecord]:
    with Store(db) as store:
        return list(store.matches("play"))


def test_a_whole_match_is_played_by_clicks_and_keys_stored_and_replayed(
        tab: Watched, play_server: tuple[Server, Path]) -> None:
    server, db = play_server
    page = tab.page
    sit_down(page, server.url, name="carol", seed=5)
    moves = 0
    while next_screen(page) == "ask":
        moves += 1
        title = page.inner_text("#play-title")
        assert title == f"scat · round 1 · your move {moves}", title  # each answer was taken
        assert page.locator("#play-mine .card").count() >= 3  # the hand, drawn as cards
        assert page.locator("#play-news li").count() >= 1  # what happened since the last move
        if moves == 1:
            screenshot(page, "play-decision")
            page.keyboard.press("1")  # the first legal action, by its key
        else:
            page.locator("#play-ask button.action:enabled").last.click()
    assert moves >= 2
    placements = page.locator("#play-end table.final tbody tr")
    assert placements.count() == 2
    assert "carol" in page.inner_text("#play-end") and "random" in page.inner_text("#play-end")
    screenshot(page, "play-end")
    [match] = stored(db)
    assert not match.reason.startswith("abandoned") and match.tournament == "play"
    assert page.inner_text("#play-recorded").startswith(f"Recorded as match {match.id}")
    shown = arena("show", match.id, "--db", db)
    assert shown.returncode == 0 and "@carol" in shown.stdout, shown.stderr
    page.click("#play-replay")
    page.wait_for_selector("#replay-log li")
    assert page.url.split("#")[0].endswith(f"/m/{match.id}/")  # the viewer may add its step to the address
    page.keyboard.press("End")
    assert page.locator("#replay-result .final tbody tr").count() == 2
    assert_clean(tab)


def test_an_answer_that_names_no_legal_action_is_refused_with_the_reason_and_the_turn_kept(
        tab: Watched, play_server: tuple[Server, Path]) -> None:
    server, db = play_server
    page = tab.page
    sit_down(page, server.url, name="dave", seed=6)
    assert next_screen(page) == "ask"
    title = page.inner_text("#play-title")
    actions = page.locator("#play-ask button.action").all_inner_texts()
    page.fill("#play-typed", "fly away")
    page.press("#play-typed", "Enter")
    page.wait_for_selector("#play-problem")
    assert "'fly' is not an action now; the actions now are:" in page.inner_text("#play-problem")
    assert page.inner_text("#play-title") == title  # the same question, asked again
    assert page.locator("#play-ask button.action:enabled").all_inner_texts() == actions
    page.fill("#play-typed", "99")
    page.press("#play-typed", "Enter")
    page.wait_for_function("() => document.getElementById('play-problem').textContent.includes('no choice 99')")
    assert page.inner_text("#play-title") == title
    page.locator("#play-ask button.action:enabled").first.click()  # the turn is still there to play
    assert next_screen(page) in ("ask", "end")
    assert page.inner_text("#play-title") != title
    page.click("#play-leave")
    page.wait_for_selector("#play-recorded")
    assert_clean(tab)


def test_a_number_typed_in_skat_s_auction_is_the_bid_and_help_is_no_refusal(
        tab: Watched, play_server: tuple[Server, Path]) -> None:
    """The page reads typed text as the terminal does: in Skat's auction ``18`` is the bid
    of 18 (it was the 18th choice, a bid of 55); ``?`` shows the help, not a refusal."""
    server, db = play_server
    page = tab.page
    sit_down(page, server.url, name="bidder", seed=3, variant="skat", players=3, seat=2, options="")
    assert next_screen(page) == "ask"
    assert "a bid (18), #N for choice N" in (page.get_attribute("#play-typed", "placeholder") or "")
    page.fill("#play-typed", "?")
    page.press("#play-typed", "Enter")
    page.wait_for_selector("#play-problem")
    assert page.inner_text("#play-problem").startswith("Choose one of the numbered actions")
    page.fill("#play-typed", "19")
    page.press("#play-typed", "Enter")
    page.wait_for_function("() => document.getElementById('play-problem').textContent.startsWith("
                           "'Not taken: 19 is not a bid')")
    page.fill("#play-typed", "18")
    page.press("#play-typed", "Enter")
    assert next_screen(page) in ("ask", "end")
    page.click("#play-leave")
    page.wait_for_selector("#play-recorded")
    played = [m for m in stored(db) if "bidder" in m.reason]
    assert len(played) == 1
    with Store(db) as store:
        log = decompress_log(store.match(played[0].id).log)
    mine = [e["action"] for e in log if e["event"] == "action" and e["seat"] == 2]
    assert mine[0] == "bid 18"
    assert_clean(tab)


def test_the_form_shows_option_values_as_the_options_box_takes_them(
        tab: Watched, play_server: tuple[Server, Path]) -> None:
    """The note under the variant listed ``free_ride=True`` and ``rounds=None`` while the
    options box takes ``free_ride=no``."""
    server, _ = play_server
    page = tab.page
    page.goto(f"{server.url}/play/")
    page.select_option("#play-variant", "scat")
    note = page.inner_text("#play-variant-note")
    assert "free_ride=yes" in note and "knock_first_turn=yes" in note and "lives=3" in note, note
    assert "True" not in note and "False" not in note and "None" not in note, note
    assert_clean(tab)


def test_leaving_by_the_button_or_by_closing_the_tab_records_an_abandoned_match(
        browser: Any, tab: Watched, play_server: tuple[Server, Path]) -> None:
    server, db = play_server
    page = tab.page
    sit_down(page, server.url, name="erin", seed=7)
    assert next_screen(page) == "ask"
    page.click("#play-leave")
    page.wait_for_selector("#play-recorded")
    assert "abandoned" in page.inner_text("#play-ask")
    left = [m for m in stored(db) if "erin" in m.reason]
    assert [m.reason for m in left] == ["abandoned: erin left the match (Leave)"]
    assert_clean(tab)

    context = browser.new_context()
    closing = context.new_page()
    sit_down(closing, server.url, name="frank", seed=8)
    assert next_screen(closing) == "ask"
    context.close()  # the tab, and its socket, are gone
    for _ in range(100):
        closed = [m for m in stored(db) if "frank" in m.reason]
        if closed:
            break
        time.sleep(0.1)
    assert [m.reason for m in closed] == ["abandoned: frank left the match (closed the page)"]
    assert closed[0].seats[0].decisions == 0  # stopped at the first question, before any answer


def test_a_visitor_who_does_not_answer_in_time_is_out_of_the_match_and_told(
        tab: Watched, play_server: tuple[Server, Path]) -> None:
    """The time per decision the form asks for is the seat's clock: the countdown shows it,
    and past it the seat is out as a bot's would be, while the bots play the match out."""
    server, db = play_server
    page = tab.page
    sit_down(page, server.url, name="jack", seed=11, seconds=2)
    assert next_screen(page) == "ask"
    assert page.inner_text("#play-status") in ("your move: 2 s", "your move: 1 s")
    page.wait_for_selector("#play-recorded", timeout=WAIT_MS)
    faults = page.inner_text("#play-recorded")
    assert "Your seat faulted (timeout): no answer within 2000 ms" in faults, faults
    with Store(db) as store:
        jack = {v.id for v in store.versions() if v.bot == "@jack"}
    [match] = [m for m in stored(db) if m.seats[0].version in jack]
    assert not match.reason.startswith("abandoned") and match.seats[0].faults == 1
    assert_clean(tab)


@pytest.mark.parametrize(("asked", "said"), [("0", "1 to 600 on this server, not 0"),
                                             ("601", "1 to 600 on this server, not 601"),
                                             ("soon", "expected a whole number")])
def test_a_time_per_decision_past_the_servers_longest_is_refused(asked: str, said: str) -> None:
    assert seat_seconds({}, 600) == 600 and seat_seconds({"seconds": "45"}, 600) == 45
    with pytest.raises(PlayError, match=said):
        seat_seconds({"seconds": asked}, 600)


def upgrade(server: Server, origin: str, host: str | None = None) -> str:
    """The status line ``arena serve`` answers a WebSocket handshake for the play socket with."""
    where = urlsplit(server.url)
    with socket.create_connection((where.hostname, where.port), timeout=10) as connection:
        key = base64.b64encode(os.urandom(16)).decode()
        connection.sendall((f"GET /play/socket HTTP/1.1\r\nHost: {host or where.netloc}\r\nUpgrade: websocket\r\n"
                            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                            f"Origin: {origin}\r\n\r\n").encode())
        return connection.recv(4096).decode("latin-1").split("\r\n")[0]


def test_only_this_site_under_a_loopback_name_can_open_a_table(play_server: tuple[Server, Path]) -> None:
    server, _ = play_server
    where = urlsplit(server.url)
    assert " 101 " in upgrade(server, server.url)
    assert " 403 " in upgrade(server, "http://evil.example")
    rebound = f"evil.example:{where.port}"  # a name of another site made to resolve to this machine
    assert " 403 " in upgrade(server, f"http://{rebound}", rebound)


CRASHING = Path(__file__).resolve().parents[1] / "human" / "bots" / "crash_second"
"""A bot that plays once, then exits mid-match on its second decision."""


def test_a_bot_that_crashes_mid_match_leaves_it_and_the_person_is_told(
        tab: Watched, play_server: tuple[Server, Path]) -> None:
    server, db = play_server
    with Store(db) as store:  # registered as it is: arena submit's smoke test would refuse a bot that crashes
        install(store, load_manifest(CRASHING))
    page = tab.page
    page.goto(f"{server.url}/play/")
    page.select_option("#play-variant", "scat")
    page.select_option("#play-players", "2")
    page.select_option("#play-bots select", "crash-second")
    page.fill("#play-name", "gina")
    page.fill("#play-options", "lives=3")
    page.fill("#play-seed", "9")
    page.click("#play-start")
    while next_screen(page) == "ask":
        page.locator("#play-ask button.action:enabled").first.click()
    ended = page.inner_text("#play-end")
    assert "crash-second" in ended and "exited with status 3" in ended, ended
    [match] = [m for m in stored(db) if any(s.faults for s in m.seats) and "crash" in str(m.faults)]
    assert not match.reason.startswith("abandoned")
    assert [s.placement for s in match.seats] == [1, 2]  # the person plays on and wins; the bot is out
    assert_clean(tab)


def test_ctrl_c_on_the_server_mid_match_records_the_match_as_abandoned_and_keeps_the_rest(
        tab: Watched, tmp_path: Path) -> None:
    db = empty_database(tmp_path)
    server = start_server(db)
    try:
        sit_down(tab.page, server.url, name="hana", seed=10)
        assert next_screen(tab.page) == "ask"
    finally:
        stop_server(server)  # exits cleanly, or the test fails
    [match] = stored(db)
    assert match.reason == "abandoned: the server stopped while hana played"
    with Store(db) as store:
        assert {v.bot for v in store.versions()} == {"@hana", "random"}  # nothing else written, nothing lost


@pytest.mark.parametrize(("key", "value"), [("seat", "²"), ("seat", -1), ("seed", "1" * 5000), ("seed", -5),
                                            ("seed", 2**64), ("seed", True)])
def test_a_table_asked_with_a_bad_number_is_refused_in_one_sentence(tmp_path: Path, key: str, value: object) -> None:
    db = tmp_path / "arena.db"
    with Store(db):
        pass
    with pytest.raises(PlayError, match=f"^{key}: expected a whole number from 0 to 2\\^64 - 1, not "):
        seat_table(db, {"variant": "scat", "bots": ["random"], "name": "ivy", key: value})


class PlaySocket:
    """A WebSocket client of the play socket (wsproto on a plain socket) from this site's
    origin, as the page's script is, but free to send what the page never would."""

    def __init__(self, server: Server) -> None:
        where = urlsplit(server.url)
        self._connection = socket.create_connection((where.hostname, where.port), timeout=WAIT_MS / 1000)
        self._socket = WSConnection(ConnectionType.CLIENT)
        self._pending: list[dict[str, Any]] = []
        self._text = ""
        self.code: int | None = None
        """How the server closed the socket (None while it is open)."""
        self._write(Request(host=where.netloc, target="/play/socket", extra_headers=[(b"origin", server.url.encode())]))
        while not any(isinstance(event, AcceptConnection) for event in self._read()):
            pass

    def __enter__(self) -> PlaySocket:
        return self

    def __exit__(self, *_: object) -> None:
        self._connection.close()

    def send(self, data: str | bytes) -> None:
        self._write(TextMessage(data) if isinstance(data, str) else BytesMessage(data))

    def receive(self) -> dict[str, Any] | None:
        """The server's next message; None once it has closed the socket."""
        while not self._pending and self.code is None:
            self._read()
        return self._pending.pop(0) if self._pending else None

    def until_closed(self) -> list[dict[str, Any]]:
        """Every message left, up to the server's close."""
        messages = []
        while (message := self.receive()) is not None:
            messages.append(message)
        return messages

    def _write(self, event: Event) -> None:
        self._connection.sendall(self._socket.send(event))

    def _read(self) -> list[Event]:
        data = self._connection.recv(65536)
        self._socket.receive_data(data or None)
        events = list(self._socket.events())
        for event in events:
            if isinstance(event, TextMessage):
                self._text += event.data
                if event.message_finished:
                    self._pending.append(json.loads(self._text))
                    self._text = ""
            elif isinstance(event, CloseConnection):
                self.code = event.code
                with contextlib.suppress(OSError):
                    self._write(event.response())
        if not data and self.code is None:
            self.code = 1006  # gone without a close frame
        return events


DEEP = "[" * 100_000 + "]" * 100_000
"""A JSON document 100,000 arrays deep: the decoder of the standard library recurses once per level."""
UNREADABLE = [
    pytest.param(DEEP, "JSON nested deeper than 8 arrays and objects", id="100000-deep"),
    pytest.param("{answer", "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
                 id="not-json"),
    pytest.param('["answer", 1]', "not a JSON object", id="not-an-object"),
    pytest.param(b'{"type": "leave"}', "a binary message, not text", id="binary"),
    pytest.param(f'"{"x" * 300_000}"', "300002 characters, more than 262144", id="too-long"),
]
"""What a socket may send that is no message of the page, and what the server says of it."""


@pytest.mark.parametrize(("sent", "said"), UNREADABLE)
def test_a_message_that_cannot_be_read_before_seating_gets_one_clear_error_and_a_normal_close(
        play_server: tuple[Server, Path], sent: str | bytes, said: str) -> None:
    """A 100,000-deep message raised RecursionError in the handler: no word to the page,
    and the socket closed with 1011 (internal error)."""
    server, _ = play_server
    with PlaySocket(server) as play:
        play.send(sent)
        messages = play.until_closed()
    assert messages == [{"type": "error", "message": f"the page sent a message that cannot be read ({said})"}]
    assert play.code == 1000


@pytest.mark.parametrize(("sent", "said"), UNREADABLE)
def test_a_message_that_cannot_be_read_mid_match_abandons_it_recorded_as_what_the_page_did(
        play_server: tuple[Server, Path], sent: str | bytes, said: str) -> None:
    """The page never sends such a message, so a socket that does is not the page the person
    sees: one clear error, then the match is abandoned and recorded for what was sent (it was
    recorded as 'the server stopped while ... played', which was false) and the socket closed."""
    server, db = play_server
    with PlaySocket(server) as play:
        play.send(json.dumps({"variant": "scat", "bots": ["random"], "name": "kim", "options": SHORT, "seed": 12}))
        seated = play.receive()
        assert seated is not None and seated["type"] == "seated"
        while (message := play.receive()) is not None and message["type"] != "decision":
            pass
        assert message is not None and message["question"] == 1
        play.send(sent)
        rest = play.until_closed()
    problem = f"the page sent a message that cannot be read ({said})"
    assert [m for m in rest if m["type"] == "error"] == [
        {"type": "error", "message": f"{problem}: the match is abandoned"}]
    recorded = rest[-1]
    assert recorded["type"] == "recorded"
    assert recorded["reason"] == f"abandoned: kim's page sent a message that cannot be read ({said})"
    assert play.code == 1000
    [match] = [m for m in stored(db) if m.id == recorded["match"]]
    assert match.reason == recorded["reason"] and match.seats[0].decisions == 0
