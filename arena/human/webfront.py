"""The web front of a person's seat: each screen as a JSON-ready message, answers from a page.

The seat (:mod:`arena.human.seat`) asks this front as it asks the terminal; the front
puts each screen in :attr:`WebFront.outbox` as a message (``decision``, ``ending``,
``left``, ``notice``) for a bridge to send to the page, and waits for the page's answer,
which the bridge hands to :meth:`WebFront.answer`.  No web framework here: the bridge
(``arena/web/play.py``) moves the messages over a WebSocket.

Every question carries a number, and an answer counts only for the question it names: a
double click, or a click that crosses the next question on the wire, is dropped instead of
being taken as the answer to a question the person has not seen yet.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import trio

from arena.human.render import typing_hint
from arena.human.view import Decision, Ending

__all__ = ["WebFront"]

Message = dict[str, Any]


class WebFront:
    """Screens out as messages, answers in from the page."""

    def __init__(self) -> None:
        self._post, self.outbox = trio.open_memory_channel[Message](math.inf)
        self._answer_in, self._answers = trio.open_memory_channel[tuple[int, str]](math.inf)
        self._asked = 0

    async def ask(self, view: Decision, problem: str | None) -> str:
        """Post the decision (with why the last answer was refused, if it was) as question
        number n, and return the first answer to question n."""
        self._asked += 1
        question = self._asked
        self._send({"type": "decision", "question": question, "decision": view.to_dict(), "problem": problem,
                    "typing": f"or type {typing_hint(view.legal)}"})
        while True:
            number, text = await self._answers.receive()
            if number == question:
                return text

    def answer(self, question: int, text: str) -> None:
        """What the person chose or typed for question number ``question``."""
        self._answer_in.send_nowait((question, text))

    def finished(self, view: Ending) -> None:
        self._send({"type": "ending", "ending": view.to_dict()})

    def left(self, message: str) -> None:
        self._send({"type": "left", "message": message})

    def notice(self, message: str) -> None:
        self._send({"type": "notice", "message": message})

    def close(self) -> None:
        """No more screens: :attr:`outbox` ends once its messages are taken."""
        self._post.close()

    def _send(self, message: Message) -> None:
        with contextlib.suppress(trio.ClosedResourceError):  # the match is over and the page told
            self._post.send_nowait(message)
