"""The host's ladder with a population: 30 bots of 10 accounts entered through the door,
some faulting, some replaced while it runs, the host killed with kill -9 and started again.

One real ``arena host --ladder`` (a referee worker of its own), real uploads over HTTP,
real validation and real matches; then every stored table is checked.
"""

from __future__ import annotations

import re
import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hosttools import BOTS, Host, account, bot_folder, start_host, wait_final

from arena.host.archive import pack
from arena.host.ledger import Ledger
from arena.tournament.store import Store

ACCOUNTS = 10
BOTS_EACH = 3
FAULTY = ("a1-b0", "a2-b0", "a0-b0")
"""Bots that crash at every table of more than two (their smoke test, at two, passes)."""
CRASH_AT_THREE = (BOTS / "random" / "bot.py").read_text(encoding="utf-8").replace(
    "def match_start(match: MatchInfo) -> None:\n",
    "def match_start(match: MatchInfo) -> None:\n    if match.players > 2:\n        import os\n        os._exit(3)\n")
LIMITS = ("--per-account-day", "20", "--per-address-day", "200")


def wait_for(condition: Callable[[], bool], what: str, host: Host, polls: int = 3000) -> None:
    """Poll ``condition`` (a busy machine takes its time: no clock decides)."""
    for _ in range(polls):
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} never happened; the host said:\n{host.stderr()[-3000:]}")


def query(db: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(sql, args).fetchall()


def played(db: Path, bot: str, version: str, faulted: bool = False) -> int:
    """Ladder matches stored with ``bot`` at ``version`` (those it faulted in: ``faulted``)."""
    return int(query(db, "SELECT COUNT(*) FROM seats s JOIN versions v ON v.id = s.version JOIN matches m "
                         "ON m.id = s.match WHERE m.tournament = 'ladder' AND v.bot = ? "
                         "AND json_extract(v.manifest, '$.version') = ? AND s.faults >= ?", bot, version,
                     1 if faulted else 0)[0][0])


def enter(host: Host, tokens: dict[str, str], folders: list[tuple[str, Path]]) -> None:
    """Upload each ``(account, folder)`` and wait until every one is accepted."""
    numbers = []
    for owner, folder in folders:
        with host.client(tokens[owner]) as client:
            answer = client.post("/api/submissions", content=pack(folder))
            assert answer.status_code == 202, answer.text
            numbers.append((owner, answer.json()["id"]))
    for owner, number in numbers:
        with host.client(tokens[owner]) as client:
            state = wait_final(client, number)
            assert state["status"] == "accepted", state


@pytest.mark.long(200)
def test_thirty_bots_of_ten_accounts_faulting_replaced_and_killed_keep_a_fair_ladder(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store(db).close()
    ladder = tmp_path / "ladder.toml"
    ladder.write_text('name = "ladder"\nmode = "ladder"\nopen = true\nworkers = 1\n[time]\nmove_ms = 5000\n'
                      'startup_ms = 20000\n[pause]\nfaulted = 2\nof = 6\n[[variant]]\nname = "scat"\n'
                      'tables = [2, 3]\noptions = { lives = 1 }\n', encoding="utf-8")
    tokens = {f"a{i}": account(db, f"a{i}") for i in range(ACCOUNTS)}
    host = start_host(db, "--ladder", ladder, *LIMITS)
    try:
        enter(host, tokens, [(f"a{i}", bot_folder(tmp_path / "v1", f"a{i}-b{j}",
                                                  body=CRASH_AT_THREE if f"a{i}-b{j}" in FAULTY else None))
                             for j in range(BOTS_EACH) for i in range(ACCOUNTS)])
        # the faulting bots fault at tables of three until the ladder pauses them
        # (two faults, not two matches: which tables a bot is seated at first depends on which
        # matches end first, and at tables of two these play without fault)
        wait_for(lambda: all(played(db, bot, "1.0.0", faulted=True) >= 2 for bot in FAULTY),
                 "every faulting bot's two faults", host)
        # replaced: a faulting bot with a sound version, and a sound bot with another
        enter(host, tokens, [("a0", bot_folder(tmp_path / "v2", "a0-b0", "2.0.0")),
                             ("a3", bot_folder(tmp_path / "v2", "a3-b1", "2.0.0"))])
        wait_for(lambda: played(db, "a0-b0", "2.0.0") >= 1 and played(db, "a3-b1", "2.0.0") >= 1,
                 "the new versions' first matches", host)
        replaced = {bot: played(db, bot, "1.0.0") for bot in ("a0-b0", "a3-b1")}
        host.process.send_signal(signal.SIGKILL)
        host.process.wait()
        killed_at = len(query(db, "SELECT id FROM matches WHERE tournament = 'ladder'"))
        host = start_host(db, "--ladder", ladder, *LIMITS)
        wait_for(lambda: len(query(db, "SELECT id FROM matches WHERE tournament = 'ladder'")) >= killed_at + 12,
                 "a dozen matches after the restart", host)
        with Ledger(db) as ledger:
            session, _ = ledger.open_session("a1")
        with host.client() as author:
            author.cookies.set("arena_session", session)
            mine = author.get("/my/").text
        assert "paused on the ladder" in mine and "faulted in" in mine, "the author is told why the bot sits out"
    finally:
        host.stop()

    owner = {str(bot): str(name) for bot, name in query(db, "SELECT bot, account FROM owners")}
    tables: dict[str, list[tuple[str, str]]] = {}
    for match, bot, version in query(db, "SELECT s.match, v.bot, json_extract(v.manifest, '$.version') FROM seats s "
                                         "JOIN versions v "
                                         "ON v.id = s.version JOIN matches m ON m.id = s.match "
                                         "WHERE m.tournament = 'ladder'"):
        tables.setdefault(str(match), []).append((str(bot), str(version)))
    assert len(tables) >= killed_at + 12
    for match, seats in tables.items():
        accounts = [owner[bot] for bot, _ in seats]
        assert len(set(accounts)) == len(accounts), f"{match} seats two bots of one account: {seats}"
    deals = [re.search(r"-(\d+)p-d(\d+)r(\d+)$", match).groups() for match in tables]  # type: ignore[union-attr]
    assert len(set(deals)) == len(deals), "a deal's rotation was stored twice"
    assert {bot: played(db, bot, "1.0.0") for bot in replaced} == replaced, "a replaced version played on"
    assert played(db, "a0-b0", "2.0.0") >= 1, "the faulting bot's new version plays again"
    seated = {bot for seats in tables.values() for bot, _ in seats}
    assert len(seated) == ACCOUNTS * BOTS_EACH, f"bots never seated: {sorted(set(owner) - seated)}"
