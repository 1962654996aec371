"""What the host's tests share: a real ``arena host`` process on a free loopback port,
accounts made by the real ledger, and bot folders to submit."""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from arena.host.ledger import Ledger
from arena.tournament.store import Store

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"


def arena_command(*args: object) -> list[str]:
    return [sys.executable, "-m", "arena.cli", *map(str, args)]


@dataclass
class Host:
    """A running ``arena host``: its address, process and database."""

    url: str
    process: subprocess.Popen[str]
    db: Path
    args: tuple[str, ...] = ()
    lines: list[str] = field(default_factory=list)

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60, follow_redirects=False)

    def stop(self, how: signal.Signals = signal.SIGINT) -> str:
        """Stop it (as Ctrl+C by default); its stderr."""
        self.process.send_signal(how)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"arena host did not stop on {how.name}:\n{self.stderr()[-4000:]}") from None
        return self.stderr()

    def stderr(self) -> str:
        """What the host (and its validators) wrote on stderr so far."""
        return "".join(self.lines)


def _drain(process: subprocess.Popen[str], lines: list[str]) -> None:
    """Read the host's stderr as it comes: a full pipe would block its validators."""
    assert process.stderr is not None
    for line in process.stderr:
        lines.append(line)


def start_host(db: Path, *args: object, port: int = 0) -> Host:
    """``arena host --port 0`` over ``db``, once it listens."""
    process = subprocess.Popen(arena_command("host", "--db", db, "--port", port, *args), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=REPO, start_new_session=True,
                               env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://\S+", line)
    if found is None:
        process.kill()
        raise AssertionError(f"arena host did not start: {line}{process.communicate(timeout=10)[1]}")
    host = Host(found.group().rstrip("/"), process, db, tuple(map(str, args)))
    threading.Thread(target=_drain, args=(process, host.lines), daemon=True).start()
    return host


def account(db: Path, name: str, operator: bool = False) -> str:
    """A new account's token."""
    with Ledger(db) as ledger:
        return ledger.add_account(name, operator=operator, actor="test")[1]


def bot_folder(parent: Path, name: str, version: str = "1.0.0", *, body: str | None = None) -> Path:
    """A copy of the bundled random bot named ``name``, claiming scat only (quick to validate)."""
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(body or (BOTS / "random" / "bot.py").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "{version}"\nauthor = "Someone"\ndescription = "test bot"\n'
        'variants = ["scat"]\nentry = "bot.py"\n', encoding="utf-8")
    return folder


def wait_final(client: httpx.Client, number: int, polls: int = 600) -> dict[str, object]:
    """The submission once it has ended (polling: the queue takes its time on a busy machine)."""
    for _ in range(polls):
        state: dict[str, object] = client.get(f"/api/submissions/{number}").json()
        if state.get("final"):
            return state
        time.sleep(0.5)
    raise AssertionError(f"submission {number} did not end: {state}")


def processes_with(text: str) -> list[int]:
    """Processes (but this one) whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if text in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def kill_all(text: str) -> None:
    """SIGKILL every process whose command line holds ``text`` (one may end meanwhile: its
    sandbox's wrapper goes with the process it wraps)."""
    for pid in processes_with(text):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def fresh_host(tmp_path: Path, *args: object) -> Host:
    """``arena host`` with ``args`` over a new database in ``tmp_path``."""
    db = tmp_path / "arena.db"
    Store(db).close()
    return start_host(db, *args)


def stop_host(host: Host) -> None:
    """Stop ``host`` unless it has ended already."""
    if host.process.poll() is None:
        host.stop()


def tar_gz(files: dict[str, bytes]) -> bytes:
    """A .tar.gz of ``files`` (path: content), as an upload."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def manifest_bytes(name: str, version: str = "1.0.0", extra: str = 'entry = "bot.py"\n') -> bytes:
    """A bot.toml claiming scat."""
    return (f'name = "{name}"\nversion = "{version}"\nauthor = "x"\ndescription = "x"\nvariants = ["scat"]\n'
            + extra).encode()


def submit_bytes(client: httpx.Client, data: bytes, **params: str) -> int:
    """Upload ``data`` through the API; the submission's number (asserting 202)."""
    answer = client.post("/api/submissions", content=data, params=params)
    assert answer.status_code == 202, answer.text
    return int(answer.json()["id"])


def form_nonce(client: httpx.Client, path: str = "/login") -> str:
    """The nonce of the sign-in (or sign-up) form at ``path``; the client keeps its cookie."""
    found = re.search(r'name="nonce" value="([^"]+)"', client.get(path).text)
    assert found is not None
    return found.group(1)
