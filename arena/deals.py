"""Secret deal keys: where the cards of tournaments and unseeded matches come from.

A bot that can learn how the cards were dealt knows every hand.  So a tournament (and an
``arena match`` without ``--seed``) deals from a 256-bit key drawn from the operating
system, kept where no bot can read it (the results database, or the referee's memory),
and never sent to a bot.  Each deal's own key is ``HMAC-SHA256(key, its identity)``: the
deals of one tournament are unrelated to each other for anyone without the key, while
anyone who has it (``arena key export``) can deal them all again.

Match ids that bots see are opaque for the same reason: a keyed hash of the arena's own
id, stable (a resumed run sends the same id) but telling nothing of the deal or its place
in the schedule.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final

from arena.cards import Seed
from arena.errors import ArenaError

__all__ = ["KEY_BYTES", "DealKeyError", "deal_key", "new_key", "opaque_id", "parse_key"]

KEY_BYTES: Final = 32
MIN_KEY_BYTES: Final = 16


class DealKeyError(ArenaError, ValueError):
    """A deal key given by the user that cannot be one."""


def new_key() -> bytes:
    """A fresh secret key from the operating system's generator."""
    return secrets.token_bytes(KEY_BYTES)


def parse_key(text: str) -> bytes:
    """A key written in hex (as ``arena key export`` and ``arena match`` print it)."""
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        raise DealKeyError(f"a deal key is written in hex digits (0-9, a-f), not {text[:20]!r}...") from None
    if len(key) < MIN_KEY_BYTES:
        raise DealKeyError(f"a deal key has at least {2 * MIN_KEY_BYTES} hex digits ({MIN_KEY_BYTES} bytes); "
                        f"this one has {2 * len(key)}")
    return key


def deal_key(key: bytes, *identity: str | int) -> bytes:
    """The key of one deal, from the tournament's key and what names the deal (variant,
    table size, deal number...)."""
    message = "\0".join(map(str, identity)).encode()
    return hmac.new(key, b"deal\0" + message, hashlib.sha256).digest()


def opaque_id(seed: Seed, name: str) -> str:
    """The id a bot is told for the match the arena calls ``name``: 16 hex digits."""
    key = seed if isinstance(seed, bytes) else seed.to_bytes(8, "little")
    return hmac.new(key, b"id\0" + name.encode(), hashlib.sha256).hexdigest()[:16]
