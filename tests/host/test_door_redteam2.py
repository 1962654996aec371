"""Red-team attacks on the host's door, second round (after test_door_redteam.py).

Each test is one attack by an author (or a stranger) who has read the source, against a
real ``arena host`` over loopback.  Each fails until the weakness its docstring names is
fixed: "Found (severity, kind): what the attacker does, what happened, what a fix would be".
"""

from __future__ import annotations

import contextlib
import io
import re
import resource
import select
import socket
import subprocess
import tarfile
import threading
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import httpx
import pytest
from hosttools import BOTS, REPO, Host, account, arena_command, start_host, wait_final

from arena.tournament.store import Store

RANDOM_BOT: Final = (BOTS / "random" / "bot.py").read_bytes()
MiB: Final = 1024 * 1024


# -- helpers ----------------------------------------------------------------------------


def _started(tmp_path: Path, *args: object) -> Host:
    db = tmp_path / "arena.db"
    Store(db).close()
    return start_host(db, *args)


def _stop(host: Host) -> None:
    if host.process.poll() is None:
        host.stop()


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    running = _started(tmp_path)
    yield running
    _stop(running)


def _tar(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _manifest(name: str, version: str = "1.0.0") -> bytes:
    return (f'name = "{name}"\nversion = "{version}"\nauthor = "x"\ndescription = "x"\nvariants = ["scat"]\n'
            'entry = "bot.py"\n').encode()


def _submit(client: httpx.Client, data: bytes, **params: str) -> int:
    answer = client.post("/api/submissions", content=data, params=params)
    assert answer.status_code == 202, answer.text
    return int(answer.json()["id"])


def _address(host: Host) -> tuple[str, int]:
    found = re.fullmatch(r"http://([^:/]+):(\d+)", host.url)
    assert found is not None, host.url
    return found.group(1), int(found.group(2))


def _status_kib(pid: int, field: str) -> int:
    """A field of /proc/PID/status in KiB (VmRSS, VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def _answer(sock: socket.socket) -> int:
    """The status code of the HTTP/1.1 answer on ``sock``."""
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    found = re.match(rb"HTTP/1\.1 (\d{3})", data)
    return int(found.group(1)) if found else 0


# == the attacks ========================================================================


def test_one_account_past_its_daily_limit_cannot_make_the_host_hold_hundreds_of_mib_of_uploads(
        tmp_path: Path) -> None:
    """Found (high, memory): an upload's body is read whole into the host's memory
    (``read_body`` in arena/host/bodies.py, 8 MiB a request, 16 MiB for the browser form)
    *before* the door looks at the account's daily limit (``ledger.enqueue``, called from
    ``_Door._enqueue`` in arena/host/app.py), and nothing bounds how many uploads one
    account has in flight.  So any account, even one that has used its day's submissions
    (with ``--signup``: anyone), opens 40 connections, sends each 8 MiB less one byte, and
    the host holds 320 MiB at once for as long as ``--upload-seconds`` allows (120 s), then
    again; all 40 answered 429 only once whole.  Here the host's peak memory grew by
    520 to 550 MiB (the body's chunks and their join), against the 16 MiB of the two
    uploads a bound would let in.  Fix: the day's limits are looked at before the
    body is read (``Ledger.check_quota``), an account may have 2 uploads in flight and an
    address 24 (``arena/host/inflight.py``); past either the answer is 429 with
    ``Connection: close`` and the body is never read."""
    host = _started(tmp_path, "--per-account-day", "1")
    connections: list[socket.socket] = []
    try:
        token = account(host.db, "mallory")
        with host.client(token) as client:
            _submit(client, b"not an archive: it uses the day's one submission")
            assert client.post("/api/submissions", content=b"x").status_code == 429  # the limit is reached
        baseline = _status_kib(host.process.pid, "VmRSS")
        name, port = _address(host)
        size = 8 * MiB
        body = b"\0" * (size - 1)
        for _ in range(40):
            sock = socket.create_connection((name, port), timeout=120)
            sock.sendall(f"POST /api/submissions HTTP/1.1\r\nHost: {name}:{port}\r\n"
                         f"Authorization: Bearer {token}\r\nContent-Length: {size}\r\n"
                         "Content-Type: application/octet-stream\r\n\r\n".encode())
            connections.append(sock)
        # a host that answers before reading is not sent the bodies (it would not read them)
        waiting, answered = list(connections), set()
        while waiting and (ready := select.select(waiting, [], [], 30)[0]):
            answered.update(ready)
            waiting = [sock for sock in waiting if sock not in answered]
        for sock in waiting:
            sock.sendall(body)
        time.sleep(1.0)  # the last bodies reach the door
        for sock in waiting:
            sock.sendall(b"\0")
        answers = [_answer(sock) for sock in connections]
        peak = _status_kib(host.process.pid, "VmHWM")
    finally:
        for sock in connections:
            sock.close()
        _stop(host)
    grown_mib = (peak - baseline) / 1024
    assert grown_mib < 96, (f"one account past its daily limit made the host's memory grow by {grown_mib:.0f} MiB "
                            f"with 40 uploads in flight; they were answered {sorted(set(answers))}")


def test_versions_that_read_the_same_are_not_two_programs(host: Host) -> None:
    """Found (low, integrity of the results): "a version names one program"
    (``_check_new_version`` in arena/tournament/submit.py) compares version strings
    exactly, and a manifest's ``version`` may hold any character but controls and bidi
    marks (``_validate`` in arena/botspec.py, ``has_controls`` in arena/text.py): a
    zero-width space (U+200B), word joiner (U+2060), soft hyphen or BOM passes.  So an
    author registers ``1.0.0`` (the code they show) and then different code as
    ``1.0.0`` + U+200B: both accepted, both shown as ``NAME@1.0.0`` on the bot's page,
    the rankings, the match pages and a pinned tournament's line-up, so nobody reading
    them can tell which program played.  Fix: a version is printable ASCII (letters,
    digits and ``.+-_~!``, as PEP 440 and SemVer write them); a registered copy keeps the
    version it has."""
    token = account(host.db, "mallory")
    first = _tar({"bot.toml": _manifest("twin"), "bot.py": RANDOM_BOT})
    second = _tar({"bot.toml": _manifest("twin", "1.0.0\u200b"), "bot.py": RANDOM_BOT + b"\n# other code\n"})
    with host.client(token) as client:
        states = [wait_final(client, _submit(client, archive)) for archive in (first, second)]
        page = client.get("/b/twin/").text
    labels = sorted(set(re.findall(r"twin@[^<\s]*", page)))
    with Store(host.db) as store:
        versions = [str(v.manifest["version"]) for v in store.versions("twin", withdrawn=True)]

    def shown(version: str) -> str:
        return "".join(c for c in unicodedata.normalize("NFKC", version) if unicodedata.category(c) != "Cf")

    assert not (len(versions) == 2 and shown(versions[0]) == shown(versions[1])), (
        f"two programs registered as versions that read the same: {versions!r} (submissions "
        f"{[s['status'] for s in states]}; the bot's page shows them as "
        f"{labels!r})")


def _host_with_files(tmp_path: Path, files: int) -> Host:
    """``start_host`` with the process's open-file limit at ``files`` (as systemd's default
    soft limit, 1024, for a unit that sets no ``LimitNOFILE``: the unit in docs/HOSTING.md)."""
    db = tmp_path / "arena.db"
    Store(db).close()
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, hard))

    with (tmp_path / "host.err").open("w") as errors:
        process = subprocess.Popen(arena_command("host", "--db", db, "--port", 0), stdout=subprocess.PIPE,
                                   stderr=errors, text=True, cwd=REPO, start_new_session=True, preexec_fn=limited)
    assert process.stdout is not None
    found = re.search(r"http://\S+", process.stdout.readline())
    if found is None:
        process.kill()
        raise AssertionError("arena host did not start")
    return Host(found.group().rstrip("/"), process, db)


def test_one_stranger_trickling_form_bodies_cannot_take_the_host_down(tmp_path: Path) -> None:
    """Found (high, availability, no account needed): the sign-in form's body may take
    ``--upload-seconds`` (120 s) to arrive, a connection is dropped only after 60 s of
    silence, and nothing bounds how many connections or requests in flight one address
    has.  A stranger opens ~1,100 connections from one address, each a ``POST /login``
    that declares a 1,000-byte body and sends a byte every 2 s: each holds one of the
    host's file descriptors, and at the process's open-file limit (systemd's default soft
    limit is 1024; the unit in docs/HOSTING.md sets no ``LimitNOFILE``) the host accepts no
    connection, and the queue's idle poll (``Queue._claim`` in arena/host/queue.py, every
    2 s) cannot open the database: its StoreError leaves ``Queue.run``, cancels the
    server's nursery (``serve_app`` in arena/web/app.py) and the whole host exits with
    status 1, its ladder and validator with it.  Again after every restart.  Fix: an
    address may send 32 small forms at once, each within 10 s (``arena/host/inflight.py``;
    past that, 429 with ``Connection: close``); the host raises its soft open-file limit
    to the hard one; and the queue logs a step the machine refuses (no file descriptor,
    the database out of reach) and tries it again instead of ending the host."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 1300:
        pytest.skip(f"this test opens 1,100 connections: the open-file limit here is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1300), hard))
    host = _host_with_files(tmp_path, 1024)
    name, port = _address(host)
    held: list[socket.socket] = []
    stop = threading.Event()

    def trickle() -> None:
        while not stop.wait(2.0):
            for sock in list(held):
                with contextlib.suppress(OSError):
                    sock.send(b"a")

    trickler = threading.Thread(target=trickle, daemon=True)
    try:
        head = (f"POST /login HTTP/1.1\r\nHost: {name}:{port}\r\nContent-Type: application/x-www-form-urlencoded"
                "\r\nContent-Length: 1000\r\n\r\nt").encode()
        for _ in range(1100):
            sock = socket.create_connection((name, port), timeout=30)
            sock.sendall(head)
            held.append(sock)
        trickler.start()
        fds = Path(f"/proc/{host.process.pid}/fd")
        for _ in range(100):  # until the host has taken what it can
            if host.process.poll() is not None or len(list(fds.iterdir())) >= 1000:
                break
            time.sleep(0.1)
        time.sleep(5.0)  # the queue looks for work every 2 s
        try:
            with httpx.Client(base_url=host.url, timeout=15) as client:
                answer: int | str = client.get("/api/status.json").status_code
        except httpx.HTTPError as error:
            answer = type(error).__name__
        exited = host.process.poll()
    finally:
        stop.set()
        for sock in held:
            sock.close()
        _stop(host)
    why = "\n".join(line for line in (tmp_path / "host.err").read_text().splitlines() if "Error:" in line
                    and "EMFILE" not in line and "Too many open files" not in line)[-1500:]
    assert exited is None, (f"one stranger's {len(held)} trickled sign-in forms made the host exit with status "
                            f"{exited} (a page got {answer}):\n{why}")
    assert answer == 200, f"with one stranger's {len(held)} trickled sign-in forms open, a page got {answer}"
