"""Whether a bot's own program can run in the sandbox, said before any match is played.

A bot in a compiled language whose compiler is not under ``/usr`` (Rust's cargo, Go, a
JDK under /opt) is built on its author's machine and shipped as a program in its folder.
In the sandbox it sees the bot's folder and this machine's ``/usr`` (``/lib``, ``/lib64``
and ``/bin`` are links into it) and nothing else, so the program must be built for this
machine's processor, and load only the libraries of ``/usr`` or its own folder (or none:
statically linked).  A script's interpreter must be there too.  Each refusal says what
is wrong and how to fix it.
"""

from __future__ import annotations

import contextlib
import functools
import platform
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Final

__all__ = ["BOT_PATH", "program_refusal"]

BOT_PATH: Final = "/usr/local/bin:/usr/bin:/bin"
"""The ``PATH`` bots run with."""

MACHINES: Final = {3: "i386", 40: "arm", 62: "x86_64", 183: "aarch64", 243: "riscv64", 8: "mips", 21: "ppc64",
                   22: "s390x"}
"""ELF ``e_machine`` numbers, by the names ``uname -m`` gives."""
VISIBLE: Final = (Path("/usr"), Path("/bin"), Path("/lib"), Path("/lib64"), Path("/sbin"))
"""Where the sandbox shows this machine's own files (besides the bot's folder)."""
PT_INTERP: Final = 3
LIST_TIMEOUT_S: Final = 10
_LISTED: Final = re.compile(r"^\s*(\S+) => (not found|(\S+))")
_UNLOADED: Final = re.compile(r"error while loading shared libraries: ([^:]+):")
STATIC_HINT: Final = ("link it statically (Rust: RUSTFLAGS=\"-C target-feature=+crt-static\" cargo build --release; "
                      "Go: CGO_ENABLED=0 go build), or ship the library in the bot's folder and load it from there "
                      "(rpath $ORIGIN)")


def program_refusal(program: Path, folder: Path) -> str | None:
    """Why ``program`` (a file of the bot's ``folder``) cannot run in the sandbox, with the
    fix; None if nothing stands in its way.  Nothing the program names is run: its libraries
    are listed by this machine's own loader, never by the loader the program asks for."""
    try:
        with open(program, "rb") as handle:
            head = handle.read(4096)
        if head.startswith(b"#!"):
            return _script_refusal(program, head)
        if head.startswith(b"\x7fELF"):
            return _elf_refusal(program, folder, head)
    except OSError as error:
        return f"{program.name} cannot be read: {error.strerror}"
    except (struct.error, IndexError, ValueError):
        return f"{program.name} is not a program any machine can run: its ELF headers are damaged"
    return None  # anything else the kernel refuses at start, which the bot's start-up fault says


@functools.cache
def machine_loaders() -> dict[Path, str]:
    """This machine's own dynamic loaders (those of its shell and of the arena's Python),
    each by its resolved path: the only ones a bot's program may ask for, and the only
    ones this module runs."""
    found: dict[Path, str] = {}
    for program in (Path("/bin/sh"), Path(sys.executable)):
        with contextlib.suppress(OSError, struct.error, IndexError, ValueError):
            resolved = program.resolve()
            with open(resolved, "rb") as handle:
                head = handle.read(4096)
            loader = _interpreter(resolved, head, "<" if head[5] == 1 else ">") if head[:4] == b"\x7fELF" else None
            if loader is not None and Path(loader).exists():
                found[Path(loader).resolve()] = loader
    return found


def _visible(path: Path, folder: Path) -> bool:
    """Whether the sandbox shows ``path`` (by that name)."""
    return any(top == path or top in path.parents for top in (*VISIBLE, folder.resolve()))


def _script_refusal(program: Path, head: bytes) -> str | None:
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not line:
        return f"{program.name} starts with '#!' but names no interpreter"
    interpreter = Path(line[0])
    if interpreter.name == "env" and len(line) > 1:  # #!/usr/bin/env NAME: found on the bots' PATH
        if shutil.which(line[1], path=BOT_PATH) is None:
            return (f"{program.name} runs '{line[1]}' (#!/usr/bin/env), which is not on the bots' PATH "
                    f"({BOT_PATH}): install it under /usr, or ship a compiled program instead")
        return None
    if not _visible(interpreter, program.parent) or not interpreter.exists():
        return (f"{program.name} runs {interpreter} (its #! line), which bots cannot see: they see /usr and the "
                "bot's folder; use an interpreter under /usr, or ship a compiled program instead")
    return None


def _elf_refusal(program: Path, folder: Path, head: bytes) -> str | None:
    """A program's processor, its loader and its libraries, against this machine's."""
    bits, order = head[4], "<" if head[5] == 1 else ">"
    (machine,) = struct.unpack_from(order + "H", head, 18)
    built = MACHINES.get(machine, f"machine {machine}")
    here = platform.machine()
    if built != here or bits != 2:
        return (f"{program.name} is built for {built} ({32 if bits == 1 else 64}-bit); this arena runs bots on "
                f"{here} (64-bit): build it for {here}-linux (Rust: --target {here}-unknown-linux-gnu)")
    loader = _interpreter(program, head, order)
    if loader is None:
        return None  # statically linked: it needs nothing of this machine
    own = machine_loaders().get(Path(loader).resolve())
    if own is None or not _visible(Path(loader), folder):
        return (f"{program.name} needs the loader {loader}, which is not this machine's "
                f"({', '.join(machine_loaders().values()) or 'none found'}; built against another C library?): "
                f"{STATIC_HINT}")
    try:
        listed = subprocess.run([own, "--list", str(program)], capture_output=True, text=True, check=False,
                                stdin=subprocess.DEVNULL, timeout=LIST_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"{program.name}: this machine's loader could not list its libraries within {LIST_TIMEOUT_S} s"
    if listed.returncode != 0:  # the loader stops at the first library it cannot find
        found = _UNLOADED.search(listed.stderr)
        return f"{program.name} needs {found.group(1) if found else 'a library'}, which /usr does not have: " \
               f"{STATIC_HINT}"
    missing, outside = [], []
    for line in listed.stdout.splitlines():
        if match := _LISTED.match(line):
            if match.group(2) == "not found":
                missing.append(match.group(1))
            elif not _visible(Path(match.group(3)), folder):
                outside.append(f"{match.group(1)} (found in {Path(match.group(3)).parent})")
    if missing:
        return f"{program.name} needs {', '.join(missing)}, which /usr does not have: {STATIC_HINT}"
    if outside:
        return f"{program.name} loads {', '.join(outside)}, where bots cannot see it: {STATIC_HINT}"
    return None


def _interpreter(program: Path, head: bytes, order: str) -> str | None:
    """The program's loader (its PT_INTERP), or None for a statically linked one."""
    (phoff,) = struct.unpack_from(order + "Q", head, 32)
    phentsize, phnum = struct.unpack_from(order + "HH", head, 54)
    with open(program, "rb") as handle:
        handle.seek(phoff)
        table = handle.read(phentsize * phnum)
        for k in range(phnum):
            kind, _, offset, _, _, size = struct.unpack_from(order + "IIQQQQ", table, k * phentsize)
            if kind == PT_INTERP:
                handle.seek(offset)
                return handle.read(size).rstrip(b"\0").decode("utf-8", "replace")
    return None
