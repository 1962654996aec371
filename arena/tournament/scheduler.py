"""The schedule: which tables meet, in which seatings, on which deals.

Round-robin: for each variant and table size, every combination of entrants sits at a
table.  Gauntlet: the challenger sits at every table, with every combination of the
rest of the field.  With **authors apart** (:func:`authors_apart`) a table never seats
two bots of one author, who could collude; the tables that would are left out.  At each
table every deal is played in every seat rotation (**duplicate deals**): the same deal
is replayed with each bot in each seat, so card luck cancels out.  Deals depend only on
the tournament's secret key, the variant and the table size (:func:`arena.deals.deal_key`),
so every table of that variant and size sees the same cards.

A table's matches come **rotation by rotation**: rotation 0 of every deal, then rotation 1
of every deal, and so on.  Each rotation is played by a fresh *generation* of bot
processes (:attr:`MatchSpec.generation`), so no bot process ever plays a deal it has seen:
a process that kept the cards of an earlier rotation in memory would know every hand.

Match ids are a pure function of the tournament, the variant and its options, the table
size, the bots' versions, the deal and the rotation, so a resumed run recognises the
matches already stored, and adding an entrant only adds matches.  Bots are told another,
opaque id (:func:`arena.deals.opaque_id`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from arena.deals import deal_key, opaque_id
from arena.text import counted
from arena.tournament.jobs import MatchSpec
from arena.tournament.spec import SpecError, TournamentSpec
from arena.tournament.store import VersionRow

__all__ = ["MatchSpec", "Table", "authors_apart", "camp", "plays", "rotation_matches", "schedule"]


@dataclass(frozen=True)
class Table:
    """Bots that play a run of matches together (one set of bot processes per generation)."""

    id: str
    variant: str
    options: dict[str, Any]
    versions: tuple[VersionRow, ...]
    matches: tuple[MatchSpec, ...]

    def remaining(self, finished: set[str]) -> Table:
        """This table without the matches already stored."""
        return Table(self.id, self.variant, self.options, self.versions,
                     tuple(m for m in self.matches if m.id not in finished))


def rotation_matches(key: bytes, prefix: str, variant: str, size: int, deals: Sequence[int], seq: int,
                     rotations: int | None = None) -> list[MatchSpec]:
    """The matches of ``deals`` at a table of ``size``, rotation by rotation, numbered
    from ``seq``: ids ``{prefix}-d{deal}r{rotation}``, each deal keyed by ``key``."""
    matches = []
    for rotation in range(size if rotations is None else rotations):
        seats = tuple((seat + rotation) % size for seat in range(size))
        for deal in deals:
            match_id = f"{prefix}-d{deal}r{rotation}"
            matches.append(MatchSpec(match_id, seq, deal_key(key, variant, size, deal), seats, deal, rotation,
                                     opaque_id(key, match_id)))
            seq += 1
    return matches


def _tables_of(size: int, field: Sequence[VersionRow], challenger: VersionRow | None) -> list[tuple[VersionRow, ...]]:
    if challenger is None:
        return list(combinations(field, size))
    others = [v for v in field if v.id != challenger.id]
    return [(challenger, *rest) for rest in combinations(others, size - 1)]


def _author(version: VersionRow) -> str:
    """The author a version's manifest names, without surrounding whitespace ('' if none)."""
    return str(version.manifest.get("author", "")).strip()


def camp(version: VersionRow) -> tuple[str, str]:
    """Whose bot ``version`` is: its author with case folded, or, if it names none, the bot
    itself (an unauthored bot is its own author, all its versions one)."""
    author = _author(version)
    return ("author", author.casefold()) if author else ("bot", version.bot)


def authors_apart(spec: TournamentSpec, entrants: Sequence[VersionRow]) -> bool:
    """Whether no table may seat two bots of one author: as the file says, else on unless
    every entrant has the same author (then no table could be filled at all)."""
    if spec.authors_apart is not None:
        return spec.authors_apart
    return len({camp(v) for v in entrants}) > 1


def _apart(group: Sequence[VersionRow]) -> bool:
    return len({camp(v) for v in group}) == len(group)


def _authors(field: Sequence[VersionRow]) -> str:
    """``'Ann' (ann-1, ann-2), mine (no author)``: the field's authors and their bots."""
    camps: dict[tuple[str, str], list[VersionRow]] = {}
    for version in field:
        camps.setdefault(camp(version), []).append(version)
    return ", ".join(f"{_author(bots[0])!r} ({', '.join(dict.fromkeys(v.bot for v in bots))})" if camp[0] == "author"
                     else f"{bots[0].bot} (no author)" for camp, bots in camps.items())


def _check_challenger(spec: TournamentSpec, everyone: Sequence[VersionRow], challenger: VersionRow) -> None:
    """SpecError if an entrant has the challenger's author: it could meet it at no table."""
    twins = [v for v in everyone if v.id != challenger.id and camp(v) == camp(challenger)]
    if twins:
        raise SpecError(f"{spec.locate('challenger')}: authors apart: no table may seat the challenger "
                        f"{challenger.bot} with {', '.join(v.bot for v in twins)}, by the same author: "
                        f"{_authors([challenger, *twins])}; leave them out of the entrants, or set "
                        "authors_apart = false to let them meet it")


def _crowded(spec: TournamentSpec, index: int, size: int, field: Sequence[VersionRow]) -> SpecError:
    """The error for a table size that no group of different authors fills."""
    name = spec.variants[index].variant.name
    authors = len({camp(v) for v in field})
    return SpecError(f"{spec.locate('variant', index, 'tables')}: authors apart: a table of {name} for {size} "
                     f"needs {size} bots of different authors: the {len(field)} entrants that play it are by "
                     f"{counted(authors, 'author')}: {_authors(field)}. Add bots by other authors, drop the table "
                     "size, or set authors_apart = false to let bots of one author share a table")


def plays(version: VersionRow, variant: str) -> bool:
    """Whether a bot version's manifest says it plays ``variant``."""
    claimed = version.manifest.get("variants", ["*"])
    return "*" in claimed or variant in claimed


def schedule(spec: TournamentSpec, entrants: Sequence[VersionRow], key: bytes,
             challenger: VersionRow | None = None) -> list[Table]:
    """Every table of the tournament with its matches, in schedule order, dealt from
    ``key``.  A bot meets the others only in the variants its manifest says it plays.
    With authors apart, :class:`SpecError` if that leaves a table size or an entrant no table."""
    everyone = sorted(entrants, key=lambda v: (v.bot, v.hash))
    apart = authors_apart(spec, [*everyone, challenger] if challenger else everyone)
    if apart and challenger is not None:
        _check_challenger(spec, everyone, challenger)
    tables: list[Table] = []
    seq = 0
    for index, plan in enumerate(spec.variants):
        name = plan.variant.name
        field = [v for v in everyone if plays(v, name)]
        if challenger is not None and not plays(challenger, name):
            continue
        for size in plan.tables:
            groups = _tables_of(size, field, challenger)
            kept = [g for g in groups if _apart(g)] if apart else groups
            if groups and not kept:  # never a table size played by no one in silence
                raise _crowded(spec, index, size, field)
            for group in kept:
                who = " ".join(f"{v.bot}:{v.hash}" for v in group)
                what = f"{who} {json.dumps(plan.options, sort_keys=True)}"
                table_id = f"{spec.name}-{name}-{size}p-{hashlib.sha1(what.encode()).hexdigest()[:8]}"
                matches = rotation_matches(key, table_id, name, size, range(spec.deals), seq)
                seq += len(matches)
                tables.append(Table(table_id, name, plan.options, group, tuple(matches)))
    return tables
