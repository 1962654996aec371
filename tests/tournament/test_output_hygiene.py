"""Text from a bot never reaches the operator raw: stderr in fault details, manifest text,
in every output of the real command (tables, JSON, the store, replays)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import SANDBOX_BOTS, arena, copy_bot, query, scratch, tournament_file

from arena.botspec import BOTS_DIR

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""What must never be printed: control characters (but newline and tab) and bidi controls."""


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def assert_clean_text(text: str, where: str) -> None:
    found = RAW.findall(text)
    assert not found, f"{where} carries raw control characters {found!r}"


def test_escape_sequences_in_stderr_are_shown_escaped_by_match(home: Path) -> None:
    bot = copy_bot(SANDBOX_BOTS / "escape-artist", home / "escape-artist")
    shown = arena("match", "-v", "scat", "-b", bot, "-b", "random", "--seed", "3")
    assert shown.returncode == 0, shown.stderr
    assert_clean_text(shown.stdout + shown.stderr, "arena match")
    assert "\\x1b]52;c;cHduZWQ=\\x07" in shown.stdout and "\\u202eevil" in shown.stdout
    as_json = arena("match", "-v", "scat", "-b", bot, "-b", "random", "--seed", "3", "--json")
    assert_clean_text(as_json.stdout, "arena match --json")
    [fault] = json.loads(as_json.stdout)["faults"]
    assert fault["kind"] == "crash" and "\\x1b]0;owned by a bot\\x07" in fault["detail"]


def test_escape_sequences_never_reach_the_store_or_its_views(home: Path) -> None:
    bot = copy_bot(SANDBOX_BOTS / "escape-artist", home / "escape-artist")
    path = tournament_file(home, "hygiene", [bot, copy_bot(BOTS_DIR / "random", home / "random")], [("scat", [2])])
    db = home / "arena.db"
    run = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert run.returncode == 0, run.stderr
    assert_clean_text(run.stdout + run.stderr, "arena run")
    for (faults,) in query(db, "SELECT faults FROM matches"):
        assert_clean_text("".join(f["detail"] for f in json.loads(faults)), "the stored fault details")
    [(manifest,)] = query(db, "SELECT manifest FROM versions WHERE bot = 'escape-artist'")
    assert_clean_text(json.loads(manifest)["description"] + json.loads(manifest)["author"], "the stored manifest")
    [(match_id,)] = query(db, "SELECT id FROM matches LIMIT 1")
    for command in (["show", match_id], ["show", match_id, "--json"], ["table", "-t", "hygiene"], ["bots"],
                    ["export", "-t", "hygiene", "--format", "csv"]):
        out = arena(*command, "--db", db)
        assert out.returncode == 0, (command, out.stderr)
        assert_clean_text(out.stdout + out.stderr, f"arena {' '.join(command)}")


def test_a_version_with_control_characters_is_refused(home: Path) -> None:
    bot = copy_bot(BOTS_DIR / "random", home / "sneaky", name="sneaky")
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.0.0"', 'version = "1.0\\u001b[31m"'))
    result = arena("submit", bot, "--db", home / "arena.db")
    assert result.returncode == 2 and "may not hold control characters" in result.stderr
    assert_clean_text(result.stderr, "arena submit")
