"""A bot's own program checked before it plays: built elsewhere (cargo, Go, a JDK outside
/usr) and shipped, it must run in the sandbox, which shows it /usr and its folder alone.

Programs are made here as an author's machine might make them: a C program linked to a
library outside /usr, one whose library is gone, copies of a real program patched to
name another processor or another C library's loader, and scripts."""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox.programs import program_refusal

REPO = Path(__file__).resolve().parents[2]
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")


def patched(source: Path, target: Path, at: int, data: bytes) -> Path:
    """A copy of ``source`` with ``data`` written at byte ``at``."""
    blob = bytearray(source.read_bytes())
    blob[at:at + len(data)] = data
    target.write_bytes(bytes(blob))
    target.chmod(0o755)
    return target


def linked(tmp_path: Path, library_dir: Path, rpath: str) -> Path:
    """A program that loads libfoo.so from ``library_dir`` (found there by ``rpath``)."""
    library_dir.mkdir(parents=True, exist_ok=True)
    (tmp_path / "foo.c").write_text("int foo(void) { return 31; }\n")
    (tmp_path / "main.c").write_text("int foo(void);\nint main(void) { return foo() == 31 ? 0 : 1; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library_dir / "libfoo.so"), str(tmp_path / "foo.c")],
                   check=True)
    bot = tmp_path / "bot" / "bot"
    bot.parent.mkdir(exist_ok=True)
    subprocess.run(["cc", "-o", str(bot), str(tmp_path / "main.c"), f"-L{library_dir}", "-lfoo",
                    f"-Wl,-rpath,{rpath}"], check=True)
    return bot


def test_this_machine_s_programs_pass() -> None:
    for program in (Path("/bin/sh").resolve(), Path("/usr/bin/env").resolve()):
        assert program_refusal(program, program.parent) is None


def test_a_program_for_another_processor_is_refused_with_how_to_build_for_this_one(tmp_path: Path) -> None:
    other = 183 if platform.machine() != "aarch64" else 62
    bot = patched(Path("/bin/true").resolve(), tmp_path / "bot", 18, other.to_bytes(2, "little"))
    refusal = program_refusal(bot, tmp_path)
    assert refusal is not None and "bot is built for" in refusal and f"runs bots on {platform.machine()}" in refusal


@pytest.mark.parametrize("loader", [b"/lib/ld-musl-x86_64.so.1", b"/usr/bin/yes", b"./evil"])
def test_a_program_asking_for_another_loader_is_refused_and_that_loader_never_runs(
        tmp_path: Path, loader: bytes) -> None:
    """musl's loader (another C library), and programs a bot could name as its loader to have
    the check run them outside the sandbox: ``yes`` fills memory, ``./evil`` is its own."""
    source = Path("/bin/sh").resolve()
    blob = source.read_bytes()
    own = next(p for p in (b"/lib64/ld-linux-x86-64.so.2", b"/lib/ld-linux-aarch64.so.1") if p in blob)
    evil = tmp_path / "evil"
    evil.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\n")
    evil.chmod(0o755)
    bot = patched(source, tmp_path / "bot", blob.index(own), loader.ljust(len(own), b"\0"))
    refusal = program_refusal(bot, tmp_path)
    assert refusal is not None and f"needs the loader {loader.decode()}, which is not this machine's" in refusal
    assert "crt-static" in refusal and not (tmp_path / "ran").exists()


def test_a_damaged_program_is_refused_not_a_crash(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 9)
    refusal = program_refusal(bot, tmp_path)
    assert refusal is not None and "ELF headers are damaged" in refusal


@needs_cc
def test_a_library_outside_usr_is_refused_and_one_in_the_bot_s_folder_is_not(tmp_path: Path) -> None:
    bot = linked(tmp_path, tmp_path / "opt" / "lib", str(tmp_path / "opt" / "lib"))
    assert subprocess.run([str(bot)]).returncode == 0  # it runs here, outside the sandbox
    refusal = program_refusal(bot, bot.parent)
    assert refusal is not None and f"loads libfoo.so (found in {tmp_path / 'opt' / 'lib'})" in refusal
    (tmp_path / "opt" / "lib" / "libfoo.so").unlink()
    refusal = program_refusal(bot, bot.parent)
    assert refusal is not None and "needs libfoo.so, which /usr does not have" in refusal
    shipped = linked(tmp_path, tmp_path / "bot" / "lib", "$ORIGIN/lib")
    assert program_refusal(shipped, shipped.parent) is None


@pytest.mark.parametrize(("first_line", "says"), [
    ("#!/opt/jdk/bin/java -jar", "runs /opt/jdk/bin/java (its #! line), which bots cannot see"),
    ("#!/usr/bin/env no-such-interpreter", "runs 'no-such-interpreter' (#!/usr/bin/env), which is not on the bots'"),
    ("#!/usr/bin/env sh", None),
    ("#!/bin/sh", None),
])
def test_a_script_s_interpreter_must_be_one_bots_can_see(tmp_path: Path, first_line: str, says: str | None) -> None:
    bot = tmp_path / "bot"
    bot.write_text(f"{first_line}\necho hello\n")
    refusal = program_refusal(bot, tmp_path)
    assert refusal is None if says is None else (refusal is not None and says in refusal), refusal


def test_arena_submit_refuses_a_program_for_another_processor_before_any_match(tmp_path: Path) -> None:
    """As an author meets it: the refusal names the file, what is wrong and the fix."""
    folder = tmp_path / "far"
    folder.mkdir()
    other = 183 if platform.machine() != "aarch64" else 62
    patched(Path("/bin/true").resolve(), folder / "bot", 18, other.to_bytes(2, "little"))
    (folder / "bot.toml").write_text('name = "far"\nversion = "1.0.0"\nvariants = ["scat"]\ncommand = ["./bot"]\n')
    done = subprocess.run([sys.executable, "-m", "arena.cli", "submit", str(folder), "--db", str(tmp_path / "a.db")],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{folder}: bot is built for" in done.stderr and "smoke-testing" not in done.stderr, done.stderr
