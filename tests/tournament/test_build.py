"""Compiled bots: the manifest's build step runs once, in the sandbox, in a copy of the
bot's folder; what it builds is what plays and what the registry keeps.  Through the real
command, with the bundled C bot and real compilers."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from tourney import arena, outcomes, scratch, tournament_file

from arena.botspec import BOTS_DIR, BotManifest, load_manifest
from arena.sandbox import Sandbox
from arena.tournament.build import BuildError, build
from arena.tournament.store import Store

pytestmark = pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None,
                                reason="needs make and a C compiler (Debian: build-essential)")


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def c_bot(home: Path, name: str = "c-bot", makefile: str | None = None) -> Path:
    """A copy of the bundled C bot (unbuilt) named ``name``, with another Makefile if given."""
    folder = home / "src" / name
    shutil.copytree(BOTS_DIR / "c-random", folder, ignore=shutil.ignore_patterns("bot", "__pycache__"))
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('name = "c-random"', f'name = "{name}"'))
    if makefile is not None:
        (folder / "Makefile").write_text(makefile, encoding="utf-8")
    for path in (folder.parent, folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def test_submit_builds_a_c_bot_in_the_sandbox_smoke_tests_it_everywhere_and_keeps_the_build(home: Path) -> None:
    folder = c_bot(home)
    assert not (folder / "bot").exists()
    result = arena("submit", folder, "--db", home / "arena.db")
    assert result.returncode == 0, result.stderr
    assert "building: make" in result.stderr and "registered new version c-bot:" in result.stdout
    assert not (folder / "bot").exists(), "the build ran in a copy, not in the author's folder"
    with Store(home / "arena.db") as store:
        [version] = store.versions("c-bot")
    copy = Path(version.path or "")
    binary = copy / "bot"
    assert binary.is_file() and binary.stat().st_mode & stat.S_IXOTH and not binary.stat().st_mode & 0o222
    assert binary.stat().st_uid == os.geteuid(), "the bot's user does not keep what it built"
    checked = result.stdout.split("smoke-tested against random in:")[1]
    assert "scat" in checked and "schwimmen" in checked and "fifty-one" in checked


def test_a_tournament_entrant_with_a_build_step_is_built_and_plays(home: Path) -> None:
    path = tournament_file(home, "compiled", [c_bot(home), BOTS_DIR / "random"], [("scat", [2])], deals=2)
    result = arena("run", path, "--db", home / "arena.db", "-q", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "4/4 scheduled matches stored (complete)" in result.stdout and "0 faults" in result.stdout
    assert len(outcomes(home / "arena.db", "compiled")) == 4


def test_a_failed_build_is_refused_with_its_output(home: Path) -> None:
    folder = c_bot(home, "broken", "bot: bot.c\n\tcc -o bot no-such-file.c\n")
    result = arena("submit", folder, "--db", home / "arena.db")
    assert result.returncode == 2
    assert "the build step `make` of broken@1.0.0 failed (exit status 2)" in result.stderr
    assert "no-such-file.c" in result.stderr and "how to fix" in result.stderr
    with Store(home / "arena.db") as store:
        assert store.versions("broken") == []


def test_a_build_that_leaves_a_link_is_refused(home: Path) -> None:
    """Copied by the arena (as root), a link out of the folder would bring in its target."""
    folder = c_bot(home, "linker", "bot: bot.c\n\tcc -o bot bot.c\n\tln -s /etc/shadow secret\n")
    with pytest.raises(BuildError, match="left secret, which is not a regular file"):
        trio.run(_build, load_manifest(folder), 60.0)


def test_a_build_that_runs_too_long_is_stopped(home: Path) -> None:
    folder = c_bot(home, "slowpoke", "bot:\n\tsleep 30\n")
    with pytest.raises(BuildError, match="took more than 1 s"):
        trio.run(_build, load_manifest(folder), 1.0)


def test_a_build_cannot_reach_the_network_or_write_outside_its_copy(home: Path) -> None:
    folder = c_bot(home, "curious", "bot: bot.c\n\tcc -o bot bot.c\n\ttouch /usr/share/owned || true\n"
                   "\tpython3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 22))' || touch denied\n")
    built = trio.run(_build, load_manifest(folder), 60.0)
    assert built.folder is not None and (built.folder / "bot").is_file() and (built.folder / "denied").is_file()
    assert not Path("/usr/share/owned").exists()


async def _build(manifest: BotManifest, timeout_s: float) -> BotManifest:
    return await build(manifest, await Sandbox.probe(), timeout_s)
