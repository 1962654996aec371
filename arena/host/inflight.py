"""Requests whose bodies are being received, counted per sender.

Each such request holds a connection (a file descriptor of the host's) and, for an upload,
up to 8 MiB of memory until its body is whole, and a body may take minutes to arrive.
Without a bound, one sender trickling bytes into a thousand forms took every file
descriptor of the host, and one account past its day's limit had 40 uploads (320 MiB) read
before the limit was looked at.  The counts live in the server's one event loop: no lock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Final

__all__ = ["FORMS", "UPLOADS", "InFlight"]

FORMS: Final = 8
"""Small forms (sign-in, sign-up, sign-out) one address may be sending at once."""
UPLOADS: Final = 2
"""Uploads one account, and one address, may be sending at once."""


class InFlight:
    """How many requests each sender has in flight."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    @contextmanager
    def admit(self, senders: Sequence[str], most: int) -> Iterator[bool]:
        """Whether a request of ``senders`` (an address, an account...) may go on: each of
        them has fewer than ``most`` in flight.  Admitted, it counts until the block ends."""
        if any(self._counts[s] >= most for s in senders):
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
