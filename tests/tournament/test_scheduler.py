"""The schedule: round-robin and gauntlet tables, seat rotations, duplicate deals, ids."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from math import comb

from arena.tournament.scheduler import Table, deal_seed, schedule
from arena.tournament.spec import TournamentSpec, parse_spec
from arena.tournament.store import VersionRow


def version(i: int, bot: str | None = None, variants: tuple[str, ...] = ("*",)) -> VersionRow:
    return VersionRow(i, bot or f"bot{i}", f"{i:02x}" * 32, f"bot{i}@1", None, {"variants": list(variants)}, 0.0, None)


def spec(variants: str = '[[variant]]\nname = "scat"\ntables = [2, 3]\n', **top: object) -> TournamentSpec:
    lines = [f"{key} = {value!r}".replace("'", '"') for key, value in top.items()]
    return parse_spec("\n".join([*lines, variants]))


def ids(tables: list[Table]) -> list[str]:
    return [m.id for t in tables for m in t.matches]


def test_round_robin_seats_every_combination_in_every_rotation_of_every_deal() -> None:
    field = [version(i) for i in range(4)]
    tables = schedule(spec(deals=3), field)
    assert len(tables) == comb(4, 2) + comb(4, 3)
    assert {frozenset(v.id for v in t.versions) for t in tables} == {
        frozenset(c) for k in (2, 3) for c in combinations(range(4), k)}
    assert len(ids(tables)) == len(set(ids(tables))) == comb(4, 2) * 3 * 2 + comb(4, 3) * 3 * 3
    assert [m.seq for t in tables for m in t.matches] == list(range(len(ids(tables))))
    for table in tables:
        size = len(table.versions)
        for deal in range(3):
            rotations = [m for m in table.matches if m.id.startswith(f"{table.id}-d{deal}r")]
            assert len(rotations) == size
            for seat in range(size):  # each bot in each seat once per deal
                assert sorted(m.seats[seat] for m in rotations) == list(range(size))
            assert all(sorted(m.seats) == list(range(size)) for m in rotations)


def test_deals_are_duplicated_across_rotations_and_tables_and_differ_otherwise() -> None:
    tables = schedule(spec(deals=2, seed=11), [version(i) for i in range(4)])
    seeds: dict[tuple[int, int], set[int]] = {}
    for table in tables:
        for match in table.matches:
            deal = int(match.id.rsplit("-d", 1)[1].split("r")[0])
            seeds.setdefault((len(table.versions), deal), set()).add(match.seed)
    assert all(len(found) == 1 for found in seeds.values())
    assert len({s for found in seeds.values() for s in found}) == len(seeds) == 4
    assert seeds[(2, 0)] == {deal_seed(11, "scat", 2, 0)}
    assert deal_seed(11, "scat", 2, 0) != deal_seed(12, "scat", 2, 0) != deal_seed(11, "eenendertigen", 2, 0)
    assert all(0 <= s < 2**63 for found in seeds.values() for s in found)  # fits SQLite's signed integer


def test_ids_are_deterministic_and_adding_an_entrant_only_adds_matches() -> None:
    three = [version(i) for i in range(3)]
    first = ids(schedule(spec(), three))
    assert first == ids(schedule(spec(), list(reversed(three))))
    assert all(i.startswith("tournament-scat-") for i in first)
    more = ids(schedule(spec(), [*three, version(3)]))
    assert set(first) < set(more)
    renamed = ids(schedule(spec(name="cup"), three))
    assert not set(first) & set(renamed)


def test_gauntlet_puts_the_challenger_at_every_table() -> None:
    field = [version(i) for i in range(5)]
    tables = schedule(spec(deals=1), field, challenger=field[2])
    assert len(tables) == comb(4, 1) + comb(4, 2)
    assert all(field[2] in t.versions for t in tables)
    assert Counter(len(t.versions) for t in tables) == {2: 4, 3: 6}


def test_bots_meet_only_in_the_variants_they_play() -> None:
    variants = '[[variant]]\nname = "scat"\ntables = [2]\n[[variant]]\nname = "eenendertigen"\ntables = [2]\n'
    field = [version(0), version(1), version(2, variants=("scat",))]
    tables = schedule(spec(variants), field)
    assert sorted((t.variant, len(t.versions)) for t in tables) == [("eenendertigen", 2)] + [("scat", 2)] * 3
    assert all(version(2, variants=("scat",)) not in t.versions for t in tables if t.variant == "eenendertigen")
    assert [t.variant for t in schedule(spec(variants), field, challenger=field[2])] == ["scat", "scat"]


def test_remaining_leaves_out_the_stored_matches() -> None:
    table = schedule(spec(deals=2), [version(0), version(1)])[0]
    done = {table.matches[0].id, table.matches[3].id}
    rest = table.remaining(done)
    assert [m.id for m in rest.matches] == [m.id for m in table.matches if m.id not in done]
    assert (rest.id, rest.versions) == (table.id, table.versions)
