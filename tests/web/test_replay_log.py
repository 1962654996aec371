"""The replay plays a stored match again and shows each seat's view only where the engine's
log comes out equal to the stored one, however that log was written."""

from __future__ import annotations

import dataclasses
import json
import random
import zlib
from pathlib import Path
from typing import Any

from played import clearing_fifty_one

from arena.rules import get_variant
from arena.tournament.logs import compress_log
from arena.tournament.store import MatchRecord, SeatRecord, Store
from arena.web.readonly import ReadOnlyStore
from arena.web.replay import _same_text, replay_steps


def _played(seed: int) -> list[dict[str, Any]]:
    """The full log of a Scat match played in the engine with random legal actions."""
    state = get_variant("scat").new_match(3, seed=seed)
    choose = random.Random(seed)
    while not state.is_over:
        state.apply(choose.choice(state.legal_actions()))
    return [event.full() for event in state.log]


def _record(seed: int, log: bytes) -> MatchRecord:
    seats = tuple(SeatRecord(version=1, placement=1, score=0.0) for _ in range(3))
    return MatchRecord(id="m", tournament="t", seq=0, variant="scat", options={}, seed=seed, seats=seats,
                       reason="", rounds=1, decisions=1, log=log)


def _replay(tmp_path: Path, seed: int, log: bytes) -> dict[str, Any]:
    Store(tmp_path / "arena.db").close()
    with ReadOnlyStore(tmp_path / "arena.db") as store:
        return replay_steps(store, _record(seed, log))


def test_a_log_as_the_arena_stores_it_is_replayed_with_every_view(tmp_path: Path) -> None:
    steps = _replay(tmp_path, 7, compress_log(_played(7)))
    assert steps["observed"] and steps["note"] is None
    assert all(step["o"] is not None for step in steps["steps"])


def test_a_log_written_by_another_encoder_is_compared_by_its_values(tmp_path: Path) -> None:
    # The standard library's JSON (spaces after separators): other bytes, the same events.
    log = zlib.compress(json.dumps(_played(8)).encode())
    assert log != compress_log(_played(8))
    steps = _replay(tmp_path, 8, log)
    assert steps["observed"] and steps["note"] is None


def test_a_log_the_engine_does_not_play_the_same_way_shows_the_log_alone(tmp_path: Path) -> None:
    events = _played(9)
    drawn = next(e for e in events if e.get("action") == "draw")
    seat = str(drawn["seat"])
    card = drawn["private"][seat]["card"]
    drawn["private"][seat]["card"] = "2c" if card != "2c" else "3c"  # the stored log says another card came
    steps = _replay(tmp_path, 9, compress_log(events))
    assert not steps["observed"] and "differently now" in steps["note"]
    assert all(step["o"] is None for step in steps["steps"])


def test_the_stored_text_is_recognised_byte_for_byte_and_another_encoders_is_not() -> None:
    played = _played(10)
    assert _same_text(played, compress_log(played))
    assert not _same_text(played, zlib.compress(json.dumps(played).encode()))
    assert not _same_text(played[:-1], compress_log(played))


def test_a_reshuffle_logged_before_the_clear_that_caused_it_is_replayed(tmp_path: Path) -> None:
    """Fifty-One logs the reshuffle of a short stock before the clear that needed it: the
    replay applies the clear there (it showed the log alone before)."""
    events = clearing_fifty_one(0)
    assert any(e["event"] == "reshuffle" for e in events)
    record = dataclasses.replace(_record(0, compress_log(events)), variant="fifty-one")
    Store(tmp_path / "arena.db").close()
    with ReadOnlyStore(tmp_path / "arena.db") as store:
        steps = replay_steps(store, record)
    assert steps["observed"] and steps["note"] is None
