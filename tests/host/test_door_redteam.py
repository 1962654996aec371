"""Red-team attacks on the host's door, found after test_door_attacks.py.

Each test is one attack by an author who has read the source, and failed before its fix.
The docstrings say what the attacker did, what happened, and what the fix does.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import httpx
import pytest
from hosttools import BOTS, REPO, Host, account, kill_all, processes_with, start_host, wait_final

from arena.host.config import HostConfig
from arena.host.ledger import Ledger
from arena.host.validate import command
from arena.tournament.store import Store

RANDOM_BOT: Final = (BOTS / "random" / "bot.py").read_bytes()
MiB: Final = 1024 * 1024


# -- helpers ----------------------------------------------------------------------------


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    running = _started(tmp_path)
    yield running
    _stop(running)


def _started(tmp_path: Path, *args: object) -> Host:
    db = tmp_path / "arena.db"
    Store(db).close()
    return start_host(db, *args)


def _stop(host: Host) -> None:
    if host.process.poll() is None:
        host.stop()


def _tar(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _manifest(name: str, version: str = "1.0.0", extra: str = 'entry = "bot.py"\n') -> bytes:
    return (f'name = "{name}"\nversion = "{version}"\nauthor = "x"\ndescription = "x"\nvariants = ["scat"]\n'
            + extra).encode()


def _submit(client: httpx.Client, data: bytes, **params: str) -> int:
    answer = client.post("/api/submissions", content=data, params=params)
    assert answer.status_code == 202, answer.text
    return int(answer.json()["id"])


def _nonce(client: httpx.Client, path: str = "/login") -> str:
    found = re.search(r'name="nonce" value="([^"]+)"', client.get(path).text)
    assert found is not None
    return found.group(1)


def _tree_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _bloat(units: int) -> bytes:
    """A Python module never imported by the bot: one list of ``units`` calls.  Its source
    is 4 bytes a call and gzips to almost nothing; its bytecode is about 17 times larger,
    and compiling it takes about 400 bytes of memory per source byte."""
    return b"x = [" + b"a()," * units + b"]\n"


# == the attacks ========================================================================


def test_bytecode_compiled_at_registration_does_not_make_a_copy_larger_than_the_registry_keeps(
        host: Host, tmp_path: Path) -> None:
    """Found (medium, disk): the registry checks a bot's size *before* it compiles its
    bytecode (arena/tournament/registry.py ``_copy``: ``check_size`` leaves ``.pyc`` out,
    "the copy compiles its own"), and ``compileall`` then compiles every ``.py`` of the
    folder, imported by the bot or not.  A module that is one long list of calls compiles
    to ~17 times its source: here 4.5 MB of source (a 9 KB upload) becomes a registered copy
    of ~75 MB, past the documented 64 MB a registered bot may hold; 64 MB of source would
    be ~1 GB per version, kept for ever, and again in every worker's bot cache
    (botcache.unpack compiles the same way).  Smoke matches never see it: the module is
    never imported.  Fix: count the compiled bytecode against the limit after compiling
    (or compile only what fits), and refuse the version past it."""
    files = {"bot.toml": _manifest("bloated"), "bot.py": RANDOM_BOT}
    files.update({f"table{i}.py": _bloat(280_000) for i in range(4)})
    archive = _tar(files)
    assert len(archive) < 64 * 1024
    with host.client(account(host.db, "mallory")) as client:
        state = wait_final(client, _submit(client, archive))
    if state["status"] == "refused":
        return
    with Store(host.db) as store:
        [version] = store.versions("bloated", withdrawn=True)
    assert version.path is not None
    kept = _tree_bytes(Path(version.path))
    assert kept <= 64 * MiB, f"the registered copy holds {kept / MiB:.0f} MiB; a bot may hold at most 64 MB"


def test_registering_a_bot_does_not_let_its_sources_take_gigabytes_of_the_hosts_memory(tmp_path: Path) -> None:
    """Found (high, availability): ``compileall`` in ``registry._copy`` runs in the
    validator itself, the host's own process, outside the sandbox and with no memory limit
    (the smoke matches only ever import the entry, under the sandbox's limits).  CPython
    takes ~500 bytes of memory per byte of a long flat expression while compiling it: the
    4 MB module here (5 KB gzipped) takes the validator past 2 GB; the 64 MB an upload may
    unpack to would take ~35 GB, and the kernel's OOM killer then picks among the host,
    its ladder and the validator.  The ladder's workers compile the same bytes again in
    their bot caches.  Fix: compile in the sandbox (or in a child with a memory limit, as
    the bots get), or do not compile modules the copy does not need, and refuse a bot
    whose bytecode cannot be made within a bound."""
    db = tmp_path / "arena.db"
    Store(db).close()
    work = tmp_path / "work"
    work.mkdir(mode=0o711)
    archive = _tar({"bot.toml": _manifest("hungry"), "bot.py": RANDOM_BOT,
                    "tables.py": b"x = [" + b"a," * (2 * MiB) + b"]\n"})
    assert len(archive) < 64 * 1024
    with Ledger(db) as ledger:
        ledger.add_account("mallory", actor="test")
        queued = ledger.enqueue("mallory", "192.0.2.1", archive, None, per_account_day=5, per_address_day=20)
        claimed = ledger.claim_next()
    assert claimed is not None and claimed.id == queued.id
    validator = subprocess.Popen(command(HostConfig(db=db, work=work), queued.id), cwd=REPO, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    _, _, usage = os.wait4(validator.pid, 0)
    validator.returncode = 0
    with Ledger(db) as ledger:
        decided = ledger.submission(queued.id)
    assert decided is not None and decided.status in ("accepted", "refused"), decided
    peak_mib = usage.ru_maxrss / 1024
    assert peak_mib < 1024, (f"the validator (the host's own process, unsandboxed) reached {peak_mib:.0f} MiB for "
                             f"a {len(archive) // 1024} KiB upload; the submission was {decided.status}")


def test_sign_ups_sent_at_once_do_not_make_more_accounts_than_the_address_may(tmp_path: Path) -> None:
    """Found (medium, rate limit): ``/signup`` counts the address's sign-ups of the last
    day (``ledger.audited``) and creates the account (``ledger.add_account``, a scrypt
    first) in two separate steps, in worker threads (arena/host/app.py ``signup``): sign-ups
    sent at the same moment all count the same old number and all succeed.  With
    ``--per-address-day 3`` one address made far more than 3 accounts in one burst; each
    account is 5 more submissions a day, a name that no bot may take (a name reading as an
    account is refused to others), and another 5 wrong secrets before a lock-out.  Fix:
    count and insert in one ``BEGIN IMMEDIATE`` transaction (as ``enqueue`` does), with
    the scrypt done before it."""
    host = _started(tmp_path, "--signup", "--per-address-day", "3")
    try:
        with host.client() as first:
            nonce = _nonce(first, "/signup")
            cookies = dict(first.cookies)
        go = threading.Barrier(12)
        answers: list[int] = []

        def sign_up(i: int) -> None:
            with httpx.Client(base_url=host.url, cookies=cookies, timeout=120) as client:
                go.wait()
                answers.append(client.post("/signup", data={"nonce": nonce, "name": f"sock{i}"}).status_code)

        threads = [threading.Thread(target=sign_up, args=(i,)) for i in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        _stop(host)
    with Ledger(host.db) as ledger:
        made = [a.name for a in ledger.accounts()]
    assert len(made) <= 3, f"one address made {len(made)} accounts with a limit of 3 a day: {sorted(made)} {answers}"


def _decided(db: Path, number: int, polls: int = 2400) -> tuple[str, str]:
    """(status, reason) of a submission once accepted or refused, read from the ledger."""
    for _ in range(polls):
        with Ledger(db) as ledger:
            found = ledger.submission(number)
        assert found is not None
        if found.status in ("accepted", "refused"):
            return found.status, found.reason or ""
        time.sleep(0.25)
    raise AssertionError(f"submission {number} was not decided: {found}")


def _wait_for_process(text: str) -> None:
    for _ in range(2400):
        if processes_with(text):
            return
        time.sleep(0.25)
    raise AssertionError(f"no process {text!r} started")


def test_a_bot_the_operator_disables_is_not_brought_back_by_a_version_already_in_validation(
        tmp_path: Path) -> None:
    """Found (high): ``arena accounts disable-bot`` withdraws every version and entry of a
    bot and closes its name, but a version of it already past the validator's first checks
    is registered and entered anyway: ``_refusal`` (arena/host/validate.py) looks at
    ``ledger.bot_disabled`` only before ``submit``, and ``ledger.claim`` afterwards checks
    the account, not the bot.  So the author of a bot the operator takes off the ladder for
    misbehaving gets it back, entered again, by keeping a new version in validation (a
    build that sleeps holds one there for up to --validate-seconds, 900 s by default).
    Fix: check the bot's disabled mark again in the transaction that claims the name (and
    withdraw what ``submit`` registered, as is done for a disabled account)."""
    cup = tmp_path / "club.toml"
    cup.write_text('name = "club"\nopen = true\n[[variant]]\nname = "scat"\ntables = [2]\n', encoding="utf-8")
    host = _started(tmp_path, "--tournament", cup)
    marker = f"{4000 + os.getpid() % 1000}.{os.getpid() % 7}"  # a command line no other process has
    try:
        with host.client(account(host.db, "mallory")) as client:
            first = _submit(client, _tar({"bot.toml": _manifest("wrecker"), "bot.py": RANDOM_BOT}), tournament="club")
            assert wait_final(client, first)["status"] == "accepted"
            second = _submit(client, _tar({"bot.toml": _manifest("wrecker", "2.0.0", 'entry = "bot.py"\nbuild = '
                                                                 '["sh", "hold.sh"]\n'),
                                           "bot.py": RANDOM_BOT, "hold.sh": f"sleep {marker}\nexit 0\n".encode()}),
                             tournament="club")
        _wait_for_process(f"sleep {marker}")
        done = subprocess.run([*_arena(), "accounts", "disable-bot", "wrecker", "--db", str(host.db)],
                              capture_output=True, text=True, cwd=REPO, timeout=120)
        assert done.returncode == 0, done.stderr
        with Store(host.db) as store:
            assert store.latest("wrecker") is None and "wrecker" not in store.entries("club")
        kill_all(f"sleep {marker}")
        status, reason = _decided(host.db, second)
    finally:
        kill_all(f"sleep {marker}")
        _stop(host)
    with Store(host.db) as store:
        active = store.latest("wrecker")
        entered = store.entries("club")
    assert active is None and "wrecker" not in entered, (
        f"the disabled bot is back: {active.label if active else None} active, entries {entered}; the submission "
        f"was {status} {reason}")


def _arena() -> list[str]:
    return [sys.executable, "-m", "arena.cli"]


def test_a_refusals_reason_is_bounded_as_its_log_is(host: Host) -> None:
    """Found (high, memory and disk): a submission's log keeps its last 64 KiB, but its
    ``reason`` is stored whole (``ledger.set_status``), in the submissions table *and* in
    the audit log's detail, and a reason quotes what the upload says: a manifest's name
    that is not a name (``check_name``: ``name {name!r} must be ...``), unknown keys, a
    build command.  A bot.toml whose name is 20 MB of one letter gzips to 20 KB and is
    refused with a 20 MB reason: 40 MB of database per upload (a 1,000-fold gain, up to
    ~128 MB each with the 64 MB an upload may unpack to), and every ``/api/submissions``,
    ``/api/submissions/N``, ``/my/`` or ``/my/s/N/`` of the author makes the host's own
    process read and encode them again (the list, 100 of them at once).  Fix: cap the
    reason where it is stored (as the log is, and for the audit's detail), and shorten
    quoted manifest values in ManifestError messages."""
    huge = "A" * (20 * MiB)
    archive = _tar({"bot.toml": f'name = "{huge}"\nversion = "1"\nentry = "bot.py"\n'.encode(), "bot.py": RANDOM_BOT})
    assert len(archive) < 128 * 1024
    with host.client(account(host.db, "mallory")) as client:
        number = _submit(client, archive)
        state = wait_final(client, number)
        listed = client.get("/api/submissions")
    assert state["status"] == "refused"
    with Ledger(host.db) as ledger:
        detail = max(len(entry.detail) for entry in ledger.audit())
    assert len(str(state["reason"])) <= 64 * 1024 and detail <= 64 * 1024, (
        f"a {len(archive) // 1024} KiB upload was refused with a reason of {len(str(state['reason'])) / MiB:.0f} MiB "
        f"(audit detail {detail / MiB:.0f} MiB; the list of submissions is {len(listed.content) / MiB:.0f} MiB)")



def test_wrong_tokens_sent_at_once_are_not_checked_past_the_addresss_limit(host: Host) -> None:
    """Found (low, rate limit and memory): "20 failed token checks from one address
    within 10 minutes" is enforced by ``Guard.blocked`` *before* the scrypt, and the
    failure counted only *after* it (arena/host/guard.py ``account``), in worker threads:
    every wrong token that arrives while the first 20 are still being hashed is hashed too.
    One burst of 80 from one address got about twice the limit checked (each a 16 MiB
    scrypt at once: ~0.6 GiB of the host's memory in one moment), and each wrong secret
    for a known token id counts toward its account's lock-out as well.  Fix: count the
    attempt (reserve the slot) under the guard's lock before hashing, and release it
    only for a token that turned out right."""
    go = threading.Barrier(80)
    answers: list[int] = []

    def guess(i: int) -> None:
        with httpx.Client(base_url=host.url, timeout=300,
                          headers={"authorization": f"Bearer a31_{i:016x}_{'x' * 43}"}) as client:
            go.wait()
            answers.append(client.get("/api/me").status_code)

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(80)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    checked = answers.count(401)
    assert checked <= 20, f"{checked} wrong tokens were checked from one address (limit 20); answers {sorted(answers)}"


def test_sign_ins_sent_at_once_do_not_open_more_sessions_than_an_hour_allows(host: Host) -> None:
    """Found (low, rate limit; the same race as the sign-ups above): ``/login`` counted the
    account's sign-ins of the last hour (``ledger.audited``) and opened the session
    (``ledger.open_session``) in two separate steps, in worker threads: sign-ins sent at
    the same moment all counted the same old number.  A burst of 60 with one good token
    opened more than the 20 sessions an hour allows, each an audit entry and a session row.
    Fix: count and open in one ``BEGIN IMMEDIATE`` transaction."""
    token = account(host.db, "alice")
    with host.client() as first:
        nonce = _nonce(first)
    go = threading.Barrier(60)
    answers: list[int] = []

    def sign_in() -> None:
        with httpx.Client(base_url=host.url, cookies={"arena_login": nonce}, timeout=300) as client:
            go.wait()
            answers.append(client.post("/login", data={"nonce": nonce, "token": token}).status_code)

    threads = [threading.Thread(target=sign_in) for _ in range(60)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with Ledger(host.db) as ledger:
        opened = sum(1 for entry in ledger.audit(limit=10_000) if entry.action == "sign in")
    assert opened <= 20, f"one account signed in {opened} times in an hour (limit 20); answers {sorted(answers)}"
    assert answers.count(303) == opened and answers.count(429) == 60 - opened, sorted(answers)


def test_behind_tls_a_cookie_planted_by_a_sibling_subdomain_does_not_sign_anyone_in(tmp_path: Path) -> None:
    """Found (low, session fixation on a shared domain): behind a TLS proxy (``--tls``) the
    login nonce and the session were plain cookies, ``arena_login`` and ``arena_session``.
    SameSite does not stop a site on a sibling subdomain (``evil.example.org`` beside
    ``arena.example.org``): it may set cookies for the whole domain, so it could plant a
    login nonce of its choosing and post the form that signs a victim's browser in to the
    attacker's account (the victim then uploads into it), or plant a session.  Fix: behind
    TLS both carry the ``__Host-`` prefix, which a browser accepts only from the very host,
    over https, with ``Path=/`` and no ``Domain``; a plain cookie of the old name is ignored."""
    host = _started(tmp_path, "--tls")
    try:
        token = account(host.db, "mallory")
        with httpx.Client(base_url=host.url, timeout=120) as client:
            form = client.get("/login")
            set_cookie = form.headers.get_list("set-cookie")
            assert len(set_cookie) == 1 and set_cookie[0].startswith("__Host-arena_login="), set_cookie
            assert "secure" in set_cookie[0].lower() and "domain" not in set_cookie[0].lower(), set_cookie
            assert "path=/" in set_cookie[0].lower(), set_cookie
            planted = client.post("/login", data={"nonce": "chosen", "token": token},
                                  headers={"cookie": "arena_login=chosen"})
            assert planted.status_code == 403, (planted.status_code, planted.headers.get_list("set-cookie"))
            nonce = _nonce(client)
            signed = client.post("/login", data={"nonce": nonce, "token": token},
                                 headers={"cookie": f"__Host-arena_login={nonce}"})
            assert signed.status_code == 303, signed.text
            cookies = signed.headers.get_list("set-cookie")
            session = next(c for c in cookies if c.startswith("__Host-arena_session="))
            value = session.split(";")[0].split("=", 1)[1]
            assert "secure" in session.lower(), cookies
            mine = client.get("/my/", headers={"cookie": f"__Host-arena_session={value}"})
            assert mine.status_code == 200 and "mallory" in mine.text
            assert client.get("/my/", headers={"cookie": f"arena_session={value}"}).status_code == 303
    finally:
        _stop(host)


@pytest.mark.parametrize("http2", [False, True], ids=["http1.1", "http2"])
def test_headers_past_16_kib_are_refused_over_either_protocol(host: Host, http2: bool) -> None:
    """Found (low, memory): the host meant to bound a request's headers at 16 KiB
    (``h11_max_incomplete_size``), but that bound holds only for headers that arrive in
    pieces: 40 KB sent at once were read and handled over HTTP/1.1, and over HTTP/2
    (cleartext with prior knowledge, which the server speaks too) up to 64 KiB a stream,
    100 streams a connection.  Fix: 431 past 16 KiB whatever the protocol, and HTTP/2's
    own header list bounded at 16 KiB."""
    headers = {f"x-pad-{i}": "y" * 1000 for i in range(40)}
    with httpx.Client(base_url=host.url, http1=not http2, http2=http2, timeout=120) as client:
        assert client.get("/api/me").status_code == 401  # the protocol itself works
        try:
            answer: int | str = client.get("/api/me", headers=headers).status_code
        except httpx.HTTPError as error:  # the connection is reset or the stream refused
            answer = type(error).__name__
    assert answer not in (200, 401), f"40 KB of headers over {'HTTP/2' if http2 else 'HTTP/1.1'}: {answer}"
