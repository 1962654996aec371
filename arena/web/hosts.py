"""Which names the server answers to: a page of another site that made its own name lead to
this address (DNS rebinding) would otherwise read every page, and open tables at /play/.

A server on a loopback address answers loopback names (``localhost``, ``127.0.0.1``,
``[::1]``) and the names given with ``--allowed-host`` (the public names a reverse proxy
in front of it passes on); one on another address answers its own address and the names
given (any name, where it listens on every address and none is given).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["KnownHosts", "host_name", "is_loopback"]

WILDCARDS = frozenset({"0.0.0.0", "::", ""})
"""Addresses that listen everywhere, and so name no host."""


def is_loopback(name: str | None) -> bool:
    """Whether ``name`` (a host name or address) is this machine's loopback."""
    if name is None:
        return False
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(host_header: str) -> str | None:
    """The name in a ``Host`` header, without its port (``[::1]:8000`` -> ``::1``)."""
    try:
        return urlsplit(f"//{host_header}").hostname
    except ValueError:
        return None


class KnownHosts:
    """Refuses every request and socket whose ``Host`` is not one of the server's names."""

    def __init__(self, app: ASGIApp, listening: str, allowed: Iterable[str] = ()) -> None:
        self.app = app
        self.loopback = is_loopback(listening)
        names = {name.lower().strip("[]") for name in allowed}
        if not self.loopback and listening not in WILDCARDS:
            names.add(listening.lower().strip("[]"))
        self.names = frozenset(names)

    def allows(self, host_header: str) -> bool:
        """Whether a request with this ``Host`` is for this server."""
        name = host_name(host_header)
        if self.loopback:  # the names a reverse proxy in front of it passes on are allowed too
            return is_loopback(name) or (name or "").lower() in self.names
        return not self.names or (name or "").lower() in self.names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not self.allows(Headers(scope=scope).get("host", "")):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await PlainTextResponse("this server does not answer to that host name", 421)(scope, receive, send)
            return
        await self.app(scope, receive, send)
