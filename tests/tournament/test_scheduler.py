"""The schedule: round-robin and gauntlet tables, seat rotations, duplicate deals from the
tournament's secret key, process generations, ids."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from math import comb

from arena.deals import deal_key, opaque_id
from arena.tournament.scheduler import Table, schedule
from arena.tournament.spec import TournamentSpec, parse_spec
from arena.tournament.store import VersionRow


def version(i: int, bot: str | None = None, variants: tuple[str, ...] = ("*",)) -> VersionRow:
    return VersionRow(i, bot or f"bot{i}", f"{i:02x}" * 32, f"bot{i}@1", None, {"variants": list(variants)}, 0.0, None)


def spec(variants: str = '[[variant]]\nname = "scat"\ntables = [2, 3]\n', **top: object) -> TournamentSpec:
    lines = [f"{key} = {value!r}".replace("'", '"') for key, value in top.items()]
    return parse_spec("\n".join([*lines, variants]))


KEY = bytes(range(32))


def ids(tables: list[Table]) -> list[str]:
    return [m.id for t in tables for m in t.matches]


def test_round_robin_seats_every_combination_in_every_rotation_of_every_deal() -> None:
    field = [version(i) for i in range(4)]
    tables = schedule(spec(deals=3), field, KEY)
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
    tables = schedule(spec(deals=2), [version(i) for i in range(4)], KEY)
    seeds: dict[tuple[int, int], set[bytes]] = {}
    for table in tables:
        for match in table.matches:
            assert match.id.endswith(f"-d{match.deal}r{match.generation}")
            seeds.setdefault((len(table.versions), match.deal), set()).add(match.seed)
    assert all(len(found) == 1 for found in seeds.values())
    assert len({s for found in seeds.values() for s in found}) == len(seeds) == 4
    assert seeds[(2, 0)] == {deal_key(KEY, "scat", 2, 0)}
    assert deal_key(KEY, "scat", 2, 0) != deal_key(bytes(32), "scat", 2, 0) != deal_key(KEY, "eenendertigen", 2, 0)
    assert all(len(s) == 32 for found in seeds.values() for s in found)


def test_each_rotation_is_a_generation_that_sees_each_deal_once() -> None:
    """Rotation 0 of every deal, then rotation 1 of every deal...: a generation of bot
    processes plays one rotation, so no process sees a deal twice."""
    for table in schedule(spec(deals=3), [version(i) for i in range(3)], KEY):
        generations = [m.generation for m in table.matches]
        assert generations == sorted(generations)
        for generation in set(generations):
            deals = [m.deal for m in table.matches if m.generation == generation]
            assert deals == [0, 1, 2]
            assert len({m.seats for m in table.matches if m.generation == generation}) == 1


def test_bots_are_told_an_opaque_id() -> None:
    tables = schedule(spec(deals=2), [version(i) for i in range(3)], KEY)
    told = [m.public_id for t in tables for m in t.matches]
    assert len(set(told)) == len(told)
    for table in tables:
        for match in table.matches:
            assert match.public_id == opaque_id(KEY, match.id)
            assert len(match.public_id) == 16 and int(match.public_id, 16) >= 0
            assert "scat" not in match.public_id and table.id not in match.public_id
    again = schedule(spec(deals=2), [version(i) for i in range(3)], KEY)
    assert [m.public_id for t in again for m in t.matches] == told  # a resumed run tells the same ids
    other = schedule(spec(deals=2), [version(i) for i in range(3)], bytes(32))
    assert not set(told) & {m.public_id for t in other for m in t.matches}


def test_ids_are_deterministic_and_adding_an_entrant_only_adds_matches() -> None:
    three = [version(i) for i in range(3)]
    first = ids(schedule(spec(), three, KEY))
    assert first == ids(schedule(spec(), list(reversed(three)), KEY))
    assert all(i.startswith("tournament-scat-") for i in first)
    more = ids(schedule(spec(), [*three, version(3)], KEY))
    assert set(first) < set(more)
    renamed = ids(schedule(spec(name="cup"), three, KEY))
    assert not set(first) & set(renamed)


def test_gauntlet_puts_the_challenger_at_every_table() -> None:
    field = [version(i) for i in range(5)]
    tables = schedule(spec(deals=1), field, KEY, challenger=field[2])
    assert len(tables) == comb(4, 1) + comb(4, 2)
    assert all(field[2] in t.versions for t in tables)
    assert Counter(len(t.versions) for t in tables) == {2: 4, 3: 6}


def test_bots_meet_only_in_the_variants_they_play() -> None:
    variants = '[[variant]]\nname = "scat"\ntables = [2]\n[[variant]]\nname = "eenendertigen"\ntables = [2]\n'
    field = [version(0), version(1), version(2, variants=("scat",))]
    tables = schedule(spec(variants), field, KEY)
    assert sorted((t.variant, len(t.versions)) for t in tables) == [("eenendertigen", 2)] + [("scat", 2)] * 3
    assert all(version(2, variants=("scat",)) not in t.versions for t in tables if t.variant == "eenendertigen")
    assert [t.variant for t in schedule(spec(variants), field, KEY, challenger=field[2])] == ["scat", "scat"]


def test_remaining_leaves_out_the_stored_matches() -> None:
    table = schedule(spec(deals=2), [version(0), version(1)], KEY)[0]
    done = {table.matches[0].id, table.matches[3].id}
    rest = table.remaining(done)
    assert [m.id for m in rest.matches] == [m.id for m in table.matches if m.id not in done]
    assert (rest.id, rest.versions) == (table.id, table.versions)
