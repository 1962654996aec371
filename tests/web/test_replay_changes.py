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
