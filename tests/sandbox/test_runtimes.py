"""Bots in every language the docs teach start and play behind every layer this machine
offers: the seccomp filter refuses page-cache hints, residency probes and the machine's
counters (``sysinfo``, ``statfs``), which no runtime may need to start.

Each bot is built (where it is compiled) in a fresh world-readable copy and plays a whole
``scat`` match against the Python ``random`` bot without a fault.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile import BOTS, _base, _open_up, assert_clean, assert_nothing_left, play, random_bot

from arena.botspec import BOTS_DIR, BotManifest, load_manifest
from arena.sandbox import Sandbox


def _copy(source: Path, build: Callable[[Path], None]) -> BotManifest:
    folder = Path(tempfile.mkdtemp(prefix=f"{source.name}-", dir=_base())) / source.name
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__", "bot"))
    build(folder)
    _open_up(folder.parent)
    return load_manifest(folder)


def _make(folder: Path) -> None:
    subprocess.run(["make", "-s"], cwd=folder, check=True, capture_output=True)


def _rustc(folder: Path) -> None:
    subprocess.run([str(shutil.which("rustc")), "-O", "-o", "bot", "bot.rs"], cwd=folder, check=True,
                   capture_output=True)


LANGUAGES = [
    pytest.param("python", id="python"),
    pytest.param("c", id="c", marks=pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")),
    pytest.param("js", id="js", marks=pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")),
    pytest.param("rust", id="rust", marks=pytest.mark.skipif(shutil.which("rustc") is None, reason="needs rustc")),
]


def _bot(language: str) -> BotManifest:
    if language == "python":
        return random_bot()
    if language == "c":
        return _copy(BOTS_DIR / "c-random", _make)
    if language == "js":
        return _copy(BOTS_DIR / "node-random", lambda folder: None)
    return _copy(BOTS / "rust-first", _rustc)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bot_in_each_language_starts_and_plays_behind_every_layer(box: Sandbox, language: str) -> None:
    played = play(box, [_bot(language), random_bot()])
    assert_clean(played)
    assert_nothing_left(played)
    assert sorted(played.result.sandbox) == sorted(box.active)
