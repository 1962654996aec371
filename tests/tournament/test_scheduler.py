"""The schedule: round-robin and gauntlet tables, seat rotations, duplicate deals from the
tournament's secret key, process generations, ids."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from math import comb

import pytest

from arena.deals import deal_key, opaque_id
from arena.tournament.scheduler import Table, authors_apart, schedule
from arena.tournament.spec import SpecError, TournamentSpec, parse_spec
from arena.tournament.store import VersionRow


def version(i: int, bot: str | None = None, variants: tuple[str, ...] = ("*",),
            author: str | None = None) -> VersionRow:
    manifest: dict[str, object] = {"variants": list(variants)}
    if author is not None:
        manifest["author"] = author
    return VersionRow(i, bot or f"bot{i}", f"{i:02x}" * 32, f"bot{i}@1", None, manifest, 0.0, None)


def spec(variants: str = '[[variant]]\nname = "scat"\ntables = [2, 3]\n', **top: object) -> TournamentSpec:
    lines = [f"{key} = {json.dumps(value)}" for key, value in top.items()]
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


# -- authors apart ------------------------------------------------------------------------------


def authored(*authors: str | None) -> list[VersionRow]:
    """One bot per author given (None: a bot whose manifest names none)."""
    return [version(i, author=author) for i, author in enumerate(authors)]


def groups(tables: list[Table]) -> set[frozenset[int]]:
    return {frozenset(v.id for v in t.versions) for t in tables}


def test_with_authors_apart_no_table_seats_two_bots_of_one_author() -> None:
    """Case and surrounding whitespace are folded: 'Ann', ' ann ' and 'ANN' are one author."""
    field = authored("Ann", " ann ", "Bea", "bea", "ANN", "Cy")
    ann, bea = {0, 1, 4}, {2, 3}
    tables = schedule(spec(deals=1), field, KEY)
    apart = {frozenset(c) for k in (2, 3) for c in combinations(range(6), k)
             if len(set(c) & ann) <= 1 and len(set(c) & bea) <= 1}
    assert groups(tables) == apart  # every other table is still played
    everything = schedule(spec(deals=1, authors_apart=False), field, KEY)
    assert set(ids(tables)) < set(ids(everything))  # the same ids: a kept table is the same table
    assert ids(tables) == ids(schedule(spec(deals=1), list(reversed(field)), KEY))
    assert [m.seq for t in tables for m in t.matches] == list(range(len(ids(tables))))


def test_authors_apart_is_on_when_the_entrants_have_several_authors_and_off_when_one() -> None:
    assert authors_apart(spec(), authored("Ann", "Bea"))
    assert authors_apart(spec(), authored("Ann", None))
    assert not authors_apart(spec(), authored("Ann", "ann ", " ANN"))
    same = authored("Thirty-One Arena", "Thirty-One Arena", "thirty-one arena", "Thirty-One Arena")
    assert len(schedule(spec(), same, KEY)) == comb(4, 2) + comb(4, 3)  # nothing to keep apart from
    assert not authors_apart(spec(authors_apart=False), authored("Ann", "Bea"))
    assert authors_apart(spec(authors_apart=True), authored("Ann", "Bea"))


def test_authors_apart_false_restores_the_full_round_robin() -> None:
    field = authored("Ann", "Ann", "Bea", "Bea")
    full = schedule(spec(authors_apart=False), field, KEY)
    assert groups(full) == {frozenset(c) for k in (2, 3) for c in combinations(range(4), k)}
    assert groups(schedule(spec('[[variant]]\nname = "scat"\ntables = [2]\n'), field, KEY)) == {
        frozenset({0, 2}), frozenset({0, 3}), frozenset({1, 2}), frozenset({1, 3})}


def test_bots_without_an_author_are_each_their_own_author() -> None:
    field = [version(0), version(1), version(2, author="Ann")]
    assert groups(schedule(spec(), field, KEY)) == {frozenset(c) for k in (2, 3) for c in combinations(range(3), k)}
    twice = [version(0, bot="mine"), version(1, bot="mine"), version(2, author="Ann")]  # two versions of one bot
    assert groups(schedule(spec('[[variant]]\nname = "scat"\ntables = [2]\n'), twice, KEY)) == {
        frozenset({0, 2}), frozenset({1, 2})}


def test_a_table_size_no_group_of_different_authors_fills_is_refused_naming_the_authors() -> None:
    field = [version(0, "ann-1", author="Ann"), version(1, "ann-2", author="ann"), version(2, "bea", author="Bea")]
    with pytest.raises(SpecError) as caught:
        schedule(spec(), field, KEY)  # tables of 3, but the field has 2 authors
    message = str(caught.value)
    assert message.startswith("<tournament>:")
    assert "scat for 3" in message and "2 authors" in message
    assert "'Ann' (ann-1, ann-2)" in message and "'Bea' (bea)" in message and "authors_apart = false" in message
    assert schedule(spec(authors_apart=False), field, KEY)  # or play them together on purpose
    with pytest.raises(SpecError, match="a table of scat for 2 needs 2 bots of different authors.* 1 author"):
        schedule(spec('[[variant]]\nname = "scat"\ntables = [2]\n', authors_apart=True), field[:2], KEY)


def test_gauntlet_keeps_the_challengers_author_apart_and_refuses_a_bot_it_could_never_meet() -> None:
    field = [version(0, author="Ann"), version(1, author="Bea"), version(2, author="Bea"), version(3, author="Cy")]
    tables = schedule(spec(), field, KEY, challenger=field[0])
    assert groups(tables) == {frozenset(g) for g in ({0, 1}, {0, 2}, {0, 3}, {0, 1, 3}, {0, 2, 3})}
    twin = [*field, version(4, "ann-2", author=" ann")]
    with pytest.raises(SpecError, match=r"^<tournament>:1: .*challenger bot0 with ann-2, by the same author: "
                                         r"'Ann' \(bot0, ann-2\)"):
        schedule(spec(), twin, KEY, challenger=field[0])
    assert len(schedule(spec(authors_apart=False), twin, KEY, challenger=field[0])) == comb(4, 1) + comb(4, 2)
