"""The schedule: which tables meet, in which seatings, on which deals.

Round-robin: for each variant and table size, every combination of entrants sits at a
table.  Gauntlet: the challenger sits at every table, with every combination of the
rest of the field.  At each table every deal is played in every seat rotation
(**duplicate deals**): the same deck seed is replayed with each bot in each seat, so
card luck cancels out.  Deals depend only on the tournament seed, the variant and the
table size, so every table of that variant and size sees the same cards.

Match ids are a pure function of the tournament, its seed, the variant and its options,
the table size, the bots' versions, the deal and the rotation, so a resumed run
recognises the matches already stored, and adding an entrant only adds matches.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from arena.cards import derive_seed
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import VersionRow

__all__ = ["MatchSpec", "Table", "deal_seed", "plays", "schedule"]


@dataclass(frozen=True)
class MatchSpec:
    """One match to play: its id, place in the schedule, deal and seating."""

    id: str
    seq: int
    seed: int
    seats: tuple[int, ...]
    """For each seat, the index of its bot in :attr:`Table.versions`."""


@dataclass(frozen=True)
class Table:
    """Bots that play a run of matches together (one set of bot processes for all of them)."""

    id: str
    variant: str
    options: dict[str, Any]
    versions: tuple[VersionRow, ...]
    matches: tuple[MatchSpec, ...]

    def remaining(self, finished: set[str]) -> Table:
        """This table without the matches already stored."""
        return Table(self.id, self.variant, self.options, self.versions,
                     tuple(m for m in self.matches if m.id not in finished))


def deal_seed(base: int, variant: str, players: int, deal: int) -> int:
    """The seed of deal ``deal`` for every table of ``variant`` with ``players`` seats
    (63 bits: it is stored as a signed SQLite integer)."""
    return derive_seed(base, zlib.crc32(variant.encode()), players, deal) >> 1


def _tables_of(size: int, field: Sequence[VersionRow], challenger: VersionRow | None) -> list[tuple[VersionRow, ...]]:
    if challenger is None:
        return list(combinations(field, size))
    others = [v for v in field if v.id != challenger.id]
    return [(challenger, *rest) for rest in combinations(others, size - 1)]


def plays(version: VersionRow, variant: str) -> bool:
    """Whether a bot version's manifest says it plays ``variant``."""
    claimed = version.manifest.get("variants", ["*"])
    return "*" in claimed or variant in claimed


def schedule(spec: TournamentSpec, entrants: Sequence[VersionRow], challenger: VersionRow | None = None) -> list[Table]:
    """Every table of the tournament with its matches, in schedule order.  A bot meets
    the others only in the variants its manifest says it plays."""
    everyone = sorted(entrants, key=lambda v: (v.bot, v.hash))
    tables: list[Table] = []
    seq = 0
    for plan in spec.variants:
        name = plan.variant.name
        field = [v for v in everyone if plays(v, name)]
        if challenger is not None and not plays(challenger, name):
            continue
        for size in plan.tables:
            for group in _tables_of(size, field, challenger):
                who = " ".join(f"{v.bot}:{v.hash}" for v in group)
                what = f"{who} {json.dumps(plan.options, sort_keys=True)} {spec.seed}"  # other deals: other matches
                key = hashlib.sha1(what.encode()).hexdigest()[:8]
                table_id = f"{spec.name}-{name}-{size}p-{key}"
                matches = []
                for deal in range(spec.deals):
                    seed = deal_seed(spec.seed, name, size, deal)
                    for rotation in range(size):
                        seats = tuple((seat + rotation) % size for seat in range(size))
                        matches.append(MatchSpec(f"{table_id}-d{deal}r{rotation}", seq, seed, seats))
                        seq += 1
                tables.append(Table(table_id, name, plan.options, group, tuple(matches)))
    return tables
