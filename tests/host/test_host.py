"""The host as an author on another machine meets it: a real ``arena host`` over loopback,
the real ``arena submit --to`` and real HTTP clients (httpx)."""

from __future__ import annotations

import datetime
import io
import os
import re
import signal
import socket
import subprocess
import tarfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hosttools import REPO, Host, account, arena_command, bot_folder, start_host, wait_final

from arena.host.archive import pack
from arena.host.ledger import Ledger
from arena.tournament.store import SeatRecord, Store


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    db = tmp_path / "arena.db"
    Store(db).close()
    running = start_host(db, "--per-account-day", "3")
    yield running
    if running.process.poll() is None:
        running.stop()


def remote_submit(folder: Path, url: str, token: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_TOKEN"}
    return subprocess.run(arena_command("submit", folder, "--to", url, *extra), capture_output=True, text=True,
                          cwd=REPO, env={**env, "ARENA_TOKEN": token}, timeout=600)


def test_an_author_submits_from_the_command_line_and_sees_the_bot_with_its_author(host: Host, tmp_path: Path) -> None:
    token = account(host.db, "alice")
    done = remote_submit(bot_folder(tmp_path, "alices-bot"), host.url, token)
    assert done.returncode == 0, done.stderr
    assert "accepted: alices-bot" in done.stdout
    assert "smoke-testing scat" in done.stderr, "the author follows the validation's steps"
    with Store(host.db) as store:
        [version] = store.versions("alices-bot")
        assert version.manifest["author"] == "alice", "the account is the author, whatever bot.toml says"
    with host.client() as client:
        page = client.get("/b/alices-bot/")
        assert page.status_code == 200 and "by alice" in page.text
    with Ledger(host.db) as ledger:
        assert ledger.owner("alices-bot") == "alice"
        assert {"submit", "accepted", "claim bot"} <= {e.action for e in ledger.audit()}


def test_a_refused_bot_says_why_and_its_log_is_its_authors_alone(host: Host, tmp_path: Path) -> None:
    alice, mallory = account(host.db, "alice"), account(host.db, "mallory")
    broken = bot_folder(tmp_path, "broken", body="import sys\nsys.exit(3)\n")
    done = remote_submit(broken, host.url, alice)
    assert done.returncode == 2 and "refused" in done.stderr and "Traceback" not in done.stderr, done.stderr
    with host.client(alice) as client:
        [mine] = client.get("/api/submissions").json()["submissions"]
        assert mine["status"] == "refused" and "smoke match" in mine["reason"]
        assert "log" in client.get(f"/api/submissions/{mine['id']}").json()
    with host.client(mallory) as client:
        assert client.get(f"/api/submissions/{mine['id']}").status_code == 404
        assert client.get("/api/submissions").json()["submissions"] == []
    with host.client() as anonymous:
        assert anonymous.get(f"/api/submissions/{mine['id']}").status_code == 401


@pytest.mark.parametrize("header", [None, "Bearer a31_0000000000000000_guess", "Bearer nonsense", "Basic xyz"])
def test_no_valid_token_no_entry_and_every_failure_reads_the_same(host: Host, header: str | None) -> None:
    account(host.db, "alice")
    with host.client() as client:
        answer = client.post("/api/submissions", content=b"x",
                             headers={"authorization": header} if header else {})
        assert answer.status_code == 401
        assert answer.json()["error"].startswith("no valid token")
    with Ledger(host.db) as ledger:
        assert ledger.submissions() == []


def test_only_the_owner_adds_versions_of_a_name(host: Host, tmp_path: Path) -> None:
    alice, bob = account(host.db, "alice"), account(host.db, "bob")
    assert remote_submit(bot_folder(tmp_path / "a", "shared-name"), host.url, alice).returncode == 0
    stolen = remote_submit(bot_folder(tmp_path / "b", "shared-name", "2.0.0"), host.url, bob)
    assert stolen.returncode == 2 and "belongs to another author" in stolen.stderr, stolen.stderr
    squat = remote_submit(bot_folder(tmp_path / "c", "alice"), host.url, bob)
    assert squat.returncode == 2 and "reads as the account 'alice'" in squat.stderr, squat.stderr
    with Store(host.db) as store:
        assert [v.manifest["version"] for v in store.versions("shared-name")] == ["1.0.0"]
        assert store.versions("alice") == []


def test_a_flood_is_refused_at_the_accounts_daily_limit(host: Host, tmp_path: Path) -> None:
    token = account(host.db, "alice")
    data = pack(bot_folder(tmp_path, "flood"))
    with host.client(token) as client:
        answers = [client.post("/api/submissions", content=data).status_code for _ in range(4)]
    assert answers == [202, 202, 202, 429]


def raw_request(host: Host, head: str, body: bytes = b"") -> bytes:
    """Send a request as bytes (what no polite client would send) and read the answer."""
    address = host.url.removeprefix("http://")
    name, port = address.rsplit(":", 1)
    with socket.create_connection((name, int(port))) as connection:
        connection.sendall(head.replace("HOST", address).encode() + body)
        connection.settimeout(120)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += connection.recv(65536)
        head_end = answer.index(b"\r\n\r\n") + 4
        length = int(re.search(rb"content-length: (\d+)", answer[:head_end], re.I).group(1))  # type: ignore[union-attr]
        while len(answer) < head_end + length:
            answer += connection.recv(65536)
        return answer


def test_an_oversized_upload_is_refused_before_it_is_stored(host: Host) -> None:
    token = account(host.db, "alice")
    declared = raw_request(host, f"POST /api/submissions HTTP/1.1\r\nHost: HOST\r\nAuthorization: Bearer {token}"
                                 "\r\nContent-Length: 9000000\r\n\r\n")  # refused on its header, before any body
    assert declared.startswith(b"HTTP/1.1 413") and b"larger than this host accepts" in declared, declared[:300]
    chunk = b"\0" * 65536
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(8 * 16 + 1))
    streamed = raw_request(host, f"POST /api/submissions HTTP/1.1\r\nHost: HOST\r\nAuthorization: Bearer {token}"
                                 "\r\nTransfer-Encoding: chunked\r\n\r\n", chunked)  # no length: counted
    assert streamed.startswith(b"HTTP/1.1 413"), streamed[:300]
    with Ledger(host.db) as ledger:
        assert ledger.submissions() == []


@pytest.mark.parametrize("archive, reason", [
    (b"this is not an archive", "not an archive"),
    ("link", "link"),
    ("escape", ".."),
])
def test_hostile_archives_are_refused_with_one_clear_reason(host: Host, tmp_path: Path, archive: bytes | str,
                                                            reason: str) -> None:
    token = account(host.db, "alice")
    if isinstance(archive, str):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            info = tarfile.TarInfo("bot.toml" if archive == "link" else "../escape.txt")
            if archive == "link":
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
                tar.addfile(info)
            else:
                tar.addfile(info, io.BytesIO(b""))
        archive = buffer.getvalue()
    with host.client(token) as client:
        answer = client.post("/api/submissions", content=archive)
        assert answer.status_code == 202
        state = wait_final(client, answer.json()["id"])
    assert state["status"] == "refused" and reason in str(state["reason"]), state
    assert not (tmp_path / "escape.txt").exists()


def test_a_trickling_upload_is_cut_off_and_others_are_served_meanwhile(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store(db).close()
    host = start_host(db, "--upload-seconds", "1")
    try:
        token = account(db, "alice")
        address = host.url.removeprefix("http://")
        name, port = address.rsplit(":", 1)
        with socket.create_connection((name, int(port))) as slow:
            slow.sendall(f"POST /api/submissions HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n"
                         "Content-Length: 100000\r\n\r\n".encode() + b"x" * 10)
            with host.client() as other:
                assert other.get("/").status_code == 200
            slow.settimeout(120)
            answer = slow.recv(4096)  # the host answers (never waits for the rest) without this client's help
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    finally:
        host.stop()
    with Ledger(db) as ledger:
        assert ledger.submissions() == []


def test_kill_9_during_validation_loses_nothing_and_the_restart_finishes_the_queue(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store(db).close()
    host = start_host(db)
    token = account(db, "alice")
    with host.client(token) as client:
        numbers = [client.post("/api/submissions", content=pack(bot_folder(tmp_path, f"bot-{i}"))).json()["id"]
                   for i in range(3)]
    with Ledger(db) as ledger:  # wait until one is being validated, then kill the host mid-way
        for _ in range(1200):
            if any(s.status in ("building", "testing") for s in ledger.submissions()):
                break
            time.sleep(0.05)
    host.process.send_signal(signal.SIGKILL)
    host.process.wait()
    again = start_host(db)
    try:
        with again.client(token) as client:
            states = [wait_final(client, n) for n in numbers]
    finally:
        again.stop()
    assert [s["status"] for s in states] == ["accepted"] * 3, states
    with Store(db) as store:
        assert sorted(v.bot for v in store.versions()) == ["bot-0", "bot-1", "bot-2"]


@pytest.mark.long(120)
def test_twenty_authors_submitting_at_once_are_each_acknowledged_once_and_validated(tmp_path: Path) -> None:
    """Twenty accounts upload at the same moment (a barrier): every upload is acknowledged
    with its own number, stored once, and the queue validates them all."""
    db = tmp_path / "arena.db"
    Store(db).close()
    host = start_host(db)
    tokens = [account(db, f"author-{i:02d}") for i in range(20)]
    archives = [pack(bot_folder(tmp_path, f"entry-{i:02d}")) for i in range(20)]
    barrier = threading.Barrier(20)

    def upload(i: int) -> int:
        with host.client(tokens[i]) as client:
            barrier.wait()
            answer = client.post("/api/submissions", content=archives[i])
            assert answer.status_code == 202, answer.text
            return int(answer.json()["id"])

    try:
        with ThreadPoolExecutor(20) as pool:
            numbers = list(pool.map(upload, range(20)))
        assert len(set(numbers)) == 20
        with host.client(tokens[0]) as client:
            assert wait_final(client, numbers[0])["status"] == "accepted"
        with Ledger(db) as ledger:
            assert sorted(s.id for s in ledger.submissions()) == sorted(numbers)
            assert {s.account for s in ledger.submissions()} == {f"author-{i:02d}" for i in range(20)}
        for i, number in enumerate(numbers):
            with host.client(tokens[i]) as client:
                assert wait_final(client, number)["status"] == "accepted"
    finally:
        host.stop()
    with Store(db) as store:
        assert len(store.versions()) == 20


def test_only_the_owner_or_an_operator_withdraws_a_bot_and_a_disabled_bot_takes_no_new_version(
        host: Host, tmp_path: Path) -> None:
    alice, bob = account(host.db, "alice"), account(host.db, "bob")
    assert remote_submit(bot_folder(tmp_path / "a", "alices"), host.url, alice).returncode == 0
    with host.client(bob) as client:
        assert client.post("/api/bots/alices/withdraw").status_code == 404
    with Store(host.db) as store:
        assert [v.withdrawn for v in store.versions("alices", withdrawn=True)] == [None]
    env = {**os.environ, "ARENA_TOKEN": alice}
    done = subprocess.run(arena_command("withdraw", "alices", "--to", host.url), capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=120)
    assert done.returncode == 0 and "withdrew alices:" in done.stdout, done.stderr
    with Store(host.db) as store:
        assert store.versions("alices") == [] and len(store.versions("alices", withdrawn=True)) == 1
    disabled = subprocess.run(arena_command("accounts", "disable-bot", "alices", "--db", host.db),
                              capture_output=True, text=True, cwd=REPO, timeout=120)
    assert disabled.returncode == 0, disabled.stderr
    again = remote_submit(bot_folder(tmp_path / "b", "alices", "2.0.0"), host.url, alice)
    assert again.returncode == 2 and "disabled by the operator" in again.stderr, again.stderr


def test_an_address_that_keeps_guessing_is_refused_even_with_a_good_token(host: Host) -> None:
    """Twenty wrong tokens from one address: after them the address is not heard at all, so
    guessing at speed from one place gets nowhere (each account also locks itself)."""
    token = account(host.db, "alice")
    with host.client() as client:
        answers = [client.get("/api/me", headers={"authorization": f"Bearer a31_{i:016x}_{'x' * 43}"}).status_code
                   for i in range(20)]
        assert answers == [401] * 20
        assert client.get("/api/me", headers={"authorization": f"Bearer {token}"}).status_code == 429


def test_a_disabled_account_is_refused_at_once(host: Host) -> None:
    token = account(host.db, "alice")
    with host.client(token) as client:
        assert client.get("/api/me").json()["account"] == "alice"
        with Ledger(host.db) as ledger:
            ledger.disable_account("alice", actor="test")
        assert client.get("/api/me").status_code == 401


def test_a_validation_past_its_time_is_killed_and_refused_and_the_queue_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store(db).close()
    host = start_host(db, "--validate-seconds", "0.2")  # far less than any sandboxed smoke match takes
    try:
        token = account(db, "alice")
        with host.client(token) as client:
            numbers = [client.post("/api/submissions", content=pack(bot_folder(tmp_path, f"slow-{i}"))).json()["id"]
                       for i in range(2)]
            states = [wait_final(client, n) for n in numbers]
    finally:
        host.stop()
    assert [s["status"] for s in states] == ["refused", "refused"]
    assert all("validation took longer than 0.2 s" in str(s["reason"]) for s in states)
    with Store(db) as store:
        assert store.versions() == []


@pytest.mark.long(27)
def test_the_hosts_ladder_plays_the_bots_authors_enter_and_dies_with_the_host(tmp_path: Path) -> None:
    """Two authors enter a bot each; the host's ladder, waiting for bots until then, plays
    them against each other; killed with kill -9, the host leaves no ladder running."""
    db = tmp_path / "arena.db"
    Store(db).close()
    ladder = tmp_path / "ladder.toml"
    ladder.write_text('name = "ladder"\nmode = "ladder"\nopen = true\n[time]\nmove_ms = 5000\nstartup_ms = 20000\n'
                      '[[variant]]\nname = "scat"\ntables = [2]\noptions = { lives = 1 }\n', encoding="utf-8")
    host = start_host(db, "--ladder", ladder)
    try:
        for author in ("alice", "bob"):
            done = remote_submit(bot_folder(tmp_path / author, f"{author}-bot"), host.url, account(db, author))
            assert done.returncode == 0 and "entered in ladder" in done.stderr, done.stderr
        for _ in range(2400):
            with Store(db) as store:
                played = list(store.matches("ladder"))
            if len(played) >= 2:
                break
            time.sleep(0.1)
        assert {frozenset(store_bots(db, m.seats)) for m in played} == {frozenset({"alice-bot", "bob-bot"})}
        keeper = _keeper_pids(db)
        assert keeper, "the ladder runs in a process of its own"
        with Ledger(db) as ledger:
            session, _ = ledger.open_session("alice")
        with host.client() as browser:
            browser.cookies.set("arena_session", session)
            mine = browser.get("/my/").text
        with Store(db) as store:  # the ladder plays on meanwhile: the page lists the newest it found
            stored = {m.id for m in store.matches("ladder")}
        listed = re.findall(r'href="/m/([^/"]+)/"', mine)
        assert "playing on the ladder &#39;ladder&#39;" in mine and listed and set(listed) <= stored, mine
    finally:
        host.process.send_signal(signal.SIGKILL)
        host.process.wait()
    for _ in range(600):
        if not _keeper_pids(db):
            break
        time.sleep(0.05)
    assert not _keeper_pids(db), "the ladder died with the host"


def store_bots(db: Path, seats: tuple[SeatRecord, ...]) -> list[str]:
    with Store(db) as store:
        return [store.version(s.version).bot for s in seats]


def _keeper_pids(db: Path) -> list[int]:
    """The processes playing the ladder over ``db``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"arena.host.keeper" in command and str(db).encode() in command:
            found.append(int(entry.name))
    return found


@pytest.mark.long(40)
def test_a_competition_takes_entries_until_its_deadline_then_plays_its_final_and_publishes_its_key(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store(db).close()
    deadline = time.time() + 25  # time to start the host and upload two entries (not to validate them)
    stamp = datetime.datetime.fromtimestamp(deadline, datetime.UTC).isoformat(timespec="seconds")
    cup = tmp_path / "cup.toml"
    cup.write_text(f'name = "cup"\nopen = true\ndeadline = {stamp}\ndeals = 2\n[time]\nmove_ms = 5000\n'
                   'startup_ms = 20000\n[settle]\nmax_matches = 4\n'  # two random bots never settle: one round
                   '[[variant]]\nname = "scat"\ntables = [2]\noptions = { lives = 1 }\n',
                   encoding="utf-8")
    host = start_host(db, "--tournament", cup)
    try:
        for author in ("alice", "bob"):
            with host.client(account(db, author)) as client:
                answer = client.post("/api/submissions", params={"tournament": "cup"},
                                     content=pack(bot_folder(tmp_path / author, f"{author}-bot")))
                assert answer.status_code == 202, answer.text
        while time.time() <= deadline + 1:
            time.sleep(0.2)
        with host.client(account(db, "carol")) as late:
            refused = late.post("/api/submissions", params={"tournament": "cup"},
                                content=pack(bot_folder(tmp_path / "carol", "carol-bot")))
            assert refused.status_code == 400 and "closed at its deadline" in refused.json()["error"]
        for _ in range(3000):
            with Store(db) as store:
                key = store.published_key("cup")
            if key is not None:
                break
            time.sleep(0.1)
        assert key is not None, host.stderr()[-3000:]
        with Store(db) as store:
            played = list(store.matches("cup"))
            assert len(played) == 4 and key == store.deal_key("cup")  # 2 deals x 2 rotations
        with host.client() as visitor:
            assert key.hex() in visitor.get("/t/cup/").text
    finally:
        host.stop()
