"""A guard for hypercorn's HTTP/2 streams answered before their request body ended.

hypercorn 0.18 forgets a stream once its answer is sent, and data the client still sends
for it (a body the app answered without reading: a 401, 413, 429 or 431) raised KeyError
in the connection's task, which under trio ended the whole server (hypercorn issue 329;
the fix, pull requests 312 and 334, is not released).  Such data is now acknowledged, so the
connection's other streams keep their window, and the stream is reset with NO_ERROR: what
RFC 9113 (section 8.1) asks of a server that answered before the request was complete.
"""

from __future__ import annotations

import contextlib
from typing import Any

import h2.errors
import h2.events
import h2.exceptions
from hypercorn.protocol.h2 import H2Protocol

__all__ = ["guard_h2"]


def guard_h2() -> None:
    """Install the guard on hypercorn's HTTP/2 protocol (once per process)."""
    original = H2Protocol._handle_events
    if getattr(original, "guarded", False):
        return

    async def handle_events(self: H2Protocol, events: list[h2.events.Event]) -> None:
        kept = []
        for event in events:
            if isinstance(event, h2.events.DataReceived) and event.stream_id not in self.streams:
                self.connection.acknowledge_received_data(event.flow_controlled_length or 0, event.stream_id)
                with contextlib.suppress(h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                    self.connection.reset_stream(event.stream_id, h2.errors.ErrorCodes.NO_ERROR)
            else:
                kept.append(event)
        await original(self, kept)  # which sends what the guard queued

    handle: Any = handle_events
    handle.guarded = True
    H2Protocol._handle_events = handle  # type: ignore[method-assign]
