"""The JSON-lines protocol between the referee and a bot (docs/PROTOCOL.md).

One JSON object per line, UTF-8, each with a ``type``.  Each message is defined once,
here, as a msgspec Struct (its ``type`` the tag, its fields in the order they are sent):
the referee encodes what it sends from these (observations and events come from the
rules engine as dicts), the bot host decodes them; on the referee's hot path the
``decide`` request is filled into :data:`DECIDE`, a template built from its Struct.
What a bot sends is decoded strictly into the two message types a bot may send, so
anything else (unknown fields, wrong types, garbage) is a protocol fault.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, TypeVar

import msgspec

from arena import PROTOCOL_VERSION
from arena.errors import ArenaError

__all__ = [
    "ACTION",
    "DECIDE",
    "MAX_LINE",
    "OUT_OF_MATCH",
    "Bye",
    "Decide",
    "Error",
    "Events",
    "Hello",
    "MatchEnd",
    "MatchStart",
    "RefereeMessage",
    "PROTOCOL_VERSION",
    "ActionReply",
    "BotHello",
    "ProtocolError",
    "decode_bot_message",
    "decode_reply",
    "encode",
    "encode_raw",
    "spliced",
    "template",
]

_T = TypeVar("_T")

MAX_LINE: Final = 64 * 1024
"""Longest line (bytes, newline excluded) either side may send."""


class ProtocolError(ArenaError, ValueError):
    """A line from a bot that is not a valid message."""


class BotHello(msgspec.Struct, tag="hello", tag_field="type", forbid_unknown_fields=True, frozen=True):
    """The bot's answer to the referee's ``hello``."""

    name: str
    version: str
    protocol: int


class ActionReply(msgspec.Struct, tag="action", tag_field="type", forbid_unknown_fields=True, frozen=True):
    """The bot's answer to a ``decide`` request: the chosen action's text."""

    id: int
    action: str


class Hello(msgspec.Struct, tag="hello", tag_field="type"):
    """Referee to bot, once per process: the referee's protocol version."""

    protocol: int
    arena: str = ""


class MatchStart(msgspec.Struct, tag="match_start", tag_field="type"):
    """Referee to bot: a match begins and this bot holds ``seat``."""

    match_id: str
    variant: str
    options: dict[str, Any]
    seat: int
    players: int
    time: dict[str, Any]


class Decide(msgspec.Struct, tag="decide", tag_field="type"):
    """Referee to bot: choose one of ``legal`` and answer with this ``id``."""

    id: int
    observation: dict[str, Any]
    legal: list[str]
    time_left_ms: int
    events: list[dict[str, Any]] = []


class Events(msgspec.Struct, tag="events", tag_field="type"):
    """Referee to bot: events the seat has not seen, when too many for the next message."""

    events: list[dict[str, Any]]


class MatchEnd(msgspec.Struct, tag="match_end", tag_field="type"):
    """Referee to bot: the match is over."""

    match_id: str
    outcome: dict[str, Any]
    events: list[dict[str, Any]] = []


class Error(msgspec.Struct, tag="error", tag_field="type"):
    """Referee to bot: a fault of the bot's was recorded.  Under the substitute policy the
    bot plays on; a fault that puts it out ends the message with :data:`OUT_OF_MATCH`, and
    ``bye`` follows."""

    message: str


OUT_OF_MATCH: Final = "you are out of the match"


class Bye(msgspec.Struct, tag="bye", tag_field="type"):
    """Referee to bot: exit now."""


RefereeMessage = Hello | MatchStart | Decide | Events | MatchEnd | Error | Bye
"""What a bot receives; a bot host ignores fields it does not know (newer referees)."""

_decoder: Final[msgspec.json.Decoder[BotHello | ActionReply]] = msgspec.json.Decoder(BotHello | ActionReply)
_reply_decoder: Final[msgspec.json.Decoder[ActionReply]] = msgspec.json.Decoder(ActionReply)
_encoder: Final = msgspec.json.Encoder()


def decode_bot_message(line: bytes) -> BotHello | ActionReply:
    """Decode one line from a bot; :class:`ProtocolError` says what is wrong with it."""
    return _decode(_decoder, line)


def decode_reply(line: bytes) -> ActionReply:
    """Decode a line that must answer a ``decide`` request (one type to try: the hot path)."""
    return _decode(_reply_decoder, line)


def _decode(decoder: msgspec.json.Decoder[_T], line: bytes) -> _T:
    try:
        return decoder.decode(line)
    except msgspec.DecodeError as error:
        raise ProtocolError(f"invalid message: {error}") from None
    except UnicodeDecodeError as error:  # msgspec raises it for invalid UTF-8 inside a string
        raise ProtocolError(f"invalid message: a string is not valid UTF-8 ({error.reason})") from None
    except Exception as error:  # noqa: BLE001 - nothing a bot sends may stop the referee
        # e.g. RecursionError: an unknown field's value is skipped recursively (deep nesting)
        raise ProtocolError(f"invalid message: {type(error).__name__}: {error}") from None


def encode(message: msgspec.Struct) -> bytes:
    """One message as a JSON line (with the trailing newline)."""
    return _encoder.encode(message) + b"\n"


encode_raw: Final = _encoder.encode
"""Any JSON value as bytes, no newline (for splicing parts of a message)."""


def spliced(items: Iterable[bytes]) -> Any:
    """A JSON array of values already encoded, to stand for a list field of a message: the
    referee encodes each event once for every seat that sees it alike, and the encoder
    copies a ``msgspec.Raw`` as it is, whatever the field's declared type."""
    return msgspec.Raw(b"[" + b",".join(items) + b"]")


def template(message: type[msgspec.Struct], **placeholders: bytes) -> bytes:
    """A message type encoded with each field's value a ``%`` placeholder (``b"%d"``,
    ``b"%s"``, ``b"[%s]"``), to be filled in with ``%`` where encoding a Struct would cost
    too much.  Built from the Struct itself, so it has the Struct's tag and every field, in
    order: the same bytes as :func:`encode` of the Struct holding the values filled in."""
    names = message.__struct_fields__
    if sorted(placeholders) != sorted(names):
        raise TypeError(f"{message.__name__} has the fields {names}, not {tuple(placeholders)}")
    encoded = encode(message(**{name: msgspec.Raw(placeholders[name]) for name in names}))
    if encoded.count(b"%") != sum(value.count(b"%") for value in placeholders.values()):
        raise ValueError(f"{message.__name__}'s tag or a field name holds a '%'")
    return encoded


DECIDE: Final = template(Decide, id=b"%d", observation=b"%s", legal=b"%s", time_left_ms=b"%d", events=b"[%s]")
"""A ``decide`` request as ``DECIDE % (id, observation, legal, time_left_ms, events)``, the
observation and the legal action texts as encoded JSON, the events as encoded objects
joined by commas: the referee's hot path, one ``%`` where encoding a :class:`Decide`
would first build the lists and dicts it already holds encoded."""
ACTION: Final = template(ActionReply, id=b"%d", action=b"%s")
"""An ``action`` reply as ``ACTION % (id, action)``, the action text as an encoded JSON string."""
