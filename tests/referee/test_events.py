"""The referee's encoding of each seat's news: exactly ``Event.view(seat)`` as JSON."""

from __future__ import annotations

import json
import random

import pytest

from arena.referee.news import News
from arena.rules import get_variant, variants


@pytest.mark.parametrize("name", variants())
def test_each_seat_is_told_its_own_view_of_every_event_once(name: str) -> None:
    variant = get_variant(name)
    for seed in range(3):
        state = variant.new_match(4, seed=seed)
        rng = random.Random(seed)
        news = News(state.log, 4)
        told: list[list[bytes]] = [[] for _ in range(4)]
        while not state.is_over:
            seat = state.to_move
            assert seat is not None
            told[seat] += news.take(seat)  # as the referee asks: the deciding seat's news
            state.apply(rng.choice(state.legal_actions()))
        for seat in range(4):
            told[seat] += news.take(seat)
            want = [json.dumps(e.view(seat), separators=(",", ":")).encode() for e in state.log]
            assert told[seat] == want  # same keys, same order, no other seat's secrets
            assert news.take(seat) == []
