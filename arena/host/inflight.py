"""Requests whose bodies are being received, counted per sender.

Each such request holds a connection (a file descriptor of the host's) and, for an upload,
up to 8 MiB of memory until its body is whole, and a body may take minutes to arrive.
Without a bound, one sender trickling bytes into a thousand forms took every file
descriptor of the host, and one account past its day's limit had 40 uploads (320 MiB) read
before the limit was looked at.  The counts live in the server's one event loop: no lock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Final

__all__ = ["FORMS_PER_ADDRESS", "UPLOADS_PER_ACCOUNT", "UPLOADS_PER_ADDRESS", "InFlight"]

FORMS_PER_ADDRESS: Final = 32
"""Small forms (sign-in, sign-up, sign-out) one address may be sending at once.  A form's
body comes whole in a moment, so only slow senders hold these: many authors behind one
address (a club's network) do not meet it."""
UPLOADS_PER_ACCOUNT: Final = 2
"""Uploads one account may be sending at once (at most 16 MiB of the host's memory)."""
UPLOADS_PER_ADDRESS: Final = 24
"""Uploads one address may be sending at once, whatever the accounts: room for a club's
authors behind one address, and at most 192 MiB."""


class InFlight:
    """How many requests each sender has in flight."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    @contextmanager
    def admit(self, limits: Mapping[str, int]) -> Iterator[bool]:
        """Whether a request may go on: each of its senders (an address, an account ...)
        has fewer in flight than its limit.  Admitted, it counts until the block ends."""
        senders = list(limits)
        if any(self._counts[s] >= most for s, most in limits.items()):
            yield False
            return
        self._counts.update(senders)
        try:
            yield True
        finally:
            self._counts.subtract(senders)
            for sender in senders:
                if self._counts[sender] <= 0:
                    del self._counts[sender]
