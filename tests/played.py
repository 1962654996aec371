"""Matches played in the rules engine alone, as their stored logs (shared by the tests that
replay logs: the viewer's and the luck's)."""

from __future__ import annotations

import random
from typing import Any

from arena.rules import get_variant


def clearing_fifty_one(seed: int = 0) -> list[dict[str, Any]]:
    """A 3-player Fifty-One match that clears whenever allowed and never stops, so that its
    stock runs short and a clear reshuffles it (logged before the clear)."""
    state = get_variant("fifty-one").new_match(3, seed=seed)
    dice = random.Random(seed)
    while not state.is_over:
        legal = state.legal_actions()
        clears = [a for a in legal if a.kind == "clear"]
        state.apply(clears[0] if clears else dice.choice([a for a in legal if "stop" not in a.text] or legal))
    return [event.full() for event in state.log]
