"""The variant registry, a pluggy plugin system.

Variants come from plugins implementing the ``arena_variants`` hook.  The built-in
variants are such a plugin, registered under the entry-point group ``arena.variants``
exactly as a third-party package registers its own, so adding a variant never means
editing the arena::

    # pyproject.toml of a plugin package
    [project.entry-points."arena.variants"]
    my_variants = "my_package.variants"      # a module with an @hookimpl arena_variants()

The markers live in :mod:`arena.rules.hookmarks`, so a plugin module (the built-ins too)
never imports the registry that imports it.
"""

from __future__ import annotations

import functools
import importlib

import pluggy

from arena.rules.game import RulesError, Variant
from arena.rules.hookmarks import PROJECT, hookimpl, hookspec

__all__ = ["ENTRY_POINT_GROUP", "UnknownVariantError", "get_variant", "hookimpl", "plugin_manager", "variants"]

ENTRY_POINT_GROUP = "arena.variants"
BUILTIN = "builtin"


class UnknownVariantError(RulesError):
    """No registered variant has that name."""


class VariantSpecs:
    """Hook specifications for variant plugins."""

    @hookspec
    def arena_variants(self) -> list[Variant]:  # type: ignore[empty-body]
        """Return the variants this plugin provides."""


def plugin_manager() -> pluggy.PluginManager:
    """A plugin manager with the built-in variants and every installed variant plugin."""
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(VariantSpecs)
    # The built-ins are declared under the same entry point; registering them by
    # name first keeps them available when the package runs from a source tree.
    pm.register(importlib.import_module("arena.rules.builtin"), name=BUILTIN)
    pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    return pm


@functools.cache
def variants() -> dict[str, Variant]:
    """Every registered variant by name (built-ins first, in registration order)."""
    found: dict[str, Variant] = {}
    for batch in reversed(plugin_manager().hook.arena_variants()):
        for variant in batch:
            if variant.name in found:
                raise RulesError(f"two plugins register a variant named {variant.name!r}")
            found[variant.name] = variant
    return found


def get_variant(name: str) -> Variant:
    """The variant called ``name``; :class:`UnknownVariantError` lists the known ones."""
    try:
        return variants()[name]
    except KeyError:
        known = ", ".join(variants())
        raise UnknownVariantError(f"unknown variant {name!r}; known variants: {known}") from None
