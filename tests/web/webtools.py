"""Helpers of the web tests: bot folders (hostile ones among them), tournament files, the
``arena`` command, a running ``arena serve``, and browser pages that record what went wrong.

The browser is Debian's Chromium at /usr/bin/chromium (``scripts/setup-browser`` installs
it; ``make`` runs that as root), driven by Playwright; without either the browser tests skip.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.botspec import BOTS_DIR
from arena.rules import get_variant, variants
from arena.tournament.logs import compress_log
from arena.tournament.store import MatchRecord, SeatRecord, Store

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = REPO / "results" / "screenshots"
TIMEOUT_S = 120

PAYLOADS = {
    "author": "<script>window.__pwned='author'</script><svg onload=\"alert('author')\"></svg>",
    "description": "</script><script>window.__pwned='description'</script><b onmouseover=alert(1)>bold</b>{{ 7 * 7 }}",
}
"""Bot-supplied manifest text (what the registry keeps of it) that would run in a page that
did not escape it; the last also tries a template expression.  (A version can hold no
markup: it is printable ASCII of letters, digits and ``.+-_~!``.)"""
STDERR_PAYLOAD = "</script><script>window.__pwned='stderr'</script><img src=x onerror=\"alert('stderr')\">"

CRASHER = f'''"""Writes markup to stderr and exits at its first decision: its fault's detail carries it."""
import os
import sys

from arena.sdk import hookimpl


@hookimpl
def choose(legal: list[str]) -> str:
    sys.stderr.write({STDERR_PAYLOAD!r} + "\\n")
    sys.stderr.flush()
    os._exit(3)
'''


@dataclass
class WebData:
    """The prepared database and what was put in it."""

    folder: Path
    db: Path
    tournament: str = "webtest"
    ladder: str = "ladder"
    """A competition of public-seed matches played in process: each is its own deal group,
    so its ranking has intervals and rank ranges."""
    families: str = "families"
    """A match of every variant, played in process."""


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a TOML basic string


def make_bot(folder: Path, name: str, text: dict[str, str] | None = None, code: str | None = None,
             variants: Sequence[str] = ("*",)) -> Path:
    """A copy of the bundled random bot named ``name``, with ``text`` in its manifest.  Each
    is by an author of its own (``web tests: NAME``): with authors apart, the default, made
    bots still meet each other at every table."""
    target = folder / name
    shutil.copytree(BOTS_DIR / "random", target, ignore=shutil.ignore_patterns("__pycache__"))
    fields = {"name": name, "version": "1.0.0", "author": f"web tests: {name}",
              "description": f"{name} for the web tests", **(text or {})}
    lines = [f"{key} = {_toml(value)}" for key, value in fields.items()]
    listed = ", ".join(_toml(v) for v in variants)
    (target / "bot.toml").write_text("\n".join([*lines, f"variants = [{listed}]", 'entry = "bot.py"']) + "\n")
    if code is not None:
        (target / "bot.py").write_text(code)
    return target


def arena_command(*args: str | Path) -> list[str]:
    """``arena ARGS`` as this interpreter runs it."""
    return [sys.executable, "-m", "arena.cli", *map(str, args)]


def arena(*args: str | Path, timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    """Run ``arena ARGS`` to the end."""
    env = {k: v for k, v in os.environ.items() if k != "ARENA_DB"}
    return subprocess.run(arena_command(*args), capture_output=True, text=True, cwd=REPO, env=env, timeout=timeout,
                          check=False)


def tournament_file(folder: Path, name: str, entrants: Sequence[Path | str], variants: str, deals: int = 1,
                    authors_apart: bool | None = None) -> Path:
    """A tournament file with short time limits for ``entrants`` (``authors_apart``: the
    setting, if given; the default rule otherwise)."""
    path = folder / f"{name}.toml"
    apart = [] if authors_apart is None else [f"authors_apart = {str(authors_apart).lower()}"]
    path.write_text("\n".join([
        f'name = "{name}"', f'description = "{name}: the web tests\' tournament"',
        "entrants = [" + ", ".join(_toml(str(e)) for e in entrants) + "]", f"deals = {deals}", *apart,
        "[time]", "move_ms = 2000", "bank_ms = 2000", "first_move_ms = 5000", "startup_ms = 20000", variants,
    ]) + "\n")
    return path


def random_matches(db: Path, name: str, bots: Sequence[str],
                   games: Sequence[tuple[str, int, dict[str, Any]]]) -> None:
    """Public-seed matches of random play, one per (variant, seats, options) of ``games``,
    stored in process under competition ``name`` (the real engine and its real logs; each
    match is a deal group of its own)."""
    with Store(db) as store:
        versions = [store.latest(bot) for bot in bots]
        ids = [v.id for v in versions if v is not None]
        for seq, (variant, players, options) in enumerate(games):
            rng = random.Random(seq)
            state = get_variant(variant).new_match(players, seed=1000 + seq, options=options)
            while not state.is_over:
                state.apply(rng.choice(state.legal_actions()))
            assert state.outcome is not None
            order = (ids[seq % len(ids):] + ids[:seq % len(ids)])[:players]
            store.record(MatchRecord(
                id=f"{name}-{variant}-{players}p-{seq:04d}", tournament=name, seq=seq, variant=variant,
                options=options, seed=1000 + seq, reason=state.outcome.reason, rounds=state.outcome.rounds,
                seats=tuple(SeatRecord(v, p, s, 0, 20, 0.001 * (k + 1) * (seq + 1))
                            for k, (v, p, s) in enumerate(zip(order, state.outcome.placements, state.outcome.scores))),
                decisions=len(state.actions()), log=compress_log([e.full() for e in state.log]),
            ))


SHORTER = {"banking": {"rounds": 3}, "empat-satu": {"rounds": 1}, "fifty-one-chinese": {"target": 150},
           "skat": {"rounds": 3}}
"""Options that keep a random-play match of the longest variants to a few hundred steps."""


def every_variant() -> list[tuple[str, int, dict[str, Any]]]:
    """Each variant at a table of three (or its smallest), kept short."""
    return [(name, max(variant.min_players, min(3, variant.max_players)), SHORTER.get(name, {}))
            for name, variant in sorted(variants().items())]


@dataclass
class Server:
    """A running ``arena serve``."""

    url: str
    process: subprocess.Popen[str]

    def get(self, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
        """A raw request for ``path`` exactly as given (no client-side normalisation of ``..``)."""
        import http.client
        from urllib.parse import urlsplit

        where = urlsplit(self.url)
        connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
        try:
            connection.request(method, path)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()


def start_server(db: Path) -> Server:
    """``arena serve --port 0`` over ``db``, once it listens."""
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}  # SIGABRT dumps every thread: what a hung server waits on
    process = subprocess.Popen(arena_command("serve", "--db", db, "--port", "0"), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=REPO, start_new_session=True, env=env)
    assert process.stdout is not None
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise AssertionError(f"arena serve did not start: {line}{process.communicate(timeout=10)[1]}")
    return Server(re.search(r"http://\S+", line).group().rstrip("/"), process)  # type: ignore[union-attr]


def stop_server(server: Server, how: signal.Signals = signal.SIGINT) -> None:
    """Stop it as Ctrl+C (or ``how``) would; it must exit cleanly."""
    server.process.send_signal(how)
    try:
        _, err = server.process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        server.process.send_signal(signal.SIGABRT)
        try:
            _, err = server.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            _, err = server.process.communicate()
        raise AssertionError(f"arena serve did not stop on {how.name}; where it was:\n{err[-6000:]}") from None
    assert server.process.returncode == 0, (server.process.returncode, err[-3000:])


def browser_missing() -> str | None:
    if not CHROMIUM.exists():
        return f"no {CHROMIUM}: run scripts/setup-browser as root (make's install step does) for the browser tests"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed: pip install -e '.[dev]'"
    return None


@dataclass
class Watched:
    """A browser page whose console errors, page errors, dialogs and requests are kept."""

    page: Any
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    """Requests for anything but the site itself (refused)."""


TAKEN: list[Path] = []
"""The screenshots this run saved (the summary names their folder)."""


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot as a test artifact under results/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    TAKEN.append(path)
    return path


def assert_clean(tab: Watched) -> None:
    """Nothing went wrong on the page: no console error, no dialog, no foreign request."""
    assert tab.errors == [] and tab.dialogs == [] and tab.foreign == [], (tab.errors, tab.dialogs, tab.foreign)


def table(db: Any, tournament: str, variant: str | None = None) -> dict[str, Any]:
    """``arena table --json``."""
    result = arena("table", "--json", "-t", tournament, *(["-v", variant] if variant else []), "--db", db)
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def shown_ranking(page: Any) -> list[dict[str, Any]]:
    """The ranking table's rows: each cell's text by its class, and the row's bot and hash."""
    rows: list[dict[str, Any]] = page.eval_on_selector_all("#ranking tbody tr", """rows => rows.map(r => ({
        bot: r.dataset.bot, hash: r.dataset.hash,
        cells: Object.fromEntries([...r.cells].map(c => [c.className.replace('num ', ''), c.textContent.trim()]))}))""")
    return rows


def assert_same_ranking(shown: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    """The page's ranking is ``arena table --json``'s, number for number as the page rounds it."""
    standings = expected["standings"]
    assert [(r["bot"], r["hash"]) for r in shown] == [(s["bot"], s["hash"]) for s in standings]
    for row, want in zip(shown, standings):
        cells = row["cells"]
        assert cells["rank"] == str(want["rank"])
        assert abs(float(cells["rating"]) - want["rating"]) < 0.0051 and abs(float(cells["mu"]) - want["mu"]) < 0.0051
        assert (cells["matches"], cells["wins"], cells["faults"]) == tuple(str(want[k]) for k in ("matches", "wins",
                                                                                                  "faults"))
        assert abs(float(cells["place"]) - want["average_placement"]) < 0.0051
        if want["mu_low"] is None and want["mu_high"] is None:
            assert cells["interval"] == "-" and cells["ranks"] == "-"
        elif want["interval_bound"] is not None:  # one end rests on the data
            end = want["mu_high"] if want["interval_bound"] == "at most" else want["mu_low"]
            words, value = cells["interval"].rsplit(" ", 1)
            assert words == want["interval_bound"] and abs(float(value) - end) < 0.051, cells["interval"]
        else:
            low, high = (float(x) for x in cells["interval"].split(" to "))
            assert abs(low - want["mu_low"]) < 0.051 and abs(high - want["mu_high"]) < 0.051
            best, worst = want["rank_best"], want["rank_worst"]
            assert cells["ranks"] == (str(best) if best == worst else f"{best}-{worst}")
