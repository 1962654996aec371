"""What a bot process does first, inside its sandbox, before any of its code runs: take
its protocol pipes (:func:`take_stdio_from_env`) and confine itself with Landlock to the
paths it needs.

Landlock is applied inside the bot's namespaces (after bubblewrap has built its mounts: a
landlocked process may no longer change its mount topology).  Python bots are confined
by the bot host before it imports the bot; other bots start through
``python .../arena/sandbox/confine.py -- COMMAND...`` (run as a script: standard library only,
so it adds only an interpreter start).  The rules come from the
environment variable ``ARENA_LANDLOCK`` (JSON: ``{"read": [...], "write": [...]}``)
set by the launcher.  Everything not listed is refused: reads and writes elsewhere,
and, with ABI 4 and later, TCP; with ABI 6 and later, signals and abstract unix sockets
outside the bot's own domain.

There is no maintained Python binding for Landlock, so this module makes the three
system calls itself (ctypes), following the kernel's ``landlock.h``.  Every Python bot
imports this module before it answers ``hello``, so ``ctypes`` loads only when there are
Landlock rules to apply (or the ABI is asked for), and ``platform`` not at all.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes
    from collections.abc import Iterable

__all__ = ["ENV", "STDIO_ENV", "abi_version", "confine", "confine_from_env", "take_stdio_from_env"]

ENV = "ARENA_LANDLOCK"
STDIO_ENV = "ARENA_STDIO"

# x86_64 and aarch64 (and every architecture since 5.13) share these numbers.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_READ = _EXECUTE | _READ_FILE | _READ_DIR
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_TCP = 1 | 2  # bind, connect
_SCOPED = 1 | 2  # abstract unix sockets, signals

_LIBC: list[ctypes.CDLL] = []


def _libc() -> ctypes.CDLL:
    """The C library, loaded on first use (with ``ctypes``)."""
    if not _LIBC:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        _LIBC.append(libc)
    return _LIBC[0]


def abi_version() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is unavailable."""
    if not sys.platform.startswith("linux"):
        return 0
    version = _libc().syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    return max(0, int(version))


def _fs_rights(abi: int) -> int:
    return _FS_BY_ABI[max(k for k in _FS_BY_ABI if k <= abi)]


def confine(read: Iterable[str], write: Iterable[str]) -> int:
    """Restrict this process (and its future children) to ``read`` and ``write`` paths.

    Returns the ABI version used; raises OSError if Landlock is unavailable.
    """
    import ctypes
    import struct

    libc = _libc()
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    fs = _fs_rights(abi)
    attr = struct.pack("=Q", fs)
    if abi >= 4:
        attr += struct.pack("=Q", _TCP)
    if abi >= 6:
        attr += struct.pack("=Q", _SCOPED)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(_CREATE_RULESET, buffer, len(attr), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for paths, rights in ((read, _READ), (write, fs)):
            for path in paths:
                _allow(int(ruleset), path, rights)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(_RESTRICT_SELF, ctypes.c_int(int(ruleset)), 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(int(ruleset))
    return abi


def _allow(ruleset: int, path: str, rights: int) -> None:
    import ctypes
    import struct

    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist here needs no rule
    try:
        if not os.path.isdir(path):
            rights &= _EXECUTE | _WRITE_FILE | _READ_FILE | (1 << 14) | (1 << 15)  # file rights only
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        if _libc().syscall(_ADD_RULE, ctypes.c_int(ruleset), _RULE_PATH_BENEATH, rule, 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)


def confine_from_env() -> int:
    """Apply the rules the launcher put in ``ARENA_LANDLOCK``; 0 when there are none."""
    spec = os.environ.pop(ENV, None)
    if not spec:
        return 0
    from arena.lightjson import json_loads

    rules = json_loads(spec)
    return confine(rules.get("read", []), rules.get("write", []))



def take_stdio_from_env() -> None:
    """Move the protocol pipes the launcher passed as ``ARENA_STDIO="IN OUT"`` to fds 0 and 1.

    Under bubblewrap the pipes arrive above fd 2: bubblewrap's own helper processes keep
    their stdin and stdout (/dev/null) but close every other descriptor, so the bot alone
    holds its end of each pipe and the referee sees at once when it closes its stdout."""
    spec = os.environ.pop(STDIO_ENV, None)
    if not spec:
        return
    fd_in, fd_out = (int(fd) for fd in spec.split())
    os.dup2(fd_in, 0)
    os.dup2(fd_out, 1)
    os.close(fd_in)
    os.close(fd_out)


def main(argv: list[str]) -> None:
    """``python confine.py -- COMMAND...``: take the protocol pipes, confine, then exec the command."""
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        raise SystemExit("usage: python confine.py -- COMMAND [ARGS...]")
    take_stdio_from_env()
    confine_from_env()
    try:
        os.execvp(argv[0], argv)
    except OSError as error:  # one line the referee shows the bot's author, not a traceback
        print(f"cannot run {argv[0]!r}: {error.strerror}", file=sys.stderr)
        raise SystemExit(127) from None


if __name__ == "__main__":
    main(sys.argv[1:])
