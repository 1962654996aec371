"""A variant from a rules plugin has no luck estimate: every verdict asked to take the luck
out refuses in one line instead of quietly judging raw scores, and `arena table --luck`
says which scores stay raw.  The plugin is a real installed distribution found through
its entry point, as a third-party package is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import arena, copy_bot, scratch, tournament_file

from arena.botspec import BOTS_DIR
from arena.web import pages
from arena.web.readonly import ReadOnlyStore
from arena.web.render import render

PLUGIN = '''"""Scat's rules under a family of the house's own."""
from arena.rules import Variant, hookimpl
from arena.rules.thirty_one import ThirtyOneFamily


class HouseFamily(ThirtyOneFamily):
    name = "house-thirty-one"


@hookimpl
def arena_variants() -> list[Variant]:
    return [Variant("house-scat", HouseFamily(), "Scat by the house's rules")]
'''
NO_ESTIMATE = "house-scat has no luck estimate (its rules come from a plugin)"


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


@pytest.fixture
def plugin(home: Path) -> dict[str, str]:
    """The environment of a machine with the house's rules package installed."""
    site = home / "site"
    (site / "house_rules-1.0.dist-info").mkdir(parents=True)
    (site / "house_rules.py").write_text(PLUGIN, encoding="utf-8")
    (site / "house_rules-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: house-rules\nVersion: 1.0\n", encoding="utf-8")
    (site / "house_rules-1.0.dist-info" / "entry_points.txt").write_text(
        "[arena.variants]\nhouse = house_rules\n", encoding="utf-8")
    return {"PYTHONPATH": str(site)}


def test_the_plugin_variant_is_installed(plugin: dict[str, str]) -> None:
    listed = arena("variants", env=plugin)
    assert listed.returncode == 0 and "house-scat" in listed.stdout


def test_a_settled_tournament_on_luck_refuses_a_variant_without_an_estimate(home: Path,
                                                                          plugin: dict[str, str]) -> None:
    path = tournament_file(home, "house", ["random", "node-random"], (("house-scat", (2,)),), deals=2,
                           extra="[settle]\nluck = true")
    done = arena("run", path, "--db", home / "arena.db", "-q", env=plugin)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{NO_ESTIMATE}: settle without luck" in done.stderr
    assert not (home / "arena.db").exists(), "refused before anything is stored"


@pytest.mark.parametrize(
    ("command", "advice"),
    [(("league", "-v", "house-scat", "--settle", "0.95", "--luck"), "settle the league without --luck"),
     (("test", "random", "node-random", "-v", "house-scat", "--luck"), "test it without --luck")],
)
def test_a_league_or_a_test_on_luck_refuses_a_variant_without_an_estimate(
        home: Path, plugin: dict[str, str], command: tuple[str, ...], advice: str) -> None:
    done = arena(*command, "--db", home / "arena.db", "-q", env=plugin)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{NO_ESTIMATE}: {advice}" in done.stderr
    assert not (home / "arena.db").exists(), "refused before anything is stored"


def test_the_table_on_luck_names_the_variants_whose_scores_stay_raw(home: Path, plugin: dict[str, str]) -> None:
    twin = copy_bot(BOTS_DIR / "random", home / "twin", name="twin")
    path = tournament_file(home, "house", ["random", twin], (("house-scat", (2,)), ("scat", (2,))), deals=2)
    db = home / "arena.db"
    played = arena("run", path, "--db", db, "-q", env=plugin)
    assert played.returncode == 0, played.stderr
    adjusted = arena("table", "--db", db, "--luck", env=plugin)
    assert adjusted.returncode == 0, adjusted.stderr
    assert f"{NO_ESTIMATE}: its matches count with their raw scores." in adjusted.stdout
    assert "scat has no luck estimate" not in adjusted.stdout.replace("house-scat", "")
    scat_only = arena("table", "--db", db, "--luck", "-v", "scat", env=plugin)
    assert scat_only.returncode == 0 and "no luck estimate" not in scat_only.stdout, scat_only.stdout
    plain = arena("table", "--db", db, env=plugin)
    assert plain.returncode == 0 and "no luck estimate" not in plain.stdout
    with ReadOnlyStore(db) as store:  # the page with the luck taken out says the same
        adjusted_page = render(pages.tournament(store, "house", luck=True), relative=False)
        as_played = render(pages.tournament(store, "house"), relative=False)
    assert f"{NO_ESTIMATE}: its matches count with their raw scores." in adjusted_page
    assert "no luck estimate" not in as_played
