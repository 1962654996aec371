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
from arena.errors import ArenaError
from arena.sandbox import Sandbox
from arena.sandbox.scratch import remove_tree
from arena.tournament.build import BuildError, build
from arena.tournament.registry import install
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


# -- the build is confined like a bot: quota, clean output, any tree, nothing left behind --------------------------


def workshop_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of an ``arena`` command whose temporary folder is ``home/tmp``: what
    a build leaves there is seen by the test alone."""
    tmp = home / "tmp"
    tmp.mkdir(exist_ok=True)
    tmp.chmod(0o755)
    return {"TMPDIR": str(tmp), **extra}


def left_behind(home: Path) -> list[str]:
    """Workshops and scratch spaces of arena processes still in ``home/tmp``, and mounts under it."""
    tmp = home / "tmp"
    with open("/proc/self/mountinfo", encoding="utf-8") as info:
        mounts = [line.split()[4] for line in info if line.split()[4].startswith(str(tmp))]
    return sorted(p.name for p in tmp.glob("arena-bot-*")) + mounts


def refused(home: Path, folder: Path, env: dict[str, str]) -> str:
    """``arena submit`` of ``folder``, which must be refused cleanly: its stderr."""
    result = arena("submit", folder, "--db", home / "arena.db", env=env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "Error:" not in result.stderr, result.stderr
    with Store(home / "arena.db") as store:
        assert store.versions(folder.name) == []
    return result.stderr


def test_a_build_that_writes_past_its_workshop_size_is_refused_and_its_workshop_removed(home: Path) -> None:
    folder = c_bot(home, "filler", "bot: bot.c\n\tcc -o bot bot.c\n"
                   "\tfor i in 1 2 3 4; do head -c 8M /dev/zero > fill$$i || exit 1; done\n")
    err = refused(home, folder, workshop_env(home, ARENA_BUILD_MB="16"))
    assert "the build step `make` of filler@1.0.0 filled its workshop (16 MB / 16384 files" in err
    assert "No space left on device" in err  # what the build itself was told
    assert left_behind(home) == []


def test_a_build_that_makes_more_files_than_its_workshop_holds_is_refused(home: Path) -> None:
    folder = c_bot(home, "sprawler", "bot: bot.c\n\tcc -o bot bot.c\n"
                   "\tmkdir many && cd many && seq 1000 | xargs touch\n")
    err = refused(home, folder, workshop_env(home, ARENA_BUILD_FILES="300"))
    assert "the build step `make` of sprawler@1.0.0 filled its workshop (256 MB / 300 files" in err
    assert left_behind(home) == []


def test_a_failed_builds_escape_sequences_never_reach_the_terminal_and_its_workshop_goes_at_once(home: Path) -> None:
    """An OSC window title, an OSC 52 clipboard write and a screen clear, printed by a build that fails."""
    folder = c_bot(home, "painter",
                   "bot:\n\t@printf '\\033]0;pwned\\007\\033]52;c;cHduZWQ=\\007\\033[2J\\n'\n\texit 1\n")
    result = arena("submit", folder, "--db", home / "arena.db", env=workshop_env(home))
    assert result.returncode == 2 and "failed (exit status 2)" in result.stderr
    for shown in (result.stdout, result.stderr):
        assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b]0;pwned\\x07\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J" in result.stderr  # visible, escaped
    assert left_behind(home) == []
    with pytest.raises(BuildError) as raised:  # what the arena keeps of it (a tournament's error, a log)
        trio.run(_build, load_manifest(folder), 60.0)
    assert "\x1b" not in str(raised.value) and "\\x1b]52;c;" in str(raised.value)


def test_a_build_that_leaves_a_1200_deep_folder_is_refused_cleanly_and_leaves_nothing(home: Path) -> None:
    folder = c_bot(home, "burrower", "bot: bot.c\n\tcc -o bot bot.c\n"
                   "\tpython3 -c \"import os; [(os.mkdir('d'), os.chdir('d')) for _ in range(1200)]\"\n")
    err = refused(home, folder, workshop_env(home))
    assert "the build step `make` of burrower@1.0.0 left d/d/d/" in err and "nested more than 32 deep" in err
    assert left_behind(home) == []


def test_a_built_copy_too_large_to_register_is_refused_with_its_size(home: Path) -> None:
    """90 MB fits the workshop, not the registry: every version's copy is kept, and every worker copies it."""
    folder = c_bot(home, "hoarder", "bot: bot.c\n\tcc -o bot bot.c\n"
                   "\tfor i in 1 2 3 4 5 6; do head -c 15M /dev/urandom > blob$$i; done\n")
    err = refused(home, folder, workshop_env(home))
    assert "the built folder of hoarder@1.0.0 is too large to register: 90.0 MB" in err
    assert "at most 64 MB in 4096 files and folders" in err
    assert not (home / "registry" / "hoarder").exists() and left_behind(home) == []


def test_a_bot_folder_with_too_many_files_is_refused_before_it_runs_and_install_refuses_it_too(home: Path) -> None:
    folder = home / "src" / "swarm"
    shutil.copytree(BOTS_DIR / "random", folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('name = "random"', 'name = "swarm"'))
    (folder / "data").mkdir()
    for i in range(5000):
        (folder / "data" / f"{i}.txt").write_text("x")
    err = refused(home, folder, workshop_env(home))
    assert "the folder of swarm@" in err and "is too large to register: more than 4096 files and folders" in err
    assert "smoke-testing" not in err
    with Store(home / "arena.db") as store, pytest.raises(ArenaError, match="more than 4096 files"):
        install(store, load_manifest(folder))


def test_a_bot_folder_nested_1200_deep_is_refused_without_a_traceback(home: Path) -> None:
    folder = home / "src" / "deep"
    shutil.copytree(BOTS_DIR / "random", folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('name = "random"', 'name = "deep"'))
    nested = folder
    for _ in range(1200):  # os.makedirs recurses
        nested /= "d"
        nested.mkdir()
    try:
        err = refused(home, folder, workshop_env(home))
        assert "the folder of deep@" in err and "nested more than 32 deep" in err
    finally:
        remove_tree(folder / "d")  # the fixture's own clean-up walks recursively
