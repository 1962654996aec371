"""Each message is defined once, as a Struct in arena/protocol.py.

Where the referee or the bot host does not encode a Struct (the ``decide`` and ``action``
templates of the hot paths, messages spliced from events encoded beforehand, the bot
host's ``hello`` written before msgspec is imported), the bytes are those of the Struct:
the same as msgspec's encoding of it, or decoded strictly into it.
"""

from __future__ import annotations

import io
import os
import random
import types

import msgspec
import pytest

from arena import PROTOCOL_VERSION
from arena.bothost import serve
from arena.protocol import (
    ACTION,
    DECIDE,
    ActionReply,
    BotHello,
    Bye,
    Decide,
    Events,
    Hello,
    MatchEnd,
    MatchStart,
    decode_bot_message,
    decode_reply,
    encode,
    encode_raw,
    spliced,
    template,
)
from arena.referee.news import News, split_news
from arena.rules import get_variant, variants
from arena.sdk import MatchInfo, hookimpl


def decoded(items: list[bytes]) -> list[dict[str, object]]:
    return [msgspec.json.decode(item) for item in items]


@pytest.mark.parametrize("name", sorted(variants()))
def test_the_decide_template_is_the_decide_struct_encoded(name: str) -> None:
    """Every request of a match, filled in as the referee fills it in, with a time left
    that is not whole milliseconds (``%d`` truncates it, as ``int`` does)."""
    variant = get_variant(name)
    players = variant.min_players
    state = variant.new_match(players, seed=7)
    news = News(state.log, players)
    rng = random.Random(7)
    request = 0
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        request += 1
        legal = state.legal_actions()
        texts = [a.text for a in legal]
        observation = state.observe(seat)
        told = news.take(seat)
        time_left_ms = 1000 + request * 7.75
        filled = DECIDE % (request, encode_raw(observation), encode_raw(texts), time_left_ms, b",".join(told))
        message = Decide(request, observation, texts, int(time_left_ms), decoded(told))
        assert filled == encode(message)
        assert msgspec.json.decode(filled, type=Decide).id == request  # what a bot host decodes
        state.apply(rng.choice(legal))


@pytest.mark.parametrize("text", ["draw", "discard 6h", 'say "hi" \\ ünïcode', ""])
def test_the_action_template_is_the_action_struct_encoded(text: str) -> None:
    filled = ACTION % (12, encode_raw(text))
    assert filled == encode(ActionReply(12, text))
    assert decode_reply(filled[:-1]) == ActionReply(12, text)


def test_messages_spliced_from_encoded_events_are_the_structs_encoded() -> None:
    state = get_variant("scat").new_match(3, seed=1)
    while not state.is_over:
        state.apply(state.legal_actions()[0])
    told = News(state.log, 3).take(1)
    outcome = state.outcome.to_dict() if state.outcome else {}
    assert encode(MatchEnd("m-1", outcome, spliced(told))) == encode(MatchEnd("m-1", outcome, decoded(told)))
    assert encode(MatchEnd("m-1", outcome, spliced([]))) == encode(MatchEnd("m-1", outcome))
    early, rest = split_news(told, 200)  # a small budget: several ``events`` messages
    assert len(early) > 1 and rest == []
    batches = [msgspec.json.decode(line, type=Events) for line in early]
    assert early == [encode(batch) for batch in batches]
    assert [event for batch in batches for event in batch.events] == decoded(told)


def test_a_template_has_a_placeholder_for_every_field() -> None:
    with pytest.raises(TypeError, match="fields"):
        template(Decide, id=b"%d", observation=b"%s", legal=b"%s", time_left_ms=b"%d")
    with pytest.raises(TypeError, match="fields"):
        template(ActionReply, id=b"%d", action=b"%s", extra=b"%s")


def test_match_info_begins_with_the_fields_of_match_start() -> None:
    fields = MatchInfo._FIELDS
    assert fields == (*MatchStart.__struct_fields__, "events")
    time = {"move_ms": 1000}
    start = MatchStart("m1", "scat", {"lives": 1}, 2, 4, time)
    assert MatchInfo.starting(start) == MatchInfo("m1", "scat", {"lives": 1}, 2, 4, time)


def test_the_bot_hosts_hello_is_a_bot_hello() -> None:
    """Written before msgspec is imported, by hand: it must decode strictly all the same."""
    plugin = types.ModuleType("hello_bot")

    @hookimpl
    def choose(legal: list[str]) -> str:
        return legal[0]

    plugin.choose = choose  # type: ignore[attr-defined]
    read, write = os.pipe()
    with os.fdopen(read, "rb") as replies:
        with os.fdopen(write, "wb") as out:
            referee = io.BytesIO(encode(Hello(PROTOCOL_VERSION, "test")) + encode(Bye()))
            serve(plugin, 'a "quoted" bøt', "1.0.0", referee, out)
        line = replies.readline()
    assert decode_bot_message(line.rstrip(b"\n")) == BotHello('a "quoted" bøt', "1.0.0", PROTOCOL_VERSION)
