"""What the replay sends of each seat's view: only what changed since that seat's last step."""

from __future__ import annotations

from arena.web.replay import REMOVED, SEATS, _Seen


def test_only_changed_fields_are_sent_and_removed_ones_are_named() -> None:
    seen = _Seen(1)
    assert seen.changes([{"hand": ("Ah", "Kh"), "scores": {0: 1, 1: 2}}]) == [
        {"hand": ["Ah", "Kh"], "scores": {SEATS: [["0", 1], ["1", 2]]}}]
    assert seen.changes([{"hand": ["Ah", "Kh"], "scores": {0: 1, 1: 3}}]) == [
        {"scores": {SEATS: [["0", 1], ["1", 3]]}}]  # a tuple and its list are the same field
    assert seen.changes([{"hand": ["Ah", "Kh"]}]) == [{REMOVED: ["scores"]}]


def test_a_field_msgspec_cannot_write_is_still_compared() -> None:
    seen = _Seen(1)
    assert seen.changes([{"flags": {True: 1}}]) == [{"flags": {"true": 1}}]
    assert seen.changes([{"flags": {True: 1}}]) == [{}]
    assert seen.changes([{"flags": {True: 2}}]) == [{"flags": {"true": 2}}]


def test_a_single_value_written_differently_counts_as_changed() -> None:
    seen = _Seen(1)
    assert seen.changes([{"score": 1, "knocker": None, "out": False}]) == [{"score": 1, "knocker": None, "out": False}]
    assert seen.changes([{"score": 1, "knocker": None, "out": False}]) == [{}]
    # Equal in Python, but JSON writes them otherwise: each is sent again.
    changed = seen.changes([{"score": 1.0, "knocker": None, "out": 0}])[0]
    assert changed == {"score": 1.0, "out": 0} and type(changed["score"]) is float and type(changed["out"]) is int
    assert seen.changes([{"score": 1.0, "knocker": [], "out": 0}]) == [{"knocker": []}]  # a value becomes a list
    assert seen.changes([{"score": 1.0, "knocker": None, "out": 0}]) == [{"knocker": None}]  # and back


def test_a_field_holding_a_lone_surrogate_is_still_compared() -> None:
    seen = _Seen(1)
    assert seen.changes([{"names": ["\ud800"]}]) == [{"names": ["\ud800"]}]
    assert seen.changes([{"names": ["\ud800"]}]) == [{}]
