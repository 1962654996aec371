"""Reading a request's body within the host's limits: its size and how long it may take.

Starlette reads whatever a client sends, for as long as it takes; the door reads at most
the configured number of bytes (refusing at once a ``Content-Length`` that says more)
within the configured seconds, so an oversized or trickled upload costs the host a bounded
buffer for a bounded time.  Forms are parsed from those bytes, never from the socket.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

import anyio
from starlette.datastructures import FormData
from starlette.formparsers import FormParser, MultiPartException, MultiPartParser
from starlette.requests import Request

from arena.errors import ArenaError

__all__ = ["BodyError", "read_body", "read_form"]


class BodyError(ArenaError, ValueError):
    """A request body past a limit: ``status`` (413, 408 or 400) and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def read_body(request: Request, limit: int, seconds: float) -> bytes:
    """The body of ``request``: BodyError past ``limit`` bytes or ``seconds``."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise BodyError(413, f"the request is larger than this host accepts ({limit // 1024} KiB at most)")
    chunks: list[bytes] = []
    size = 0
    with anyio.move_on_after(seconds) as scope:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyError(413, f"the request is larger than this host accepts ({limit // 1024} KiB at most)")
            chunks.append(chunk)
    if scope.cancelled_caught:
        raise BodyError(408, f"the upload took longer than {seconds:g} s: try again on a faster connection")
    return b"".join(chunks)


async def read_form(request: Request, body: bytes, max_file_bytes: int) -> FormData:
    """The form in ``body`` (url-encoded, or multipart with at most one file)."""

    async def stream() -> AsyncGenerator[bytes, None]:
        yield body

    kind = request.headers.get("content-type", "")
    try:
        if kind.startswith("multipart/form-data"):
            return await MultiPartParser(request.headers, stream(), max_files=1, max_fields=8,
                                         max_part_size=max_file_bytes).parse()
        if kind.startswith("application/x-www-form-urlencoded"):
            return await FormParser(request.headers, stream()).parse()
    except MultiPartException as error:
        raise BodyError(400, f"the form could not be read: {error.message}") from None
    raise BodyError(400, "send the form as multipart/form-data or application/x-www-form-urlencoded")
