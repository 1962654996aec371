"""Who is asking: tokens and session cookies to accounts, and the limits on guessing.

A token is checked against its slow hash in the ledger (scrypt: tens of milliseconds of
CPU, which is the point); a token that passed is remembered for a minute under a fast
hash of itself, so an author's client following its submission does not pay scrypt on
every poll, and is re-checked against the ledger (account enabled, token not rotated) on
every use.  Failed checks are counted per network address: past the host's limit the
address is refused for a while, whatever it sends, so tokens cannot be guessed at speed
from one place (each account also locks itself after repeated failures: the ledger).
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import secrets
import threading
import time
from typing import Final

from arena.errors import ArenaError
from arena.host.ledger import Account, Ledger

__all__ = ["Guard", "LOGIN_COOKIE", "SESSION_COOKIE", "token_from_header"]

SESSION_COOKIE: Final = "arena_session"
LOGIN_COOKIE: Final = "arena_login"
"""A random value set with the sign-in form and repeated in it: a page of another site
cannot read it, so it cannot sign a visitor in to an account of its choosing."""
REMEMBER_S: Final = 60.0
"""How long a checked token skips scrypt (it is still checked against the ledger)."""


def token_from_header(value: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, if that is what it is."""
    if value is None:
        return None
    scheme, _, token = value.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


class Unheard(ArenaError):  # noqa: N818 - a state, not an error of the program
    """The address failed too often lately to be heard (its checks in flight count)."""


class Guard:
    """Checks tokens and counts failures per address (one per host process; thread-safe)."""

    def __init__(self, failures: int, window_s: float) -> None:
        self.failures = failures
        self.window_s = window_s
        self._lock = threading.Lock()
        self._failed: dict[str, collections.deque[float]] = {}
        self._remembered: dict[bytes, tuple[str, str, float]] = {}
        self._key = secrets.token_bytes(32)

    def blocked(self, address: str) -> bool:
        """Whether ``address`` failed too often lately to be heard at all."""
        with self._lock:
            recent = self._recent(address)
            return recent is not None and len(recent) >= self.failures

    def failed(self, address: str) -> None:
        """Count a failed check from ``address``."""
        with self._lock:
            self._count(address)

    def _count(self, address: str) -> float:
        """Count a failure (the caller holds the lock); when it was counted."""
        stamp = time.monotonic()
        self._failed.setdefault(address, collections.deque()).append(stamp)
        if len(self._failed) > 100_000:  # a flood of addresses must not grow memory forever
            self._failed.clear()
        return stamp

    def _recent(self, address: str) -> collections.deque[float] | None:
        recent = self._failed.get(address)
        if recent is None:
            return None
        horizon = time.monotonic() - self.window_s
        while recent and recent[0] < horizon:
            recent.popleft()
        if not recent:
            del self._failed[address]
            return None
        return recent

    def account(self, ledger: Ledger, token: str, address: str) -> Account | None:
        """The account ``token`` belongs to, or None (counted against ``address``);
        :class:`Unheard` if ``address`` may not be heard.  A check is counted as failed
        before its scrypt and uncounted if the token is right: tokens sent at the same
        moment cannot all pass :meth:`blocked` while the first are still being hashed (80
        at once had 40 checked against a limit of 20)."""
        if self.blocked(address):
            raise Unheard
        key = hmac.new(self._key, token.encode(errors="replace"), hashlib.sha256).digest()
        with self._lock:
            remembered = self._remembered.get(key)
        if remembered is not None and remembered[2] > time.monotonic():
            name, token_id, _ = remembered
            account = ledger.account(name)
            if account is not None and account.disabled is None and ledger.token_current(name, token_id):
                return account
        with self._lock:
            recent = self._recent(address)
            if recent is not None and len(recent) >= self.failures:
                raise Unheard
            stamp = self._count(address)
        account = ledger.authenticate(token, address=address)
        if account is None:
            return None
        with self._lock:
            recent = self._failed.get(address)
            if recent is not None and stamp in recent:
                recent.remove(stamp)
            if len(self._remembered) > 10_000:
                self._remembered.clear()
            self._remembered[key] = (account.name, token.split("_")[1], time.monotonic() + REMEMBER_S)
        return account
