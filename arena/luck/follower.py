"""What every family's luck follower shares: catching a draw's possible cards before the
engine deals one, and handing each new event of the replay to the family's own code."""

from __future__ import annotations

from arena.cards import Card
from arena.luck.ledger import Ledger
from arena.rules.game import Action, Event, MatchState

__all__ = ["Follower"]


class Follower:
    """Follows one match through its replay and enters each chance event in the ledger:
    :meth:`before` each move, :meth:`after` it, with the families' ``_draw`` and ``_seen``."""

    def __init__(self, state: MatchState, ledger: Ledger) -> None:
        self.ledger = ledger
        self.players = state.players
        self.drawing: tuple[int, list[Card]] | None = None

    def before(self, state: MatchState, action: Action) -> None:
        """Note what a draw could give before it gives it."""
        if action.kind == "draw":
            seat = state.to_move
            assert seat is not None
            self.drawing = seat, state.stock.unseen()  # type: ignore[attr-defined]

    def after(self, state: MatchState, start: int) -> None:
        """Enter the events logged from ``start`` on: a draw just made, then the rest."""
        if self.drawing is not None:
            seat, candidates = self.drawing
            self.drawing = None
            self._draw(state, seat, candidates)
        for event in state.log[start:]:
            self._seen(event)

    def _draw(self, state: MatchState, seat: int, candidates: list[Card]) -> None:
        """Enter the card ``seat`` just drew, one of ``candidates``."""
        raise NotImplementedError

    def _seen(self, event: Event) -> None:
        """Enter what a logged event dealt (a round's hands)."""
        raise NotImplementedError
