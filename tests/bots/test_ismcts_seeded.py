"""With a fixed number of deals a decision, the search bot plays the same match the same
way: its search is deterministic given the match (its random numbers come from the match
id and seat), whatever the machine's load."""

from __future__ import annotations

import random
from typing import Any

import pytest
from ismcts_module import load_bot

from arena.rules import get_variant
from arena.sdk import MatchInfo

DEALS = 30


def _choices(variant: str, players: int, seed: int, tag: str, deals: int = DEALS) -> list[str]:
    """The bot's answers in seat 0 of one match (the other seats play seeded random moves)."""
    bot = load_bot(f"ismcts_seeded_{tag}", deals)
    rules = get_variant(variant)
    state: Any = rules.new_match(players, seed=seed)
    match = MatchInfo(f"{variant}-{seed}", variant, dict(state.options), 0, players, {"move_ms": 1})
    bot.match_start(match)
    others = random.Random(seed)
    seen, answers = 0, []
    while not state.is_over and len(answers) < 40:
        legal = state.legal_actions()
        if state.to_move != 0:
            state.apply(others.choice(legal))
            continue
        match.events.extend(state.events_for(0, seen))
        seen = len(state.log)
        texts = [a.text for a in legal]
        answers.append(bot.choose(state.observe(0), texts, match, 1))
        state.apply(legal[texts.index(answers[-1])])
    return answers


@pytest.mark.parametrize(("variant", "players", "seed"),
                         [("scat", 3, 8), ("scat", 4, 7), ("schwimmen", 3, 7), ("fifty-one", 2, 7)])
def test_the_same_match_is_played_the_same_way_at_fixed_deals(variant: str, players: int, seed: int) -> None:
    """move_ms of 1 ms: on any clock the search would stop at once, so the answers come
    from the fixed deals alone, and they are the search's: without it they differ (a seed
    per table where the search overrules the bot's default: 2 of 36 answers in 4-player
    Scat, 15 of 32 in Schwimmen, and the 3-player Scat and Fifty-One matches take another
    course)."""
    first = _choices(variant, players, seed, "a")
    assert len(first) >= 7
    assert _choices(variant, players, seed, "b") == first
    assert _choices(variant, players, seed, "c", deals=0) != first  # the answers are the search's
