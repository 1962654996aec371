"""Event batching: what each seat has not yet been told of the match log, encoded once,
and split into ``events`` messages where too much for one line."""

from __future__ import annotations

from typing import Final

from arena.protocol import MAX_LINE, Events, encode, encode_raw, spliced
from arena.rules import Event

__all__ = ["EVENT_BUDGET", "EVENT_MAX", "News", "split_news"]

EVENT_BUDGET: Final = MAX_LINE // 2
"""Bytes of events carried inside one decide or match_end; more go in ``events`` messages."""
EVENT_MAX: Final = 512
"""Bytes most single events take: below budget // this many events, no need to measure."""


def split_news(news: list[bytes], budget: int) -> tuple[list[bytes], list[bytes]]:
    """(``events`` messages to send first, events that fit in the next message)."""
    if len(news) * EVENT_MAX <= budget or sum(len(n) + 1 for n in news) <= budget:
        return [], news
    messages: list[bytes] = []
    batch: list[bytes] = []
    size = 0
    for item in news:
        if batch and size + len(item) + 1 > budget:
            messages.append(encode(Events(spliced(batch))))
            batch, size = [], 0
        batch.append(item)
        size += len(item) + 1
    messages.append(encode(Events(spliced(batch))))
    return messages, []


class News:
    """What each seat has not yet been told of the match log, encoded as it will be sent.

    Each event is encoded once when it is first needed and queued for every seat: the
    same bytes for all, except for a seat with a private part of its own."""

    def __init__(self, log: list[Event], players: int) -> None:
        self._log = log
        self._done = 0  # events of the log queued so far
        self._queues: list[list[bytes]] = [[] for _ in range(players)]
        self._heads: dict[tuple[str, int | None], bytes] = {}

    def take(self, seat: int) -> list[bytes]:
        """The events ``seat`` has not been told yet, as it may see them; now told."""
        log = self._log
        if self._done < len(log):
            queues = self._queues
            for i in range(self._done, len(log)):
                event = log[i]
                public = self._public_view(event)
                private = event.private
                if private:
                    for s, queue in enumerate(queues):
                        queue.append(encode_raw(event.view(s)) if s in private else public)
                else:
                    for queue in queues:
                        queue.append(public)
            self._done = len(log)
        news = self._queues[seat]
        self._queues[seat] = []
        return news

    def _public_view(self, event: Event) -> bytes:
        """``event.view(None)`` encoded: its public part's JSON spliced after a cached
        ``{"event":...,"seat":...`` head, which spares building the merged dict."""
        public = event.public
        if "event" in public or "seat" in public:  # would override the head: merge instead
            return encode_raw(event.view(None))
        key = (event.kind, event.seat)
        head = self._heads.get(key)
        if head is None:  # b'{"event":"action","seat":1': the view of an empty event, open
            head = self._heads[key] = encode_raw(event._replace(public={}).view(None))[:-1]
        body = encode_raw(public)
        return head + b"," + body[1:] if len(body) > 2 else head + b"}"

