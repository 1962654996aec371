"""The pluggy markers of variant plugins, apart from the registry that collects them: a
plugin module (the built-in variants too) imports only these, never the registry.

    from arena.rules import Variant, hookimpl

    @hookimpl
    def arena_variants() -> list[Variant]: ...
"""

from __future__ import annotations

import pluggy

__all__ = ["PROJECT", "hookimpl", "hookspec"]

PROJECT = "arena"
"""pluggy's project name of the variant hooks."""

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)
