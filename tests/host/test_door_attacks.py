"""The host's door as a hostile author who has read its source attacks it.

Every test is one attack on a real ``arena host`` (real HTTP: httpx and raw sockets over
loopback) or, where the door's own code is the target, on that code in this process.
Each docstring says what the attacker does and what must happen.  The attacks the door
already refuses pass; those it does not yet refuse fail until it does, and their
docstrings name the weakness.
"""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import sqlite3
import stat
import subprocess
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import httpx
import pytest
from hosttools import (
    BOTS,
    REPO,
    Host,
    account,
    arena_command,
    bot_folder,
    form_nonce,
    fresh_host,
    kill_all,
    manifest_bytes,
    processes_with,
    start_host,
    stop_host,
    submit_bytes,
    tar_gz,
    wait_final,
)

from arena.host import ledger as ledger_module
from arena.host.archive import pack
from arena.host.client import ClientError, read_token, submit_remote
from arena.host.ledger import Ledger, LedgerError
from arena.tournament.store import Store

BEHIND_A_PROXY: Final = ("--behind-proxy",)
"""How the operator tells the host that a reverse proxy on this machine sends the client's
address in ``X-Forwarded-For`` (docs/HOSTING.md)."""


# -- helpers ----------------------------------------------------------------------------


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    db = tmp_path / "arena.db"
    Store(db).close()
    running = start_host(db)
    yield running
    stop_host(running)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Host, str]]:
    """One host for the attacks that change nothing (the parametrized ones), and a token."""
    db = tmp_path_factory.mktemp("shared") / "arena.db"
    Store(db).close()
    running = start_host(db)
    yield running, account(db, "alice")
    stop_host(running)


def _raw(host: Host, request: bytes, wait_s: float = 10.0) -> bytes:
    """Send ``request`` (``HOST`` replaced by the host's address) as bytes and read the
    answer until the host closes or stops sending."""
    address = host.url.removeprefix("http://")
    name, port = address.rsplit(":", 1)
    with socket.create_connection((name, int(port))) as connection:
        connection.sendall(request.replace(b"HOST", address.encode()))
        connection.settimeout(wait_s)
        answer = b""
        try:
            while chunk := connection.recv(65536):
                answer += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return answer


def _sign_in(client: httpx.Client, token: str) -> str:
    """Sign in through /login; the session's CSRF token (from /my/)."""
    answer = client.post("/login", data={"nonce": form_nonce(client), "token": token})
    assert answer.status_code == 303, answer.text[:300]
    found = re.search(r'name="csrf" value="([^"]+)"', client.get("/my/").text)
    assert found is not None
    return found.group(1)


RANDOM_BOT: Final = (BOTS / "random" / "bot.py").read_bytes()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def _status(db: Path, number: int) -> tuple[str, str]:
    """(status, log) of a submission, read from the ledger (not over HTTP)."""
    with Ledger(db) as ledger:
        found = ledger.submission(number)
    assert found is not None
    return found.status, found.log


def _decided(db: Path, number: int, polls: int = 1200) -> tuple[str, str]:
    """(status, reason) of a submission once accepted or refused, read from the ledger."""
    for _ in range(polls):
        with Ledger(db) as ledger:
            found = ledger.submission(number)
        assert found is not None
        if found.status in ("accepted", "refused"):
            return found.status, found.reason or ""
        time.sleep(0.25)
    raise AssertionError(f"submission {number} was not decided: {found}")


# == findings: these fail until the door is fixed ======================================


def test_a_validation_longer_than_ten_quiet_seconds_is_not_killed_by_the_hosts_idle_thread(tmp_path: Path) -> None:
    """Was a weakness (high; fixed): the validator asks for PR_SET_PDEATHSIG, which fires when the *thread*
    that forked it ends, not the host process.  trio.run_process forks in a trio worker
    thread, and trio retires a worker after 10 idle seconds: on a host nobody is polling,
    every validation still running 10 s after it started is SIGKILLed, its submission stays
    'building'/'testing' for ever (until a restart), and its unpacked folder stays in the
    work folder.  A hostile author gets this with a build step that sleeps; an honest one
    with a bot that claims many variants.  (The ladder and finals of arena/host/keeper.py
    use the same die_with_parent and die the same way.)

    Here: a bot whose build step takes 14 s, and nobody asks the host anything meanwhile
    (a poll would wake the very thread and hide the bug)."""
    host = fresh_host(tmp_path)
    try:
        token = account(host.db, "alice")
        folder = bot_folder(tmp_path, "slow-build")
        building = 'entry = "bot.py"\nbuild = ["sleep", "14"]\n'
        (folder / "bot.toml").write_bytes(manifest_bytes("slow-build", extra=building))
        with host.client(token) as client:
            number = submit_bytes(client, pack(folder))
        started = time.monotonic()
        orphaned_since = None
        while time.monotonic() - started < 240:
            state, log = _status(host.db, number)
            if state in ("accepted", "refused"):
                break
            if state in ("building", "testing") and not _children(host.process.pid):
                orphaned_since = orphaned_since or time.monotonic()
                assert time.monotonic() - orphaned_since < 3, (
                    f"the validator died {time.monotonic() - started:.0f} s in and left submission {number} "
                    f"{state!r} for ever:\n{log}")
            else:
                orphaned_since = None
            time.sleep(0.25)
        with host.client(token) as client:
            final = wait_final(client, number)
        assert final["status"] == "accepted", final
    finally:
        stop_host(host)


def test_an_author_cannot_take_over_a_bot_the_operator_registered_on_the_arenas_machine(tmp_path: Path) -> None:
    """Was a weakness (high; fixed): ownership of a name is only recorded for bots that came through the
    host.  A bot registered on the arena's own machine (`arena submit` before the host
    opened, or beside it) has no owner, and submit()'s name check lets anyone add "a new
    version" of a registered name.  So the first author to upload a bot under that name is
    accepted, becomes its owner, and can then withdraw every version, the operator's too
    (POST /api/bots/NAME/withdraw), or play their code under its established name.
    Root cause: arena/host/validate.py _refusal (owner None -> allowed) with
    arena/tournament/submit.py _check_name_free (`name not in registered`)."""
    db = tmp_path / "arena.db"
    Store(db).close()
    local = bot_folder(tmp_path / "operator", "champion")
    done = subprocess.run(arena_command("submit", local, "--db", db), capture_output=True, text=True, cwd=REPO,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    host = start_host(db)
    try:
        token = account(db, "mallory")
        with host.client(token) as client:
            number = submit_bytes(client, pack(bot_folder(tmp_path / "mallory", "champion", "9.9.9")))
            state = wait_final(client, number)
            taken = client.post("/api/bots/champion/withdraw")
    finally:
        stop_host(host)
    with Store(db) as store:
        versions = store.versions("champion", withdrawn=True)
    with Ledger(db) as ledger:
        owner = ledger.owner("champion")
    assert state["status"] == "refused", f"mallory added a version to the operator's bot: {state}"
    assert owner is None and taken.status_code == 404, (owner, taken.text)
    assert [v.manifest["version"] for v in versions] == ["1.0.0"] and versions[0].withdrawn is None


def test_twenty_wrong_tokens_from_one_stranger_behind_the_proxy_do_not_lock_out_every_author(tmp_path: Path) -> None:
    """Was a weakness (high, availability; documented as a limitation in docs/HOSTING.md; fixed): behind
    the reverse proxy the docs prescribe, every request comes from 127.0.0.1, and the host
    had no way to read the client's address from the proxy (``_address`` in
    arena/host/app.py takes ``request.client.host``).  So one stranger sending 20 wrong
    tokens in 10 minutes made the host answer *every* author with 429, for as long as they
    kept it up (two requests a minute); likewise --per-address-day became one quota for
    the whole arena.  Fixed in the working tree by ``--behind-proxy`` (the proxy's
    ``X-Forwarded-For``, its last hop); see the next test for what that fix must not trust."""
    host = fresh_host(tmp_path, *BEHIND_A_PROXY)
    try:
        token = account(host.db, "alice")
        with host.client() as client:
            for i in range(20):
                client.get("/api/me", headers={"authorization": f"Bearer a31_{i:016x}_{'x' * 43}",
                                               "x-forwarded-for": "203.0.113.66"})
            guesser = client.get("/api/me", headers={"authorization": f"Bearer {token}",
                                                     "x-forwarded-for": "203.0.113.66"})
            author = client.get("/api/me", headers={"authorization": f"Bearer {token}",
                                                    "x-forwarded-for": "198.51.100.7"})
    finally:
        stop_host(host)
    assert guesser.status_code == 429, "the guessing address itself stays refused"
    assert author.status_code == 200, f"every author is locked out by one stranger: {author.status_code}"


def test_behind_the_proxy_a_clients_forwarded_host_does_not_choose_the_name_the_host_checks(tmp_path: Path) -> None:
    """Was a weakness (low, in the working tree's --behind-proxy; fixed): hypercorn's ProxyFixMiddleware in
    "legacy" mode trusts X-Forwarded-Host and X-Forwarded-Proto as well as -For, and it
    wraps *outside* KnownHosts.  The documented proxies set ``Host`` and (Caddy) -For, but
    neither removes an ``X-Forwarded-Host`` the client sent, so a client (a DNS-rebinding
    page, which may set any header on its own origin's requests) names the host the DNS
    rebinding wall and the Origin check compare against.  Fix: take only the client's
    address from the proxy (set ``scope["client"]`` from the last X-Forwarded-For in a
    small middleware of the door's own, or ProxyFixMiddleware *inside* ``secured`` with
    the host header restored), and keep checking the ``Host`` the proxy sends.  Docs: tell
    nginx users to ``proxy_set_header X-Forwarded-For $remote_addr;`` (the sample sets
    none, so nginx passes the client's own X-Forwarded-For through and every per-address
    limit is the client's to choose)."""
    host = fresh_host(tmp_path, *BEHIND_A_PROXY)
    try:
        rebound = _raw(host, b"GET / HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Host: localhost\r\n"
                             b"X-Forwarded-For: 198.51.100.7\r\nConnection: close\r\n\r\n")
    finally:
        stop_host(host)
    assert rebound.startswith(b"HTTP/1.1 421"), rebound[:100]


def test_a_timed_out_validation_leaves_no_unpacked_upload_in_the_work_folder(tmp_path: Path) -> None:
    """Was a weakness (medium; fixed): when a validation runs out of --validate-seconds the queue
    terminates the validator (SIGTERM, which a Python process obeys without running its
    ``finally``), and nothing else removes ``host-work/submission-N``: the unpacked upload
    (up to 64 MiB from an 8 MiB archive of zeros) stays, mode 755, for ever.  An author
    whose build sleeps fills the host's disk 64 MiB per submission (5 a day per account,
    any number of accounts with --signup); the same happens to every validator killed for
    the 10-second thread above.  Docs promise "The unpacked folder is removed either way".
    Fix: the queue removes the submission's folder after run_process returns, whatever
    happened (and empties the work folder at start)."""
    host = fresh_host(tmp_path, "--validate-seconds", "8")
    try:
        token = account(host.db, "alice")
        folder = bot_folder(tmp_path, "sleeper")
        building = 'entry = "bot.py"\nbuild = ["sleep", "30"]\n'
        (folder / "bot.toml").write_bytes(manifest_bytes("sleeper", extra=building))
        (folder / "ballast.bin").write_bytes(bytes(4 * 1024 * 1024))
        with host.client(token) as client:
            number = submit_bytes(client, pack(folder))
            state = wait_final(client, number)
        assert state["status"] == "refused" and "longer than 8 s" in str(state["reason"]), state
        assert "building: sleep" in str(state["log"]), f"the validator never got as far as unpacking: {state}"
        left = tmp_path / "host-work" / f"submission-{number}"
        for _ in range(40):
            if not left.exists():
                break
            time.sleep(0.25)
        assert not left.exists(), f"the upload stays unpacked: {sorted(p.name for p in left.rglob('*'))}"
    finally:
        stop_host(host)


def test_sign_up_attempts_that_fail_are_counted_against_the_address(tmp_path: Path) -> None:
    """Was a weakness (medium, unauthenticated CPU; fixed): with --signup, POST /signup with a name that is
    taken costs the host one scrypt (ledger.add_account makes the token before it looks
    the name up: ~40 ms of CPU) and is never counted: the per-address limit counts only
    accounts made, and the guard only failed token checks.  One client can keep both cores
    busy hashing for ever.  Fix: look the name up before making the token, and count a
    failed sign-up against the address (guard.failed) like a failed sign-in."""
    host = fresh_host(tmp_path, "--signup")
    try:
        account(host.db, "alice")
        with host.client() as client:
            nonce = form_nonce(client, "/signup")
            answers = [client.post("/signup", data={"nonce": nonce, "name": "alice"}).status_code for _ in range(30)]
    finally:
        stop_host(host)
    assert 429 in answers, f"30 failed sign-ups, all heard: {answers}"


def test_one_account_signing_in_in_a_loop_does_not_grow_the_database_without_bound(tmp_path: Path) -> None:
    """Was a weakness (medium, disk; fixed): every POST /login with a good token opens a new session row
    and writes an audit entry, with no limit; the guard remembers the token, so a sign-in
    costs no scrypt and one client makes hundreds a second (200 took 0.4 s here): millions
    of rows a day, 7 days' worth of sessions kept.  With --signup anyone can do it.
    Fix: cap an account's live sessions (drop the oldest past, say, 10 in
    Ledger.open_session) and limit sign-ins per account (or per address) in time."""
    host = fresh_host(tmp_path)
    try:
        token = account(host.db, "alice")
        with Ledger(host.db) as ledger:
            before = len(ledger.audit(limit=10_000))
        with host.client() as client:
            nonce = form_nonce(client)
            client.cookies.set("arena_login", nonce)
            for _ in range(100):
                client.post("/login", data={"nonce": nonce, "token": token})
    finally:
        stop_host(host)
    with sqlite3.connect(host.db) as db:
        sessions = db.execute("SELECT COUNT(*) FROM sessions WHERE account = 'alice'").fetchone()[0]
    with Ledger(host.db) as ledger:
        added = len(ledger.audit(limit=10_000)) - before
    assert sessions <= 20, f"one account holds {sessions} live sessions"
    assert added <= 40, f"100 sign-ins added {added} audit entries"


def test_a_validator_killed_while_copying_its_bot_does_not_break_every_later_sandbox(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Was a weakness (high, machine-wide; fixed): the sandbox's resident layer makes each copy in
    ``/run/arena-resident/.building-PID-NAME`` and renames it into place; a process killed
    meanwhile leaves that folder, which the next process's sweep should remove.  But
    ``Resident._sweep`` (arena/sandbox/resident.py) reads the pid as
    ``entry.name.split("-")[2]`` (that is NAME's first word, ``usr`` or ``bot``) and
    int() raises ValueError: from then on *every* sandbox probe on the machine fails, so
    every validation ends "the host could not validate it: ValueError" (and every
    ``arena run``), until someone removes the folder by hand.  A hostile author gets a
    validator killed mid-copy with --validate-seconds (a bot of 4,096 files takes seconds to
    copy) or with the 10-second thread above; this test run left
    ``.building-14351-usr-...`` that way once.  (A live process's .building folder makes
    every other process crash the same way while it builds.)  Fix: ``split("-")[1]``, or
    better ``removeprefix(".building-").split("-", 1)[0]`` checked with isdigit().
    Tested on a folder of its own, not the machine's."""
    from arena.sandbox import resident

    monkeypatch.setattr(resident, "MOUNT", tmp_path)
    dead = subprocess.Popen(["true"])
    dead.wait()
    abandoned = tmp_path / f".building-{dead.pid}-usr-c59ba3a8ad6f54568d59b108"
    abandoned.mkdir()
    resident.Resident(Path(), Path(), [])._sweep()
    assert not abandoned.exists()


def test_an_owner_withdrawing_nothing_in_a_loop_does_not_grow_the_audit_log(host: Host) -> None:
    """Was a weakness (low, disk; fixed): POST /api/bots/NAME/withdraw by its owner records an audit entry
    every time, even when nothing was left to withdraw, with no limit: one client writes
    audit rows as fast as it can send.  Fix: in ``api_withdraw`` (arena/host/app.py)
    record only when ``gone`` is not empty."""
    token = account(host.db, "alice")
    with Ledger(host.db) as ledger:
        assert ledger.claim("alices-bot", "alice")
    with host.client(token) as client:
        answers = {client.post("/api/bots/alices-bot/withdraw").status_code for _ in range(50)}
    with Ledger(host.db) as ledger:
        logged = [e for e in ledger.audit(limit=1000) if e.action == "withdraw"]
    assert answers == {200} and len(logged) <= 1, f"{len(logged)} audit entries for withdrawing nothing"


def test_a_submission_number_in_other_digits_is_an_unknown_number_not_a_server_error(host: Host) -> None:
    """Was a weakness (low; fixed): ``_own_submission`` (arena/host/app.py) accepts ``number.isdigit()``,
    which is true of '²' and other Unicode digits that int() refuses: GET
    /api/submissions/%C2%B2 (and /my/s/%C2%B2/) is a 500 with a traceback in the host's log
    for every such request, where an unknown number is a 404.  Fix: test
    ``number.isascii() and number.isdigit()`` (or a regex [0-9]{1,18})."""
    token = account(host.db, "alice")
    with host.client(token) as client:
        api = client.get("/api/submissions/%C2%B2")
    with host.client() as browser:
        _sign_in(browser, token)
        page = browser.get("/my/s/%C2%B2/")
    assert (api.status_code, page.status_code) == (404, 404)
    assert "Traceback" not in host.stderr()


def test_a_refusal_does_not_tell_the_author_where_the_host_keeps_its_files(host: Host) -> None:
    """Was a weakness (low, information; fixed): the reason and log of a refused upload quote the path the
    validator unpacked it to (``/srv/.../host-work/submission-N/bot: no bot.toml``,
    ``.../bot.toml: not valid TOML``): the host's folders and the database's, to anyone
    with an account.  Fix: in arena/host/validate.py, replace the unpacked folder's path in
    every message (reason, log and progress) with a neutral name such as ``your bot``."""
    token = account(host.db, "alice")
    with host.client(token) as client:
        numbers = [submit_bytes(client, tar_gz({"readme.txt": b"hi"})),
                   submit_bytes(client, tar_gz({"bot.toml": b"name = [", "bot.py": RANDOM_BOT}))]
        states = [wait_final(client, n) for n in numbers]
    private = str(host.db.parent)
    for state in states:
        assert state["status"] == "refused", state
        assert private not in str(state["reason"]) and private not in str(state["log"]), state["reason"]


def test_a_visitor_cannot_sign_up_under_the_audit_logs_own_actor_names(tmp_path: Path) -> None:
    """Was a weakness (low, audit integrity; fixed): the audit log names what the host decides with the
    actor ``host`` and sign-ups with ``sign-up``, and both are valid account names: with
    --signup a visitor becomes ``host`` and everything they do (submit, withdraw, sign in)
    is logged as if the host did it.  Fix: reserve ``host`` and ``sign-up`` (folded, like
    every account name) in Ledger.add_account."""
    host = fresh_host(tmp_path, "--signup")
    try:
        with host.client() as client:
            nonce = form_nonce(client, "/signup")
            answers = {name: client.post("/signup", data={"nonce": nonce, "name": name}).status_code
                       for name in ("host", "sign-up", "sign_up")}
    finally:
        stop_host(host)
    with Ledger(host.db) as ledger:
        made = [a.name for a in ledger.accounts()]
    assert made == [], f"accounts named like the audit log's actors: {made} ({answers})"


def test_the_database_holding_every_upload_is_not_readable_by_other_users(host: Host) -> None:
    """Was a weakness (low; fixed): the results database the host writes into keeps every author's
    uploaded archives (refused ones too), their private logs, the audit log's addresses and
    the sessions' CSRF tokens, and stays mode 644: any user of the machine reads another
    author's code there.  `arena backup` already writes its copies mode 600 for this very
    reason.  Fix: the host makes the database (and its -wal/-shm) 600 when it opens it."""
    token = account(host.db, "alice")
    with host.client(token) as client:
        submit_bytes(client, b"not an archive")
    for path in (host.db, host.db.with_name(host.db.name + "-wal")):
        if path.exists():
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, f"{path.name}: {stat.S_IMODE(path.stat().st_mode):o}"


def test_a_link_planted_in_a_shared_work_folder_is_not_followed(tmp_path: Path) -> None:
    """Was a weakness (low, hardening; fixed): the validator's folder is ``WORK/submission-N``, a name
    anyone can predict, and validate() does rmtree (which ignores a link), mkdir
    parents=True and chmod 755 through whatever is there.  Where the work folder is
    writable by someone else (``--work`` on a shared disk, or a world-writable folder), they
    plant ``submission-N -> /some/private/folder`` and the host, running as root here,
    opens that folder to everyone (chmod 755) and unpacks the upload into it.  Fix: refuse
    a work folder that others can write (or not owned by the host's user), and make each
    validation's folder with a fresh random name (tempfile.mkdtemp(dir=WORK))."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    (shared / "submission-1").symlink_to(private)
    db = tmp_path / "arena.db"
    Store(db).close()
    try:
        host = start_host(db, "--work", shared)
    except AssertionError as refused:  # a host that refuses the work folder is a fix too
        assert "work" in str(refused)
        return
    try:
        token = account(db, "alice")
        with host.client(token) as client:
            assert submit_bytes(client, tar_gz({"bot.toml": manifest_bytes("planted"), "bot.py": RANDOM_BOT})) == 1
            wait_final(client, 1)
    finally:
        stop_host(host)
    assert stat.S_IMODE(private.stat().st_mode) == 0o700, f"opened: {stat.S_IMODE(private.stat().st_mode):o}"
    assert list(private.iterdir()) == [], f"written into: {sorted(p.name for p in private.rglob('*'))}"


# == attacks the door refuses ==========================================================


@pytest.mark.parametrize("token", ["a31_zz_nonsense", "", "x" * 5000, "a31_0000000000000000_" + "A" * 43,
                                   "WRONG", "RIGHT", "LOCKED", "DISABLED"])
def test_every_kind_of_wrong_token_costs_the_same_one_scrypt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             token: str) -> None:
    """Timing: a malformed token, an unknown id, a wrong secret, a locked or disabled
    account's token all cost exactly one scrypt (the time that matters), so the time taken
    does not tell an attacker which ids exist.  (A wrong secret also writes its failure
    count: microseconds against scrypt's tens of milliseconds.)"""
    db = tmp_path / "arena.db"
    with Ledger(db) as ledger:
        _, good = ledger.add_account("alice", actor="test")
        _, other = ledger.add_account("bob", actor="test")
        ledger.disable_account("bob", actor="test")
        wrong = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
        if token == "LOCKED":
            for _ in range(ledger_module.MAX_FAILURES):
                ledger.authenticate(wrong)
        token = {"WRONG": wrong, "RIGHT": good, "LOCKED": good, "DISABLED": other}.get(token, token)
        calls: list[int] = []
        real = ledger_module._scrypt
        monkeypatch.setattr(ledger_module, "_scrypt", lambda secret, salt: calls.append(1) or real(secret, salt))
        ledger.authenticate(token)
    assert len(calls) == 1


def test_a_remembered_token_stops_working_at_once_when_rotated_disabled_or_locked(host: Host) -> None:
    """The guard remembers a checked token for a minute (no scrypt); a rotation, a disable
    or a lock-out (5 wrong secrets) must still refuse it at its very next use."""
    with Ledger(host.db) as ledger:
        _, alice = ledger.add_account("alice", actor="test")
        _, bob = ledger.add_account("bob", actor="test")
        _, carol = ledger.add_account("carol", actor="test")
    for token in (alice, bob, carol):
        with host.client(token) as client:
            assert client.get("/api/me").status_code == 200  # remembered from now on
    with Ledger(host.db) as ledger:
        ledger.rotate_token("alice", actor="test")
        ledger.disable_account("bob", actor="test")
    wrong = carol[:-4] + ("AAAA" if not carol.endswith("AAAA") else "BBBB")
    with host.client(wrong) as client:
        assert [client.get("/api/me").status_code for _ in range(5)] == [401] * 5
    for token in (alice, bob, carol):
        with host.client(token) as client:
            assert client.get("/api/me").status_code == 401


def test_a_token_never_shows_in_answers_the_audit_log_or_the_hosts_log(host: Host) -> None:
    """A token sent wrong (to the API, to /login, as a file field) is not echoed back in
    any answer, nor written to the audit log or the host's own log."""
    token = account(host.db, "alice")
    secret = token.split("_", 2)[2]
    guess = token[:-6] + "ZZZZZZ"
    bodies = []
    with host.client() as client:
        bodies.append(client.get("/api/me", headers={"authorization": f"Bearer {guess}"}).text)
        nonce = form_nonce(client)
        bodies.append(client.post("/login", data={"nonce": nonce, "token": guess}).text)
        bodies.append(client.post("/login", data={"nonce": nonce}, files={"token": ("t", guess.encode())}).text)
        bodies.append(client.post("/login", data={"nonce": nonce, "token": token}).text)
    assert all(guess not in b and secret not in b for b in bodies)
    with Ledger(host.db) as ledger:
        logged = " ".join(f"{e.target} {e.detail} {e.address}" for e in ledger.audit())
    assert secret not in logged and guess[-20:] not in logged
    assert secret not in host.stderr() and guess[-20:] not in host.stderr()


def test_the_client_never_sends_a_token_where_it_can_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena submit --to` refuses plain http to another machine (the token would cross the
    network readable) and a token file others can read."""
    folder = bot_folder(tmp_path, "client-bot")
    with pytest.raises(ClientError, match="plain http"):
        submit_remote(folder, "http://arena.example.org", token="a31_x")
    with pytest.raises(ClientError, match="plain http"):
        submit_remote(folder, "http://localhost.example.org", token="a31_x")
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    file = tmp_path / "config" / "arena" / "token"
    file.parent.mkdir(parents=True)
    file.write_text("a31_secret\n")
    file.chmod(0o644)
    with pytest.raises(ClientError, match="can be read by other users"):
        read_token()
    file.chmod(0o600)
    assert read_token() == "a31_secret"


def test_login_csrf_session_fixation_cookie_flags_and_logout(host: Host) -> None:
    """Another site cannot sign a visitor in to the attacker's account (the nonce cookie is
    SameSite and unreadable to it); a session id the attacker plants is never adopted; the
    session cookie is HttpOnly and SameSite=Strict; signing out ends it in the database,
    and only with the session's CSRF token."""
    token = account(host.db, "alice")
    with host.client() as client:
        nonce = form_nonce(client)
        client.cookies.clear()  # another site's form: the nonce is known, the cookie is not sent
        assert client.post("/login", data={"nonce": nonce, "token": token}).status_code == 403
        client.cookies.set("arena_login", "other")
        assert client.post("/login", data={"nonce": "guess", "token": token}).status_code == 403
    planted = "planted-by-the-attacker-" + "x" * 20
    with host.client() as victim:
        victim.cookies.set("arena_session", planted)
        assert victim.get("/my/").status_code == 303
        answer = victim.post("/login", data={"nonce": form_nonce(victim), "token": token})
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    session = answer.cookies["arena_session"]
    assert session != planted and len(session) >= 40
    with host.client() as attacker:
        attacker.cookies.set("arena_session", planted)
        assert attacker.get("/my/").status_code == 303, "the planted id was adopted"
    with host.client() as client:
        client.cookies.set("arena_session", session)
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/my/").text).group(1)  # type: ignore[union-attr]
        client.post("/logout", data={"csrf": "wrong"})  # a forged sign-out ends nothing
    with host.client() as client:
        client.cookies.set("arena_session", session)
        assert client.get("/my/").status_code == 200
        assert client.post("/logout", data={"csrf": csrf}).status_code == 303
    with host.client() as kept:  # someone who kept the cookie
        kept.cookies.set("arena_session", session)
        assert kept.get("/my/").status_code == 303
    with sqlite3.connect(host.db) as db:
        assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 0


def test_a_post_from_another_origin_is_refused_whatever_its_shape(host: Host) -> None:
    """The Origin wall: another port of the same machine, another name, the same name
    without its port: 403 before the route runs, even with a valid session and CSRF token.
    A request with no Origin (not a browser's cross-site POST) still needs the CSRF token."""
    token = account(host.db, "alice")
    port = host.url.rsplit(":", 1)[1]
    with host.client() as client:
        csrf = _sign_in(client, token)
        for origin in (f"http://127.0.0.1:{int(port) + 1}", "http://evil.example", f"http://evil.example:{port}",
                       "http://127.0.0.1", f"http://localhost:{port}"):
            for path in ("/my/submit", "/logout", "/login"):
                answer = client.post(path, data={"csrf": csrf}, headers={"origin": origin})
                assert answer.status_code == 403, (origin, path, answer.status_code)
        answer = client.post("/my/submit", data={"csrf": "forged"}, files={"archive": ("a.tgz", b"x")})
        assert answer.status_code == 403
        assert client.get("/my/").status_code == 200, "the session survived every refused post"
    with Ledger(host.db) as ledger:
        assert ledger.submissions() == []


def test_a_refusal_sent_before_the_body_arrives_tells_the_client_the_connection_closes(host: Host) -> None:
    """A POST refused before its body is read (another Origin here; a wrong Host, a body over
    its limit) leaves the server unable to find where the next request starts, so it closes
    the connection.  Unless the response says ``Connection: close``, a keep-alive client
    sends its next request into that closing connection and gets no answer at all
    ("server disconnected"): the refusal must say so."""
    port = int(host.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=60) as raw:
        raw.sendall(f"POST /logout HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://evil.example\r\n"
                    "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n".encode())
        answer = b""
        while chunk := raw.recv(65536):  # the body never comes: the server answers and closes
            answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    assert head.startswith(b"http/1.1 403") and b"\r\nconnection: close" in head, head


def test_a_post_whose_origin_is_null_is_refused(host: Host) -> None:
    """Was a weakness (low, in the working tree; fixed): ``_same_origin`` now lets ``Origin: null``
    through, because the pages' ``Referrer-Policy: no-referrer`` makes a browser send
    ``null`` for the host's own forms.  But ``null`` is also what an attacker's sandboxed
    iframe, a data: URL or a file: page sends, so for them the Origin wall is gone and only
    the CSRF token and SameSite cookie remain.  Fix: give the host's responses
    ``Referrer-Policy: same-origin`` (nothing leaks to other sites, and a browser then
    sends the real Origin for the host's own forms) and refuse ``null`` again."""
    token = account(host.db, "alice")
    with host.client() as client:
        csrf = _sign_in(client, token)
        answers = {path: client.post(path, data={"csrf": csrf}, files={"archive": ("a.tgz", b"x")},
                                     headers={"origin": "null"}).status_code for path in ("/my/submit", "/logout")}
    assert answers == {"/my/submit": 403, "/logout": 403}, answers


@pytest.mark.parametrize("name", [b"evil.example", b"localhost.evil.example", b"127.0.0.1.nip.io", b"127.1",
                                  b"0x7f000001", b"2130706433", b"[::ffff:127.0.0.1]", b"localhost.", b"",
                                  b"localhost:1@evil.example"])
def test_a_name_that_is_not_the_hosts_is_refused(shared: tuple[Host, str], name: bytes) -> None:
    """DNS rebinding and Host-header tricks: on loopback the host answers only loopback
    names (421 for any other, whatever the spelling of 127.0.0.1 a resolver might accept)."""
    host, _ = shared
    answer = _raw(host, b"POST /login HTTP/1.1\r\nHost: " + name
                  + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 421"), answer[:100]


@pytest.mark.parametrize("head", [
    b"Content-Length: 5\r\nContent-Length: 6\r\n",  # two lengths: which one would a proxy believe?
    b"Content-Length: \xb2\r\n",  # a digit to str.isdigit, not to int()
    b"Content-Length: -1\r\n",
    b"Content-Length: 0x10\r\n",
    b"Transfer-Encoding: gzip, chunked\r\n",
    b"X-Padding: " + b"a" * 200_000 + b"\r\n",  # headers past any buffer
    b"Host: evil.example\r\n",  # a second Host
])
def test_smuggling_shaped_requests_are_refused_before_the_door(shared: tuple[Host, str], head: bytes) -> None:
    """Requests a front proxy and the host might read two ways are refused (400/413/431),
    never handed to the door, and store nothing."""
    host, token = shared
    answer = _raw(host, b"POST /api/submissions HTTP/1.1\r\nHost: HOST\r\nAuthorization: Bearer " + token.encode()
                  + b"\r\n" + head + b"Connection: close\r\n\r\nhello")
    assert re.match(rb"HTTP/1\.1 (400|413|431|501) ", answer), answer[:200]
    with Ledger(host.db) as ledger:
        assert ledger.submissions() == []


def test_oversized_and_overfull_forms_are_refused_with_a_sentence(host: Host) -> None:
    """Several files in one upload, many fields, a multi-megabyte file name, a url-encoded
    form of thousands of fields, a form past 16 KiB at /login: refused with 4xx and one
    sentence, no traceback and no path; nothing is queued."""
    token = account(host.db, "alice")
    with host.client() as client:
        csrf = _sign_in(client, token)
        answers = [
            client.post("/my/submit", data={"csrf": csrf},
                        files=[("archive", ("a.tgz", b"x")), ("archive", ("b.tgz", b"y"))]),
            client.post("/my/submit", data={"csrf": csrf, **{f"f{i}": "1" for i in range(20)}},
                        files={"archive": ("a.tgz", b"x")}),
            client.post("/my/submit", data={"csrf": csrf}, files={"archive": ("n" * 2_000_000, b"x")}),
            client.post("/my/submit", content="&".join(f"f{i}=1" for i in range(5000)).encode(),
                        headers={"content-type": "application/x-www-form-urlencoded"}),
            client.post("/my/submit", content=b"x", headers={"content-type": "text/plain"}),
            client.post("/login", content=b"token=" + b"a" * 20_000,
                        headers={"content-type": "application/x-www-form-urlencoded"}),
        ]
    for answer in answers:
        assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
        assert "Traceback" not in answer.text and str(host.db.parent) not in answer.text
    with Ledger(host.db) as ledger:
        assert ledger.submissions() == []


def test_another_accounts_submission_is_an_unknown_number_on_every_route(host: Host) -> None:
    """Submission numbers: another account's, negative, zero, huge, not numbers: 404 (the
    same answer as a number that does not exist), on the API and on /my/s/N/."""
    alice, bob = account(host.db, "alice"), account(host.db, "bob")
    with host.client(alice) as client:
        number = submit_bytes(client, b"alice's private upload")
    with host.client(bob) as client:
        for wanted in (str(number), f"0{number}", "-1", "0", "9" * 18, "9" * 40, "1.0", "0x1", "1e0",
                       f"%20{number}"):
            assert client.get(f"/api/submissions/{wanted}").status_code == 404, wanted
        assert client.get("/api/submissions").json()["submissions"] == []
    with host.client() as browser:
        _sign_in(browser, bob)
        page = browser.get(f"/my/s/{number}/")
        assert page.status_code == 404 and "private upload" not in page.text
        assert f'href="/my/s/{number}/"' not in browser.get("/my/").text


def test_a_tournament_name_is_only_one_the_host_opened(host: Host) -> None:
    """The ``tournament`` parameter is matched against the names the operator opened, never
    read as a path: traversal and unconfigured names are refused before anything is
    stored."""
    token = account(host.db, "alice")
    with host.client(token) as client:
        for name in ("../../../../etc/passwd", "/etc/passwd", str(REPO / "tournaments" / "demo.toml"), "demo",
                     "\x00"):
            answer = client.post("/api/submissions", content=b"x", params={"tournament": name})
            assert answer.status_code == 400 and "no tournament" in answer.json()["error"], answer.text
    with Ledger(host.db) as ledger:
        assert ledger.submissions() == []


def test_only_a_bots_owner_withdraws_it_however_its_name_is_spelled(host: Host) -> None:
    """Withdrawing another account's bot: its name, a spelling that folds to it, URL-encoded
    separators and traversal, a bundled bot: 404 each time, nothing withdrawn or logged."""
    bob = account(host.db, "bob")
    account(host.db, "alice")
    with Ledger(host.db) as ledger:
        assert ledger.claim("alices-bot", "alice")
    with host.client(bob) as client:
        for name in ("alices-bot", "alices.bot", "ALICES-BOT", "alices_bot", "alicesbot", "alices-bot%00",
                     "..%2Falices-bot", "%2e%2e", "random", "alices-bot%20"):
            answer = client.post(f"/api/bots/{name}/withdraw")
            assert answer.status_code in (404, 405), (name, answer.status_code)
    with Ledger(host.db) as ledger:
        assert not [e for e in ledger.audit() if e.action == "withdraw"]


def test_names_that_squat_are_refused_and_two_authors_racing_for_one_name_get_it_once(host: Host,
                                                                                      tmp_path: Path) -> None:
    """Squatting: a bundled bot's name (folded), a name reading as another account's, and two
    accounts uploading the same new name at the same moment: exactly one gets it; the
    other, and a folded spelling of it, are refused ("belongs to another author")."""
    alice, bob = account(host.db, "alice"), account(host.db, "bob")
    archives = {who: pack(bot_folder(tmp_path / who, "contested", "1.0.0" if who == "alice" else "2.0.0"))
                for who in ("alice", "bob")}
    barrier = threading.Barrier(2)
    numbers: dict[str, int] = {}

    def race(who: str, token: str) -> None:
        with host.client(token) as client:
            barrier.wait()
            numbers[who] = submit_bytes(client, archives[who])

    racers = [threading.Thread(target=race, args=args) for args in (("alice", alice), ("bob", bob))]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    with host.client(bob) as client:
        squats = [submit_bytes(client, tar_gz({"bot.toml": manifest_bytes(name), "bot.py": RANDOM_BOT}))
                  for name in ("ran-dom", "random", "a.lice", "contest.ed")]
        refused = [wait_final(client, n) for n in squats]
        raced = {"bob": wait_final(client, numbers["bob"])}
    with host.client(alice) as client:
        raced["alice"] = wait_final(client, numbers["alice"])
    assert sorted(s["status"] for s in raced.values()) == ["accepted", "refused"], raced
    loser = next(s for s in raced.values() if s["status"] == "refused")
    assert "belongs to another author" in str(loser["reason"]), loser
    assert [s["status"] for s in refused] == ["refused"] * 4, refused
    with Store(host.db) as store:
        assert len(store.versions("contested")) == 1
        assert not store.versions("ran-dom") and not store.versions("a.lice") and not store.versions("contest.ed")


def test_hostile_manifests_and_folders_touch_nothing_outside_their_own_folder(host: Host, tmp_path: Path) -> None:
    """A bot.toml whose ``entry`` is an absolute path to the host's own files or climbs out
    with '..', and a ``build`` step that writes to a path of the host: none of them runs
    the host's files or writes on the host (the sandbox sees neither); and a folder packed
    with its top-level folder and macOS's ``__MACOSX`` beside it is still read as the bot.
    (Hardening, not a hole: load_manifest could refuse a non-relative ``entry`` outright,
    which would also end the validator's is_file() probe of the host's paths.)"""
    token = account(host.db, "alice")
    marker = tmp_path / "written-by-a-build"
    outside = str(BOTS / "random" / "bot.py")
    hostile = {
        "abs-entry": tar_gz({"bot.toml": manifest_bytes("abs-entry", extra=f'entry = "{outside}"\n'), "x.py": b""}),
        "dotdot-entry": tar_gz({"bot.toml": manifest_bytes("dotdot-entry", extra='entry = "../../../../../../../../..'
                                                    + outside + '"\n'), "x.py": b""}),
        "builder": tar_gz({"bot.toml": manifest_bytes("builder", extra='entry = "bot.py"\nbuild = ["/bin/sh", "-c", '
                                               f'"touch {marker} || true"]\n'), "bot.py": RANDOM_BOT}),
    }
    macos = io.BytesIO()
    with zipfile.ZipFile(macos, "w") as archive:
        archive.writestr("mac-bot/bot.toml", manifest_bytes("mac-bot"))
        archive.writestr("mac-bot/bot.py", RANDOM_BOT)
        archive.writestr("__MACOSX/mac-bot/._bot.py", b"\0\5\26\7")
    with host.client(token) as client:
        numbers = {name: submit_bytes(client, data) for name, data in hostile.items()}
        numbers["mac-bot"] = submit_bytes(client, macos.getvalue())
        states = {name: wait_final(client, n) for name, n in numbers.items()}
    assert states["abs-entry"]["status"] == "refused" and states["dotdot-entry"]["status"] == "refused", states
    assert not marker.exists(), "a build step wrote on the host"
    assert states["mac-bot"]["status"] == "accepted", states["mac-bot"]
    with Store(host.db) as store:
        assert not store.versions("abs-entry") and not store.versions("dotdot-entry")
        [mac] = store.versions("mac-bot")
        assert not (Path(str(mac.path)) / "__MACOSX").exists()


def test_floods_are_counted_per_address_across_accounts_and_for_sign_ups(tmp_path: Path) -> None:
    """Many accounts from one address share its daily limit (submissions and sign-ups);
    the counts hold at the limit exactly."""
    host = fresh_host(tmp_path, "--per-address-day", "2", "--signup")
    try:
        tokens = [account(host.db, name) for name in ("a1", "a2", "a3")]
        answers = []
        for token in tokens:
            with host.client(token) as client:
                answers.append(client.post("/api/submissions", content=b"x").status_code)
        with host.client() as client:
            nonce = form_nonce(client, "/signup")
            made = [client.post("/signup", data={"nonce": nonce, "name": f"new{i}"}).status_code for i in range(3)]
    finally:
        stop_host(host)
    assert answers == [202, 202, 429]
    assert made == [200, 200, 400]
    with Ledger(host.db) as ledger:
        assert len(ledger.submissions()) == 2 and len(ledger.accounts()) == 5


def test_the_work_folder_is_the_hosts_alone(host: Host) -> None:
    """A bot (another user) cannot plant links in the default work folder: it is made by the
    host, owned by it, and writable by nobody else."""
    token = account(host.db, "alice")
    with host.client(token) as client:
        wait_final(client, submit_bytes(client, b"not an archive"))
    work = host.db.parent / "host-work"
    info = work.stat()
    assert info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) & 0o022 == 0
    assert list(work.iterdir()) == [], "a refused upload leaves nothing unpacked"


def test_kill_9_of_the_host_takes_its_validator_and_the_validators_bots_with_it(tmp_path: Path) -> None:
    """kill -9 of the host while a build runs: the validator (PR_SET_PDEATHSIG) and the
    sandboxed build it started are gone within seconds, so a restarted host does not
    validate beside a leftover."""
    host = fresh_host(tmp_path)
    seconds = f"{60 + os.getpid() % 1000}.{os.getpid() % 7}"  # a command line no other test has
    validators: list[int] = []
    builds: list[int] = []
    try:
        token = account(host.db, "alice")
        folder = bot_folder(tmp_path, "killed-build")
        (folder / "bot.toml").write_bytes(manifest_bytes("killed-build",
                                                    extra=f'entry = "bot.py"\nbuild = ["sleep", "{seconds}"]\n'))
        with host.client(token) as client:
            number = submit_bytes(client, pack(folder))
        for _ in range(240):
            if "building:" in _status(host.db, number)[1] and processes_with(f"sleep {seconds}"):
                break
            time.sleep(0.25)
        validators, builds = _children(host.process.pid), processes_with(f"sleep {seconds}")
    finally:
        host.process.send_signal(signal.SIGKILL)
        host.process.wait()
    assert validators and builds, "the build never started"
    alive = validators
    for _ in range(40):
        alive = [p for p in validators if _running(p)]
        if not alive and not processes_with(f"sleep {seconds}"):
            break
        time.sleep(0.25)
    assert not alive, f"the validator outlived the host: {alive}"
    assert not processes_with(f"sleep {seconds}"), "the build outlived the host"


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


LADDER: Final = ('name = "ladder"\nmode = "ladder"\nopen = true\n[time]\nmove_ms = 5000\nstartup_ms = 20000\n'
                 '[[variant]]\nname = "scat"\ntables = [2]\noptions = { lives = 1 }\n')


@pytest.mark.parametrize(("files", "said"), [
    pytest.param({"bot.toml": manifest_bytes("breaker", extra='entry = ".git/bot.py"\n'), ".git/bot.py": RANDOM_BOT},
                 "not part of a bot's code", id="entry-in-an-ignored-folder"),
    pytest.param({"bot.toml": manifest_bytes("breaker", extra='entry = "bot.py"\nbuild = ["/bin/sh", "-c", '
                                        '"echo \'name = [\' > bot.toml"]\n'), "bot.py": RANDOM_BOT},
                 "changed or removed bot.toml", id="build-rewrites-bot.toml"),
    pytest.param({"bot.toml": manifest_bytes("breaker", extra='command = ["{python}", ".git/bot.py"]\n'),
                  ".git/bot.py": (REPO / "benchmarks" / "trivial_raw" / "bot.py").read_bytes()},
                 "crash before hello", id="command-runs-a-file-in-git"),
])
def test_a_bot_whose_kept_copy_would_not_load_is_refused_at_the_door(tmp_path: Path, files: dict[str, bytes],
                                                                     said: str) -> None:
    """What the validator tested was not what the registry kept: an entry in ``.git`` (the
    upload has it; the registered copy leaves such folders out) or a build step that
    rewrote ``bot.toml`` (the smoke matches ran with the manifest read before it) was
    accepted and entered, and every ladder table that seated it killed its referee workers
    ("3 referee workers died"): with one honest bot beside it, the ladder stored nothing.
    Both are refused now, with the reason; the honest bot is entered."""
    ladder = tmp_path / "ladder.toml"
    ladder.write_text(LADDER, encoding="utf-8")
    host = fresh_host(tmp_path, "--ladder", ladder)
    try:
        with host.client(account(host.db, "mallory")) as client:
            number = submit_bytes(client, tar_gz(files))
        with host.client(account(host.db, "bob")) as client:
            honest = submit_bytes(client, tar_gz({"bot.toml": manifest_bytes("bobs-bot"), "bot.py": RANDOM_BOT}))
        status, reason = _decided(host.db, number)
        assert _decided(host.db, honest)[0] == "accepted"
    finally:
        stop_host(host)
    assert status == "refused" and said in reason, (status, reason)
    with Store(host.db) as store:
        assert store.versions("breaker", withdrawn=True) == []


def test_a_disabled_accounts_queued_uploads_are_not_validated_or_entered(tmp_path: Path) -> None:
    """The operator disables an account that uploads hostile bots: its token is refused at
    once, but the uploads it had queued were still validated (its code run in the sandbox),
    accepted, claimed for it and entered.  They are refused now, before any of their code
    runs.  The queue is held by another author's build that sleeps until the test ends it,
    so the account is surely disabled while its upload waits."""
    host = fresh_host(tmp_path)
    marker = f"{3000 + os.getpid() % 1000}.{os.getpid() % 7}"  # a command line no other process has
    try:
        bob, mallory = account(host.db, "bob"), account(host.db, "mallory")
        with host.client(bob) as client:
            building = f'entry = "bot.py"\nbuild = ["sleep", "{marker}"]\n'
            blocker = submit_bytes(client, tar_gz({"bot.toml": manifest_bytes("blocker", extra=building),
                                                   "bot.py": RANDOM_BOT}))
        for _ in range(1200):
            if processes_with(f"sleep {marker}"):
                break
            time.sleep(0.25)
        assert processes_with(f"sleep {marker}"), "the blocking build never started"
        with host.client(mallory) as client:
            number = submit_bytes(client, tar_gz({"bot.toml": manifest_bytes("mallorys-bot"), "bot.py": RANDOM_BOT}))
        with Ledger(host.db) as ledger:
            ledger.disable_account("mallory", actor="operator")
            assert _status(host.db, number)[0] == "queued"
            assert _status(host.db, blocker)[0] in ("building", "testing")
        kill_all(f"sleep {marker}")
        status, reason = _decided(host.db, number)
        log = _status(host.db, number)[1]
    finally:
        kill_all(f"sleep {marker}")
        stop_host(host)
    assert status == "refused" and "disabled" in reason, (status, reason)
    assert "validating" not in log, "its code ran"
    with Store(host.db) as store, Ledger(host.db) as ledger:
        assert store.versions("mallorys-bot", withdrawn=True) == [] and ledger.owner("mallorys-bot") is None


def test_a_disabled_account_is_not_given_a_name_once_its_bot_was_tested(tmp_path: Path) -> None:
    """The account may be disabled while its bot plays its smoke matches: claiming the bot's
    name for it is refused then too."""
    db = tmp_path / "arena.db"
    Store(db).close()
    with Ledger(db) as ledger:
        ledger.add_account("mallory", actor="operator")
        ledger.disable_account("mallory", actor="operator")
        with pytest.raises(LedgerError, match="disabled"):
            ledger.claim("mallorys-bot", "mallory")
        assert ledger.owner("mallorys-bot") is None


def test_one_author_cannot_make_the_public_front_page_megabytes_long(host: Host) -> None:
    """A manifest's description had no length limit, and the front page lists every bot's: a
    4 KB archive with a 4 MB description was accepted and made ``/`` 4 MB for every visitor.
    Such a manifest is refused now, with the limit, and the front page stays small."""
    huge = "A" * (4 * 1024 * 1024)
    manifest = (f'name = "megapage"\nversion = "1.0.0"\ndescription = "{huge}"\nvariants = ["scat"]\n'
                'entry = "bot.py"\n').encode()
    archive = tar_gz({"bot.toml": manifest, "bot.py": RANDOM_BOT})
    assert len(archive) < 64 * 1024
    with host.client(account(host.db, "mallory")) as client:
        state = wait_final(client, submit_bytes(client, archive))
    assert state["status"] == "refused" and "at most 1,000" in state["reason"], state
    with host.client() as visitor:
        front = visitor.get("/")
    assert front.status_code == 200 and len(front.content) < 64 * 1024


def test_the_per_address_limits_count_an_ipv6_network_not_each_of_its_addresses(tmp_path: Path) -> None:
    """An IPv6 client is given a whole /64 and may send from any of its addresses: counted
    one by one, each was a fresh quota (sign-ups, submissions, failed tokens).  With a limit
    of 2 sign-ups a day, three from one /64 all succeeded; the third is refused now, while
    another network and an IPv4 address written in IPv6 count apart."""
    host = fresh_host(tmp_path, *BEHIND_A_PROXY, "--signup", "--per-address-day", "2")
    try:
        with host.client() as client:
            nonce = form_nonce(client, "/signup")

            def sign_up(name: str, address: str) -> int:
                return client.post("/signup", data={"nonce": nonce, "name": name},
                                   headers={"x-forwarded-for": address}).status_code

            made = [sign_up(f"sock{i}", f"2001:db8:1:2::{i + 1:x}") for i in range(3)]
            elsewhere = sign_up("neighbour", "2001:db8:1:3::1")
            mapped = [sign_up(f"four{i}", address) for i, address in enumerate(["192.0.2.7", "::ffff:192.0.2.7",
                                                                                  "192.0.2.7"])]
    finally:
        stop_host(host)
    assert made == [200, 200, 400], made
    assert elsewhere == 200
    assert mapped == [200, 200, 400], mapped
