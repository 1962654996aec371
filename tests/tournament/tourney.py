"""Helpers for the tournament tests: real bot folders, tournament files, the ``arena``
command as a subprocess, the stored results, and the processes a run leaves behind.

Everything a test writes lives in a folder every user can enter (:func:`scratch`):
sandboxed bots run as unprivileged users and must reach the registry copies kept beside
the database, and pytest's ``tmp_path`` is private to root.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
REFEREE_BOTS = REPO / "tests" / "referee" / "bots"
SANDBOX_BOTS = REPO / "tests" / "sandbox" / "bots"
TEST_BOTS = Path(__file__).resolve().parent / "bots"
COMMAND_TIMEOUT_S = 240
"""A command that has not finished by then hangs (the test fails instead of waiting)."""

Outcome = tuple[tuple[str, int], ...]
"""(bot, placement) per seat of a stored match."""


def scratch() -> Iterator[Path]:
    """A fresh folder every user can enter, removed afterwards (registry copies included)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-tournament-test-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for root, dirs, _ in os.walk(folder):
            for name in dirs:
                os.chmod(Path(root, name), 0o755)
        shutil.rmtree(folder, ignore_errors=True)


def copy_bot(source: Path, target: Path, *, name: str | None = None, variants: Sequence[str] | None = None) -> Path:
    """A copy of the bot folder ``source`` at ``target``, renamed or claiming other variants.

    Tests play copies, so a concurrent edit of a bundled bot cannot change their results."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = target / "bot.toml"
    text = manifest.read_text(encoding="utf-8")
    if name is not None:
        text = re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', text)
    if variants is not None:
        listed = ", ".join(f'"{v}"' for v in variants)
        text = re.sub(r"(?m)^variants = \[.*\]$", f"variants = [{listed}]", text)
    manifest.write_text(text, encoding="utf-8")
    return target


def tournament_file(
    folder: Path,
    name: str,
    entrants: Sequence[Path | str],
    variants: Sequence[tuple[str, Sequence[int]]] = (("scat", (2,)),),
    *,
    deals: int = 1,
    move_ms: int = 2000,
    bank_ms: int = 2000,
    first_move_ms: int = 5000,
    extra: str = "",
) -> Path:
    """Write ``folder/name.toml`` and return its path (entrants by absolute path or name)."""
    lines = [
        f'name = "{name}"',
        "entrants = [" + ", ".join(f'"{e}"' for e in entrants) + "]",
        f"deals = {deals}",
        extra,
        "[time]",
        f"move_ms = {move_ms}",
        f"bank_ms = {bank_ms}",
        f"first_move_ms = {first_move_ms}",
        "startup_ms = 20000",
    ]
    for variant, tables in variants:
        lines += ["[[variant]]", f'name = "{variant}"', f"tables = [{', '.join(map(str, tables))}]"]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _command(args: Sequence[str | Path]) -> list[str]:
    return [sys.executable, "-m", "arena.cli", *map(str, args)]


def _environment(extra: dict[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_DB"}
    env["COLUMNS"] = "200"  # one-line messages, whatever the terminal
    return {**env, **(extra or {})}


def arena(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``arena ARGS`` to the end; its status, stdout and stderr."""
    return subprocess.run(_command(args), capture_output=True, text=True, cwd=REPO, env=_environment(env),
                          timeout=COMMAND_TIMEOUT_S, check=False)


def start_arena(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start ``arena ARGS`` in the background, in its own process group as a terminal's
    foreground job is (stdout and stderr piped)."""
    return subprocess.Popen(_command(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            env=_environment(env), start_new_session=True)


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    """Wait for a started command: its status, stdout and stderr."""
    out, err = process.communicate(timeout=COMMAND_TIMEOUT_S)
    return process.returncode, out, err


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = COMMAND_TIMEOUT_S) -> None:
    """Poll ``condition`` until it holds; fail the test (rather than hang) if it never does."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def query(db: Path, sql: str, *parameters: object) -> list[tuple[Any, ...]]:
    """Rows of a read-only query of ``db`` (its connection closed afterwards)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as connection:
        return list(connection.execute(sql, parameters))


def stored_count(db: Path, tournament: str) -> int:
    """Matches of ``tournament`` stored in ``db`` (0 while the database does not exist)."""
    if not db.exists():
        return 0
    try:
        return int(query(db, "SELECT COUNT(*) FROM matches WHERE tournament = ?", tournament)[0][0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def outcomes(db: Path, tournament: str) -> dict[str, Outcome]:
    """Match id -> (bot, placement) per seat, for every stored match of ``tournament``."""
    found: dict[str, list[tuple[str, int]]] = {}
    for match, bot, placement in query(
        db, "SELECT s.match, v.bot, s.placement FROM seats s JOIN matches m ON m.id = s.match"
        " JOIN versions v ON v.id = s.version WHERE m.tournament = ? ORDER BY s.match, s.seat", tournament,
    ):
        found.setdefault(match, []).append((bot, placement))
    return {match: tuple(seats) for match, seats in found.items()}


def table_rows(db: Path, table: str) -> list[tuple[Any, ...]]:
    """Every row of a table of ``db`` (none if it has no such table)."""
    try:
        return query(db, f"SELECT * FROM {table} ORDER BY 1")
    except sqlite3.OperationalError:
        return []


# -- processes ------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of a process, None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(errors="replace")
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1]), int(fields[19])


def descendants(pid: int) -> set[tuple[int, int]]:
    """(pid, start time) of every live descendant of ``pid``."""
    parents: dict[int, list[tuple[int, int]]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None and stat[0] not in "ZX":
            parents.setdefault(stat[1], []).append((int(entry), stat[2]))
    found: set[tuple[int, int]] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.add(child)
            todo.append(child[0])
    return found


def alive(processes: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Those of ``processes`` (pid, start time) still running (not zombies, not reused pids)."""
    left = set()
    for pid, started in processes:
        stat = _stat(pid)
        if stat is not None and stat[0] not in "ZX" and stat[2] == started:
            left.add((pid, started))
    return left


def processes_mentioning(marker: str) -> list[str]:
    """Command lines of live processes that mention ``marker`` (a registry folder)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        stat = _stat(int(entry))
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if stat is not None and stat[0] not in "ZX" and marker in cmdline:
            found.append(f"{entry}: {cmdline[:200]}")
    return found


def no_bots_left(folder: Path, grace_s: float = 15) -> None:
    """Fail unless, after a grace period, no process mentions ``folder``'s registry."""
    marker = str(folder / "registry")
    deadline = time.monotonic() + grace_s
    while (left := processes_mentioning(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"bot processes left behind: {left}"


def no_processes_left(processes: set[tuple[int, int]], grace_s: float = 15) -> None:
    """Fail unless, after a grace period, none of ``processes`` runs any more."""
    deadline = time.monotonic() + grace_s
    while (left := alive(processes)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes of the run left behind: {sorted(left)}"


def ctrl_c(process: subprocess.Popen[str]) -> None:
    """What Ctrl+C does to a started command: SIGINT to its whole process group."""
    os.killpg(process.pid, signal.SIGINT)


def kill(process: subprocess.Popen[str]) -> None:
    """SIGKILL the command's own process (not its children), as the OOM killer or `kill -9` would."""
    os.kill(process.pid, signal.SIGKILL)
