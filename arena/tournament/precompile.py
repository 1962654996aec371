"""A bot copy's bytecode, compiled in a child process bounded in memory and CPU.

A registered copy is read-only, so its bot could not write the bytecode of its modules at
start-up: the registry and each worker's bot cache compile it in advance.  Compiling is
work the arena does for an upload before any sandbox is involved, and it is not small:
CPython takes hundreds of bytes of memory per byte of a long flat expression, so a module
of a few megabytes (a few kilobytes packed) took the host's validator past 2 GB, and
bytecode can be many times its source.  So the compiler runs in a child limited to
:data:`COMPILE_MB` of memory and :data:`COMPILE_CPU_S` of CPU, and a copy whose modules
need more is refused, as is a copy larger than the registry keeps once compiled.  A
module that does not compile (a syntax error in a file the bot never imports) is left
without bytecode, as before.

Run as a script (``python -I precompile.py FOLDER``: standard library only).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

COMPILE_MB = 512
"""Address space of the compiling child: a bot's modules compile in a fraction of it."""
COMPILE_CPU_S = 120
"""CPU seconds the compiling child may use for a whole copy."""
TOO_LARGE = 3
"""The child's exit status when a module needs more memory than it has."""


def compile_copy(folder: Path) -> str | None:
    """Compile the bytecode of every module under ``folder`` (checked against its source
    when loaded: a stale .pyc beside a changed source is not run); ``None``, or why the
    modules could not be compiled within the bounds."""
    done = subprocess.run([sys.executable, "-I", __file__, str(folder)], stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if done.returncode == 0:
        return None
    module = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
    if done.returncode == TOO_LARGE:
        return f"its module {module[0]} needs more than {COMPILE_MB} MB of memory to compile"
    if done.returncode < 0:
        return f"its modules need more than {COMPILE_CPU_S} s of CPU to compile"
    return f"its modules could not be compiled: {module[0]}"


def main(folder: str) -> int:
    """Compile every ``.py`` under ``folder`` within this process's bounds."""
    memory = COMPILE_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (COMPILE_CPU_S, COMPILE_CPU_S))
    import py_compile

    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(root, name)
            try:
                py_compile.compile(path, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            except py_compile.PyCompileError as error:
                if error.exc_type_name == "MemoryError":
                    print(os.path.relpath(path, folder), file=sys.stderr)
                    return TOO_LARGE
            except MemoryError:
                print(os.path.relpath(path, folder), file=sys.stderr)
                return TOO_LARGE
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
