"""Knock-threshold bot: keep the best three cards, knock at a fixed threshold.

Every decision values candidate hands with ``match.value`` (the arena's own rules engine,
with this match's options), so trips, three aces and the 32-card deck are handled by the
engine.  Only strings from ``legal`` are ever returned.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from arena.sdk import MatchInfo, hookimpl

BASE_THRESHOLD = 25.0
"""Knock at this value or more when a top hand is worth 31 (see bot.toml notes)."""

KEEP_AT = 16.0
"""Schwimmen: the dealer keeps a hand worth this or more, else takes the widow unseen (the
average value of three random cards of the 32-card deck is 15.8)."""

_values: dict[tuple[str, ...], tuple[float, tuple[Any, ...]]] = {}
_threshold = BASE_THRESHOLD
_any_legal = random.Random()
"""Skat, a rules family this bot has no play for: a random legal action, seeded per match."""


def knock_threshold(options: dict[str, Any]) -> float:
    """The threshold scaled to the variant's options (documented in bot.toml)."""
    top = 31.0
    if options.get("three_aces") in ("32", "33"):
        top = max(top, float(options["three_aces"]))
    threshold = BASE_THRESHOLD * top / 31.0
    if options.get("trips", "none") != "none":
        threshold += 1
    if options.get("deck") == 32:
        threshold += 1
    return threshold


@hookimpl
def match_start(match: MatchInfo) -> None:
    global _threshold
    _values.clear()  # values depend on the match's options
    _any_legal.seed(f"{match.match_id}/{match.seat}")
    _threshold = knock_threshold(match.resolved_options)


def rate(match: MatchInfo, cards: list[str]) -> tuple[float, tuple[Any, ...]]:
    """(value, tie-break) of a three-card hand; a blitz or 33 rates above everything."""
    key = tuple(sorted(cards))
    rated = _values.get(key)
    if rated is None:
        hand = match.value(key)
        rated = _values[key] = (hand.value + (100.0 if hand.special else 0.0), hand.high_key)
    return rated


def best_keep(match: MatchInfo, cards: list[str], must_keep: str | None = None) -> tuple[float, tuple[Any, ...]]:
    """The best rating of three of ``cards`` (all of them containing ``must_keep``)."""
    if len(cards) == 3:
        return rate(match, cards)
    return max(rate(match, list(keep)) for keep in combinations(cards, 3) if must_keep is None or must_keep in keep)


def exchange_result(hand: list[str], action: str, widow: list[str | None]) -> list[str] | None:
    """The hand after ``exchange G.. for P..`` if every card received is face up, else None."""
    words = action.split()
    split = words.index("for")
    give, positions = words[1:split], [int(p) for p in words[split + 1:]]
    received = [widow[p] for p in positions]
    if any(card is None for card in received):
        return None
    return [c for c in hand if c not in give] + [c for c in received if c is not None]


def choose_turn(observation: dict[str, Any], legal: list[str], match: MatchInfo) -> str:
    hand: list[str] = observation["hand"]
    current = rate(match, hand)
    last_turn = observation["phase"] == "last_turn"
    if "knock" in legal and (current[0] >= _threshold or current[0] >= 100.0):
        return "knock"  # in last turns knock is legal only to show a blitz (blitz_on_turn)
    options: list[tuple[tuple[float, tuple[Any, ...]], int, str]] = []
    top = observation.get("discard_top")
    if top and "take" in legal:
        options.append((best_keep(match, hand + [top], must_keep=top), 2, "take"))
    widow = observation.get("widow")
    if widow:
        for action in legal:
            if action.startswith("exchange"):
                after = exchange_result(hand, action, widow)
                if after is not None:
                    options.append((rate(match, after), 1, action))
    if options:
        best = max(options)
        if best[0] > current:
            return best[2]
    if "draw" in legal:
        return "draw"
    if last_turn and "stand" in legal:
        return "stand"
    for fallback in ("stand", "take", "knock"):
        if fallback in legal:
            return fallback
    return legal[0]


def choose_discard(observation: dict[str, Any], legal: list[str], match: MatchInfo) -> str:
    hand: list[str] = observation["hand"]

    def after(action: str) -> tuple[tuple[float, tuple[Any, ...]], int]:
        card = action.split()[1]
        rest = [c for c in hand if c != card]
        return rate(match, rest), sum(_points(c) for c in rest)

    return max((a for a in legal if a.startswith("discard ")), key=after, default=legal[0])


def _points(card: str) -> int:
    rank = card[0]
    return 11 if rank == "A" else 10 if rank in "TJQK" else int(rank)


def swap_result(hand: list[str], action: str, widow: list[str]) -> list[str] | None:
    """Schwimmen: the hand after ``swap_one GIVE TAKE`` or ``swap_all``; None for other actions."""
    words = action.split()
    if words[0] == "swap_one":
        return [words[2] if c == words[1] else c for c in hand]
    if words[0] == "swap_all":
        return list(widow)
    return None


def choose_widow(observation: dict[str, Any], legal: list[str], match: MatchInfo) -> str:
    """Schwimmen: the same rule of thumb with the face-up widow in place of the discard pile."""
    hand: list[str] = observation["hand"]
    current = rate(match, hand)
    if observation["phase"] == "choice":
        return "keep" if current[0] >= KEEP_AT else "swap_hand"
    if "knock" in legal and (current[0] >= _threshold or current[0] >= 100.0):
        return "knock"
    widow: list[str] = observation["widow"]
    options = [(rate(match, after), action) for action in legal
               if (after := swap_result(hand, action, widow)) is not None]
    if options:
        best = max(options)
        if best[0] > current:
            return best[1]
    return "pass" if "pass" in legal else legal[0]


@hookimpl
def choose(observation: dict[str, Any], legal: list[str], match: MatchInfo) -> str:
    if len(legal) == 1:
        return legal[0]
    if match.rules.family.name == "skat":
        return _any_legal.choice(legal)
    if "widow" in observation and match.rules.family.name == "widow":
        return choose_widow(observation, legal, match)
    if observation.get("phase") == "discard":
        return choose_discard(observation, legal, match)
    return choose_turn(observation, legal, match)
