"""The variant registry: built-in presets, unknown names, third-party plugins."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
import types

import pytest

from arena.rules import RulesError, Variant, get_variant, hookimpl, variants
from arena.rules.registry import ENTRY_POINT_GROUP, UnknownVariantError, plugin_manager

BUILTIN_NAMES = [
    "scat",
    "scat-trips",
    "dollar-bill",
    "eenendertigen",
    "california-quick",
    "west-lansing",
    "no-elimination",
    "banking",
    "schwimmen",
    "stop-the-bus",
    "switch",
    "fifty-one",
    "fifty-one-chinese",
    "empat-satu",
    "skat",
]
SEATS = {"empat-satu": (2, 8), "skat": (3, 4)}
"""Seat counts of the variants that do not take the usual 2 to 9 (docs/RULES.md 1)."""


def test_variants_lists_the_eight_presets() -> None:
    names = list(variants())
    assert sorted(names) == sorted(BUILTIN_NAMES)
    assert names == BUILTIN_NAMES  # built-ins first, in registration order
    for name, variant in variants().items():
        assert isinstance(variant, Variant)
        assert variant.name == name
        assert variant.description
        assert (variant.min_players, variant.max_players) == SEATS.get(name, (2, 9))


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_get_variant_returns_the_registered_object(name: str) -> None:
    variant = get_variant(name)
    assert variant is variants()[name]
    assert variant.name == name
    state = variant.new_match(3, seed=1)
    assert state.variant is variant


def test_unknown_variant_names_the_known_ones() -> None:
    with pytest.raises(UnknownVariantError) as info:
        get_variant("scat-deluxe")
    message = str(info.value)
    assert "scat-deluxe" in message
    for name in BUILTIN_NAMES:
        assert name in message
    assert isinstance(info.value, RulesError)


def test_unknown_variant_is_case_sensitive() -> None:
    with pytest.raises(UnknownVariantError):
        get_variant("SCAT")


class FiveLivesPlugin:
    """A third-party plugin adding one variant through the arena_variants hook."""

    @hookimpl
    def arena_variants(self) -> list[Variant]:
        scat = get_variant("scat")
        return [Variant("scat-five-lives", scat.family, "Scat with five lives", {"lives": 5})]


def test_third_party_plugin_through_the_hook() -> None:
    pm = plugin_manager()
    before = [v.name for batch in pm.hook.arena_variants() for v in batch]
    assert "scat-five-lives" not in before
    assert set(BUILTIN_NAMES) <= set(before)
    pm.register(FiveLivesPlugin(), name="five-lives")
    batches = pm.hook.arena_variants()
    found = {v.name: v for batch in batches for v in batch}
    assert "scat-five-lives" in found
    assert set(BUILTIN_NAMES) <= set(found)
    five = found["scat-five-lives"]
    assert five.defaults()["lives"] == 5
    state = five.new_match(3, seed=11)
    assert state.observe(0)["lives"] == (5, 5, 5)
    assert list(state.standing) == [5, 5, 5]
    # the global registry is not affected by a private plugin manager
    assert "scat-five-lives" not in variants()


def test_plugin_module_with_a_hookimpl_function() -> None:
    module = types.ModuleType("thirty_one_test_plugin")

    @hookimpl
    def arena_variants() -> list[Variant]:
        return [Variant("scat-one-life", get_variant("scat").family, "Scat with one life", {"lives": 1})]

    module.arena_variants = arena_variants  # type: ignore[attr-defined]
    pm = plugin_manager()
    pm.register(module)
    names = [v.name for batch in pm.hook.arena_variants() for v in batch]
    assert "scat-one-life" in names
    assert names.count("scat") == 1  # the built-ins are registered once, not once per source


def test_builtins_registered_once_by_the_plugin_manager() -> None:
    pm = plugin_manager()
    names = [v.name for batch in pm.hook.arena_variants() for v in batch]
    for name in BUILTIN_NAMES:
        assert names.count(name) == 1


def test_entry_point_group_declares_the_builtins() -> None:
    assert ENTRY_POINT_GROUP == "arena.variants"
    eps = importlib.metadata.entry_points(group="arena.variants")
    by_name = {ep.name: ep for ep in eps}
    assert "builtin" in by_name
    assert by_name["builtin"].value == "arena.rules.builtin"
    module = by_name["builtin"].load()
    assert module is importlib.import_module("arena.rules.builtin")
    assert [v.name for v in module.arena_variants()] == BUILTIN_NAMES
    assert "arena.rules.builtin" in sys.modules
