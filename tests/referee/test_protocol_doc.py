"""docs/PROTOCOL.md names everything the referee sends a bot, in every rules family.

Complete matches of every variant are played in process with random legal actions, and
each seat's messages are built exactly as the referee builds them (the same message
Structs and encoders, the same ``decide`` template, the same per-seat event views).  Every JSON key at every
nesting level, every message type, every observation ``phase``, every action form (the
kind with its arguments' shape: ``swap_one CARD CARD``, ``renew N up``), every event
kind and every round ``end`` that reaches a bot must be named in the document.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from arena import PROTOCOL_VERSION, __version__
from arena.cards import Card, new_deck, parse_card
from arena.protocol import DECIDE, Bye, Error, Hello, MatchEnd, MatchStart, encode, encode_raw, spliced
from arena.referee import EVENT_BUDGET, TimeControl
from arena.referee.news import News, split_news
from arena.rules import Action, MatchState, get_variant, variants

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
TABLES = (2, 3, 4)
SEEDS = range(4)
FORFEIT_SEED = 3
"""In matches of this seed (3 or 4 players) one seat forfeits midway, as a faulty bot does."""

EXTRA: tuple[tuple[str, Mapping[str, Any]], ...] = (
    # Option values that change what bots are sent (action forms, events, phases).
    ("scat", {"stock_out": "reshuffle", "lives": 1}),
    ("scat", {"blitz_on_turn": True, "knock_first_turn": False}),
    ("schwimmen", {"knock_after_swap": True, "knock_first_round": True}),
    ("schwimmen", {"blind_swap": False}),
    ("switch", {"knock_after_swap": True}),
    ("switch", {"blind_swap": False}),
    ("fifty-one-chinese", {"hand_value": "net_suit", "target": 150}),
    ("skat", {"kontra": True, "scoring": "seeger"}),
)

CLEAR = ("As", "Ks", "Qs", "Js", "Ts")
"""A clear count (Chinese Fifty-One), dealt on purpose to reach the ``clear_count`` phase."""


@dataclass
class Seen:
    """What reached the bots."""

    keys: dict[str, set[str]] = field(default_factory=dict)
    """Every JSON object key, with where it was seen (message type, variant)."""
    types: set[str] = field(default_factory=set)
    phases: dict[str, set[str]] = field(default_factory=dict)
    actions: dict[str, set[str]] = field(default_factory=dict)
    events: dict[str, set[str]] = field(default_factory=dict)
    ends: dict[str, set[str]] = field(default_factory=dict)

    def message(self, raw: bytes, where: str) -> None:
        """One line sent to a bot."""
        assert raw.endswith(b"\n") and raw.count(b"\n") == 1
        message = json.loads(raw)
        self.types.add(message["type"])
        self._walk(message, f"{message['type']} ({where})")
        if message["type"] == "decide":
            self.phases.setdefault(message["observation"]["phase"], set()).add(where)
            for text in message["legal"]:
                self.actions.setdefault(action_form(text), set()).add(where)
        for event in message.get("events", ()):
            self.events.setdefault(event["event"], set()).add(where)
            if event["event"] == "action":
                self.actions.setdefault(action_form(event["action"]), set()).add(where)
            if event["event"] == "round_end":
                self.ends.setdefault(event["end"], set()).add(where)

    def _walk(self, value: Any, where: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if not key.isdigit():  # seat numbers as keys (``hands``, ``values``) are data
                    self.keys.setdefault(key, set()).add(where)
                self._walk(item, where)
        elif isinstance(value, list):
            for item in value:
                self._walk(item, where)


def action_form(text: str) -> str:
    """An action's shape: its kind, then CARD for each card and N for each number."""
    words = text.split()
    shape = [words[0]]
    for word in words[1:]:
        try:
            parse_card(word)
        except ValueError:
            shape.append("N" if word.isdigit() else word)
        else:
            shape.append("CARD")
    return " ".join(shape)


Chooser = Callable[[MatchState, random.Random], Action]


def random_legal(state: MatchState, rng: random.Random) -> Action:
    return rng.choice(state.legal_actions())


def patient(state: MatchState, rng: random.Random) -> Action:
    """Never end a round by choice (no knock, stop or stand): stocks run out, widows are
    renewed, tables cleared, rounds capped."""
    legal = state.legal_actions()
    going_on = [a for a in legal if a.kind not in ("knock", "stop", "stand") and not a.arg.endswith(("knock", "stop"))]
    return rng.choice(going_on or legal)


def passer(state: MatchState, rng: random.Random) -> Action:
    """Skat: pass in every auction, so deals are thrown in or played as Ramsch."""
    legal = state.legal_actions()
    passes = [a for a in legal if a.kind == "pass"]
    return passes[0] if passes else rng.choice(legal)


def keep_clear_count(state: MatchState, rng: random.Random) -> Action:
    """Draw, and never discard a card of :data:`CLEAR`: the holder of a clear count keeps it."""
    legal = state.legal_actions()
    draw = [a for a in legal if a.kind == "draw"]
    if draw:
        return draw[0]
    keep = [a for a in legal if a.kind != "discard" or str(a.cards[0]) not in CLEAR]
    return rng.choice(keep or legal)


def play(seen: Seen, name: str, players: int, seed: int, options: Mapping[str, Any] | None = None,
         decks: Sequence[Sequence[Card]] | None = None, choose: Chooser = random_legal) -> None:
    """One match as the referee plays it (arena/referee/match.py, ``play_match``), every line a
    bot would receive handed to ``seen``."""
    variant = get_variant(name)
    where = name if not options else f"{name} {dict(options)}"
    rng = random.Random(f"{name} {players} {seed} {where}")
    state = variant.new_match(players, seed=seed, options=options, decks=decks)
    news_for = News(state.log, players).take
    time_control = TimeControl()
    resolved = variant.resolve(options)
    live = [True] * players
    for seat in range(players):
        seen.message(encode(Hello(PROTOCOL_VERSION, __version__)), where)
        seen.message(encode(MatchStart(f"{name}-{seed}", variant.name, resolved, seat, players,
                                       time_control.to_dict())), where)
    forfeit_at = rng.randrange(5, 60) if seed == FORFEIT_SEED and players > 2 else -1
    request = 0
    while not state.is_over:
        to_move = state.to_move
        assert to_move is not None
        seat = to_move
        if request == forfeit_at:  # a fault under the forfeit policy: the bot is gone
            state.forfeit(seat)
            live[seat] = False
            seen.message(encode(Bye()), where)
            forfeit_at = -1
            continue
        request += 1
        legal = state.legal_actions()
        news = news_for(seat)
        early, news = split_news(news, EVENT_BUDGET)
        for message in early:
            seen.message(message, where)
        seen.message(DECIDE % (request, encode_raw(state.observe(seat)),
                               encode_raw([a.text for a in legal]), 1000, b",".join(news)), where)
        state.apply(choose(state, rng))
    assert state.outcome is not None
    outcome = state.outcome.to_dict()
    for seat in range(players):
        if live[seat]:
            news = news_for(seat)
            # a seat with too many news gets them first in ``events`` messages: force one here
            early, news = split_news(news, 1) if seat == 0 else split_news(news, EVENT_BUDGET)
            for message in early:
                seen.message(message, where)
            seen.message(encode(MatchEnd(f"{name}-{seed}", outcome, spliced(news))), where)
    # what a bot hears of its fault under the substitute policy (``play_match``'s ``fault``)
    seen.message(encode(Error("illegal_action: 'fly' is not one of [...]; a random legal action was played")), where)


def clear_count_deck(players: int) -> list[Card]:
    """A Chinese Fifty-One deck that deals the first drawer (dealer 0's right) a clear count."""
    clear = [parse_card(c) for c in CLEAR]
    rest = [c for c in new_deck(52) if c not in clear]
    deck: list[Card] = []
    for i in range(5 * players):  # one card to each seat in turn, the first drawer first
        deck.append(clear[i // players] if i % players == 0 else rest.pop())
    return deck + rest


@cache
def seen() -> Seen:
    out = Seen()
    for name, variant in variants().items():
        for players in TABLES:
            if variant.min_players <= players <= variant.max_players:
                for seed in SEEDS:
                    play(out, name, players, seed)
    for name, options in EXTRA:
        for seed in SEEDS:
            play(out, name, 3, seed, options)
    for name in variants():
        play(out, name, 3, 0, {"max_rounds": 2}, choose=patient)
        play(out, name, 3, 1, {"max_rounds": 1, "max_turns": 30}, choose=patient)
    play(out, "scat", 3, 0, {"stock_out": "reshuffle", "max_rounds": 1, "max_turns": 120}, choose=patient)
    for players in TABLES:
        play(out, "fifty-one-chinese", players, 0, decks=[clear_count_deck(players)], choose=keep_clear_count)
    for all_pass in ("throw_in", "ramsch"):
        play(out, "skat", 3, 0, {"all_pass": all_pass, "rounds": 3}, choose=passer)
    return out


@cache
def document() -> str:
    return DOC.read_text(encoding="utf-8")


@cache
def named() -> set[str]:
    """Every backticked span of the document, as written."""
    return set(re.findall(r"`([^`\n]+)`", document()))


def missing(found: Mapping[str, set[str]] | set[str]) -> list[str]:
    """What ``found`` holds that the document does not name, with where it was seen."""
    names = named()
    out = []
    for item in sorted(found):
        if item not in names:
            where = found[item] if isinstance(found, Mapping) else set()
            out.append(f"`{item}`" + (f" (seen in {', '.join(sorted(where)[:3])})" if where else ""))
    return out


def report(what: str, items: list[str]) -> str:
    return f"docs/PROTOCOL.md does not name these {what}:\n  " + "\n  ".join(items)


def test_every_variant_was_played() -> None:
    played = {where.split(" ")[0] for places in seen().phases.values() for where in places}
    assert played == set(variants())


def test_the_matches_reach_every_phase_event_and_end() -> None:
    """The matches above are varied enough: a new phase, event or end shows up in the
    checks below, and none of these is lost by a change of the engine's dealing."""
    assert set(seen().phases) >= {"turn", "last_turn", "discard", "choice", "renewed", "must_swap",
                                  "first_discard", "clear_count", "challenge"}
    assert set(seen().events) >= {"round_start", "deal", "action", "turn_up", "new_widow", "reshuffle",
                                  "forfeit", "round_end", "match_end"}
    assert set(seen().ends) >= {"showdown", "blitz", "thirty-one", "feuer", "draw", "turn_cap", "knock",
                                "clear_count", "stock_out", "stop"}


def test_every_message_type_is_named() -> None:
    assert not (gaps := missing(seen().types)), report("message types", gaps)
    assert seen().types == {"hello", "match_start", "decide", "events", "match_end", "error", "bye"}


def test_every_key_is_named() -> None:
    assert not (gaps := missing(seen().keys)), report("message fields", gaps)


def test_every_phase_is_named() -> None:
    assert not (gaps := missing(seen().phases)), report("observation phases", gaps)


def test_every_action_form_is_named() -> None:
    assert not (gaps := missing(seen().actions)), report("action forms", gaps)


def test_every_event_kind_is_named() -> None:
    assert not (gaps := missing(seen().events)), report("event kinds", gaps)


def test_every_round_end_is_named() -> None:
    assert not (gaps := missing(seen().ends)), report("round ends (`end` of `round_end`)", gaps)


def test_the_examples_are_messages() -> None:
    """Every example line of the exchanges (``R>`` referee, ``B>`` bot) that is not
    shortened with ``...`` is one JSON message of a known type."""
    lines = [line for line in document().splitlines() if line.startswith(("R> ", "B> "))]
    assert len(lines) > 40
    for line in lines:
        if "..." not in line:
            message = json.loads(line[3:])
            assert message["type"] in (seen().types if line.startswith("R") else {"hello", "action"}), line
