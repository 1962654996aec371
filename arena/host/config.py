"""What an operator sets for the host: the limits at the door and what it lets in.

Every limit has a default a small public arena can live with; each is an option of
``arena host`` (docs/HOSTING.md lists them).  The limits are the door's defence: an
upload or request past one is refused with one line saying which limit, before any of
it is stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from arena.host.archive import ArchiveLimits

__all__ = ["HostConfig", "REQUEST_SLACK"]

REQUEST_SLACK: Final = 64 * 1024
"""Bytes a request may carry beyond the archive itself: a form's other fields and its
multipart framing."""


@dataclass(frozen=True)
class HostConfig:
    """The host's settings (``arena host`` options)."""

    db: Path
    """The results database: the host writes entries and its own tables there."""
    work: Path
    """Where uploads are unpacked and validated (one folder per submission, removed after)."""
    tournaments: dict[str, Path] = field(default_factory=dict)
    """Tournaments an author may enter remotely, by name (each file says ``open = true``)."""
    deadlines: dict[str, float] = field(default_factory=dict)
    """Competitions among ``tournaments``: entries close at the deadline (seconds since the
    epoch), then the final is played (:mod:`arena.host.keeper`)."""
    ladder: Path | None = None
    """A ladder file (``mode = "ladder"``) the host keeps playing; accepted bots are entered
    in it unless their submission names another tournament."""
    signup: bool = False
    """Whether visitors may create their own accounts (else only ``arena accounts add``)."""
    per_account_day: int = 5
    """Submissions an account may make in 24 hours."""
    per_address_day: int = 20
    """Submissions (and sign-ups) from one network address in 24 hours."""
    auth_failures: int = 20
    """Failed sign-ins or bad tokens from one address before it is refused for a while."""
    auth_window_s: float = 600.0
    """The while: failures older than this are forgotten."""
    archive: ArchiveLimits = ArchiveLimits()
    body_seconds: float = 120.0
    """The longest an upload may take to arrive: a client that trickles its body is cut off
    (a slow-loris upload would otherwise hold a connection and its buffer forever)."""
    validate_seconds: float = 900.0
    """The longest one validation may take: past it the validator is killed and the
    submission refused, so one bot cannot hold the queue."""
    smoke: int = 2
    """Smoke matches against ``random`` per claimed variant, as ``arena submit`` plays."""
    behind_proxy: bool = False
    """Trust one reverse proxy's ``X-Forwarded-For``/``-Proto``/``-Host``: the per-address
    limits then count the authors' addresses, not the proxy's (``--behind-proxy``; only
    where nothing but the proxy can reach the host, or anyone could claim any address)."""
    secure_cookies: bool = False
    """Mark the session cookie ``Secure``: on behind a TLS reverse proxy (``--tls``)."""

    @property
    def request_bytes(self) -> int:
        """The largest request body accepted: the archive limit and a little framing."""
        return self.archive.archive_bytes + REQUEST_SLACK
