"""Reads address 0 on its first decision: the process dies of SIGSEGV."""

import ctypes

from arena.sdk import hookimpl


@hookimpl
def choose(legal: list[str]) -> str:
    ctypes.string_at(0)
    return legal[0]
