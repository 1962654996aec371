"""What the play page offers (variants, bots) and the table a visitor's choice makes.

A visitor names bots only from the list offered: the bundled bots and the registered ones
(never a folder, which would run any code on the machine).  The chosen table is checked
and registered as ``arena play`` does it (:mod:`arena.human.record`): the bots as
tournament entrants, the person as ``@NAME``, the deal from the ``play`` key or a
public seed.  This is the only part of the web app that writes the database, and it
writes only what ``arena play`` writes.
"""

from __future__ import annotations

import getpass
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.botspec import BOTS_DIR, load_manifest
from arena.human.match import Table, take_seats
from arena.human.record import PlayError, check_person
from arena.rules import get_variant, parse_option_pairs, variants
from arena.tournament.registry import bundled_names
from arena.tournament.store import VersionRow
from arena.web.readonly import ReadOnlyStore

__all__ = ["offered", "seat_seconds", "seat_table"]


def _login() -> str:
    try:
        return check_person(getpass.getuser())
    except (KeyError, OSError, PlayError):
        return "player"


def _bots(store: ReadOnlyStore) -> list[dict[str, Any]]:
    """The bots a visitor may seat: bundled ones first, then the registered ones (newest
    version, people and withdrawn bots left out)."""
    bundled = sorted(bundled_names())
    found = []
    for name in bundled:
        manifest = load_manifest(BOTS_DIR / name)
        found.append({"name": name, "variants": list(manifest.variants), "description": manifest.description,
                      "bundled": True})
    latest: dict[str, VersionRow] = {}
    for version in store.versions():
        if not version.bot.startswith("@") and version.bot not in bundled:
            latest[version.bot] = version
    for name, version in sorted(latest.items()):
        found.append({"name": name, "variants": [str(v) for v in version.manifest.get("variants") or []],
                      "description": str(version.manifest.get("description", "")), "bundled": False})
    return found


def offered(store: ReadOnlyStore, longest_s: int) -> dict[str, Any]:
    """The play form's choices: every variant (its table sizes and option defaults), the
    bots, a default name, and the longest time per decision the server allows."""
    shown = [{"name": name, "description": variant.description, "min": variant.min_players,
              "max": variant.max_players, "options": variant.defaults_text()}
             for name, variant in variants().items()]
    return {"variants": shown, "bots": _bots(store), "name": _login(), "longest": longest_s}


def seat_seconds(choice: Mapping[str, Any], longest_s: int) -> int:
    """The person's time per decision the form asks for (seconds; none asked: the server's
    longest, ``longest_s``); :class:`PlayError` past it or below one second."""
    seconds = _number(choice, "seconds")
    if seconds is None:
        return longest_s
    if not 1 <= seconds <= longest_s:
        raise PlayError(f"seconds per decision: 1 to {longest_s} on this server, not {seconds}")
    return seconds


def _text(choice: Mapping[str, Any], key: str) -> str:
    value = choice.get(key, "")
    if not isinstance(value, str):
        raise PlayError(f"{key}: expected text")
    return value.strip()


def _number(choice: Mapping[str, Any], key: str) -> int | None:
    value = choice.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) <= 20:
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64:
        return value
    raise PlayError(f"{key}: expected a whole number from 0 to 2^64 - 1, not {str(value)[:40]!r}")


def seat_table(db: Path, choice: Mapping[str, Any]) -> Table:
    """The table the play form's ``choice`` asks for (variant, bots, seat, name, options,
    seed), checked, its bots registered; :class:`PlayError` (or another ArenaError) says
    what is wrong."""
    person = check_person(_text(choice, "name") or "player")
    game = get_variant(_text(choice, "variant"))
    refs = choice.get("bots")
    if not isinstance(refs, list) or not refs or not all(isinstance(r, str) for r in refs):
        raise PlayError("choose a bot for each other seat")
    with ReadOnlyStore(db) as reading:
        allowed = {b["name"] for b in _bots(reading)}
    unknown = [r for r in refs if r not in allowed]
    if unknown:
        raise PlayError(f"unknown bot {unknown[0]!r}: choose one of the bots offered")
    bots: Sequence[str] = refs
    players = len(bots) + 1
    game.check_players(players)
    seat = _number(choice, "seat") or 0
    if not 0 <= seat < players:
        raise PlayError(f"seat {seat}: at a table of {players} the seats are 0 to {players - 1}")
    options = parse_option_pairs(_text(choice, "options").replace(",", " ").split())
    game.resolve(options)  # refuse bad options before anything starts
    return take_seats(db, game, options, seat, person, bots, _number(choice, "seed"), None)
