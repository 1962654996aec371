"""``arena serve`` as a client without a browser sees it: its headers, what it refuses to
serve, that it never writes the database, and its errors."""

from __future__ import annotations

import hashlib
import signal
import socket
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from webtools import PAYLOADS, STDERR_PAYLOAD, Server, WebData, arena, start_server, stop_server

SECRETS = (b"[project]", b"root:x:", b"{% extends", b"import sqlite3", b"from starlette", b"CREATE TABLE")
"""What a file outside the pages would show: pyproject.toml, /etc/passwd, a template,
the app's own source, the database."""


def test_every_response_carries_a_policy_that_allows_scripts_from_the_site_alone(server: Server) -> None:
    for path in ("/", "/t/webtest/", "/static/app.js", "/api/status.json", "/no/such/page"):
        _, headers, _ = server.get(path)
        policy = headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy, path
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy and "http" not in policy, path
        assert headers["x-content-type-options"] == "nosniff", path


@pytest.mark.parametrize("path", [
    "/static/../pyproject.toml", "/static/%2e%2e/%2e%2e/%2e%2e/pyproject.toml", "/static/..%2f..%2f..%2fpyproject.toml",
    "/static/%2fetc%2fpasswd", "/static//etc/passwd", "/../../../etc/passwd", "/static/../templates/base.html",
    "/static/vendor/../../app.py", "/templates/base.html", "/app.py", "/m/..%2f..%2f..%2fetc%2fpasswd/",
    "/b/%2e%2e/", "/t/..%2f..%2farena.db/", "/arena.db", "/static/../../../../arena.db",
])
def test_nothing_outside_the_pages_and_the_static_folder_is_served(server: Server, path: str) -> None:
    status, _, body = server.get(path)
    assert status in (400, 404), (path, status)
    assert not any(secret in body for secret in SECRETS), path


def get_as(server: Server, host: str) -> str:
    """The status line of ``GET /`` with this ``Host``."""
    where = urlsplit(server.url)
    with socket.create_connection((where.hostname, where.port), timeout=10) as connection:
        connection.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        return connection.recv(4096).decode("latin-1").split("\r\n")[0]


def test_pages_are_refused_under_another_sites_name(server: Server) -> None:
    """A page of another site that makes its own name lead to this machine (DNS rebinding)
    reads nothing: a loopback server answers loopback names only."""
    port = urlsplit(server.url).port
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
        assert " 200 " in get_as(server, host), host
    for host in (f"evil.example:{port}", f"10.0.0.7:{port}", "", f"127.0.0.1.evil.example:{port}"):
        assert " 421 " in get_as(server, host), host


def test_it_answers_reads_only(server: Server) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert server.get("/", method)[0] == 405, method
    assert server.get("/", "HEAD")[0] == 200


def test_bot_text_reaches_the_html_escaped(server: Server) -> None:
    for path in ("/b/hostile/", "/b/crasher/", "/t/webtest/", "/matches/"):
        status, _, body = server.get(path)
        page = body.decode()
        assert status == 200, path
        for payload in [*PAYLOADS.values(), STDERR_PAYLOAD]:
            assert payload not in page, (path, payload)
        assert "<script>window" not in page and "<img src=x" not in page and "<svg onload" not in page, path
    _, _, body = server.get("/b/hostile/")
    assert b"&lt;script&gt;window.__pwned=&#39;author&#39;&lt;/script&gt;" in body


def test_the_status_names_every_competition_with_its_matches(server: Server, web_data: WebData) -> None:
    import json

    status, _, body = server.get("/api/status.json")
    now = json.loads(body)
    assert status == 200
    assert now["tournaments"][web_data.tournament] == "15:0" and now["tournaments"][web_data.ladder] == "14:0"


def _digest(db: Path) -> str:
    digest = hashlib.sha256()
    for part in (db, db.with_name(db.name + "-wal")):
        if part.exists():
            digest.update(part.read_bytes())
    return digest.hexdigest()


def test_the_server_never_writes_the_database_even_when_its_ratings_cache_is_stale(web_data: WebData) -> None:
    """With the cached ratings gone, every ranking is recomputed: in memory, never stored."""
    db = Path(tempfile.mkdtemp(prefix="stale-", dir=web_data.folder)) / "arena.db"
    with closing(sqlite3.connect(web_data.db)) as source, closing(sqlite3.connect(db)) as copy:
        source.backup(copy)
        copy.execute("DELETE FROM ratings")
        copy.execute("DELETE FROM rated")
        copy.commit()
    before = _digest(db)
    server = start_server(db)
    try:
        pages = ["/", "/t/webtest/", "/t/webtest/v/scat/", "/t/webtest/v/skat/", "/t/ladder/", "/b/heuristic/",
                 "/b/crasher/", "/matches/", "/api/status.json", "/m/ladder-scat-3p-0000/"]
        for path in pages:
            status, _, _ = server.get(path)
            assert status == 200, path
    finally:
        stop_server(server)
    assert _digest(db) == before
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as check:
        assert check.execute("SELECT COUNT(*) FROM rated").fetchone()[0] == 0


def test_a_service_manager_stops_the_server_as_ctrl_c_does(web_data: WebData) -> None:
    """SIGTERM (``kill``, systemd) is a stop like Ctrl+C: a clean exit, not a killed process."""
    server = start_server(web_data.db)
    assert server.get("/")[0] == 200
    stop_server(server, signal.SIGTERM)


def test_serve_names_a_missing_database(tmp_path: Path) -> None:
    result = arena("serve", "--db", tmp_path / "none.db", "--port", "0", timeout=60)
    assert result.returncode == 2 and "no results database" in result.stderr
    assert not (tmp_path / "none.db").exists()


def test_serve_says_when_its_port_is_taken(web_data: WebData) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = arena("serve", "--db", web_data.db, "--port", str(taken.getsockname()[1]), timeout=60)
    assert result.returncode == 2 and "cannot listen on 127.0.0.1" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_no_page_shows_a_path_of_the_operators_machine(server: Server, web_data: WebData) -> None:
    """Was a leak: a bot's page showed its registry copy's absolute path, and a page not
    found named the database's path, to whoever opened them (on a host, to the world)."""
    folder = str(web_data.folder.resolve()).encode()
    for path in ("/", "/b/heuristic/", "/b/hostile/", "/t/webtest/", "/t/nowhere/", "/b/nobody/", "/m/nothing/",
                 "/t/webtest/v/nowhere/", "/matches/", "/matches/?bot=nobody"):
        _, _, body = server.get(path)
        assert folder not in body, path

