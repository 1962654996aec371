"""What a Skat seat may see (docs/PROTOCOL.md, Skat), and how a Ramsch deal is scored.

Kept apart from the state machine (:mod:`arena.rules.skat`): the observation is the one
place that decides what is hidden, so it is easy to read on its own.  A seat sees its own
hand, the auction, the game, every card played, and the skat only as the declarer after
picking it up; the declarer's hand only when the game is ouvert.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from arena.cards import NAMES, Card, card_names
from arena.rules.skat_values import Contract

__all__ = ["ramsch_result", "view"]


class SkatTable(Protocol):
    """What :func:`view` reads of a Skat match (:class:`arena.rules.skat.SkatState`)."""

    @property
    def round(self) -> int: ...
    @property
    def to_move(self) -> int | None: ...
    @property
    def active(self) -> list[bool]: ...

    players: int
    dealer: int
    order: list[int]
    hands: list[list[Card]]
    auction: list[tuple[int, str]]
    bid: int
    declarer: int | None
    contract: Contract | None
    game: str | None
    kontra: int
    skat: list[Card]
    picked: list[Card]
    trick: list[tuple[int, Card]]
    tricks: list[tuple[int, tuple[tuple[int, Card], ...]]]
    scores: list[int]


def view(state: SkatTable, seat: int, phase: str) -> dict[str, Any]:
    """``seat``'s observation of ``state`` in ``phase``."""
    moving = phase != "over"
    forehand, middlehand, rearhand = state.order
    contract = state.contract
    declarer = state.declarer
    own = seat == declarer
    obs: dict[str, Any] = {
        "seat": seat,
        "round": state.round,
        "dealer": state.dealer,
        "forehand": forehand,
        "middlehand": middlehand,
        "rearhand": rearhand,
        "to_move": state.to_move if moving else None,
        "phase": phase,
        "hand": [NAMES[c] for c in state.hands[seat]],
        "auction": [{"seat": s, "call": call} for s, call in state.auction],
        "bid": state.bid,
        "declarer": declarer,
        "game": state.game,
        "announced": contract.announced if contract else [],
        "kontra": state.kontra,
        "skat": card_names(state.skat) if own and moving and state.picked and state.skat else None,
        "picked_up": card_names(state.picked) if own and state.picked else None,
        "ouvert_hand": (card_names(sorted(state.hands[declarer]))
                        if contract and contract.ouvert and declarer is not None else None),
        "trick": [{"seat": s, "card": NAMES[c]} for s, c in state.trick],
        "tricks": [{"winner": w, "cards": [{"seat": s, "card": NAMES[c]} for s, c in cards]}
                   for w, cards in state.tricks],
        "tricks_won": [sum(1 for w, _ in state.tricks if w == s) for s in range(state.players)],
        "scores": list(state.scores),
        "active": list(state.active),
    }
    return obs


def ramsch_result(points: Sequence[int], tricks: Sequence[int], order: Sequence[int],
                  changes: list[int]) -> dict[str, Any]:
    """Ramsch (every player passed, ``all_pass = ramsch``): a player who took every trick
    (Durchmarsch) scores 120; otherwise the player(s) with the most card points lose that
    many, doubled when another player took no trick (Jungfrau).  Fills ``changes``."""
    sweep = [s for s in order if tricks[s] == 10]
    if sweep:
        changes[sweep[0]] = 120
        return {"losers": [], "durchmarsch": sweep[0], "jungfrau": []}
    top = max(points[s] for s in order)
    losers = [s for s in order if points[s] == top]
    maidens = [s for s in order if tricks[s] == 0]
    for s in losers:
        changes[s] = -top * (2 if maidens else 1)
    return {"losers": losers, "durchmarsch": None, "jungfrau": maidens}
