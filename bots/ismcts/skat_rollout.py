"""The cheap card play every seat follows when the search plays a Skat deal out, and what a
finished deal is worth.

A rollout plays on a sampled deal where every hand is in the state, so the policy reads
the engine's state (``hands``, ``trick``, ``declarer``, ``game``) and looks one seat ahead:
it knows whether the next player can beat a card.  That makes it a greedy
perfect-information player, the usual rollout of perfect-information Monte Carlo.

Suit games and grand (the declarer against the two defenders):

* Lead: the declarer draws trumps with a trump no other seat can beat, or a low trump
  when it holds two more than both defenders together; otherwise anyone cashes the side
  card with the most points that no other seat can beat or ruff; else the cheapest card
  (side cards before trumps, fewest points, lowest).
* Follow: when the own side wins the trick and the seat still to play cannot take it,
  smear the card with the most points; when the other side wins, take the trick with a
  card the next seat cannot beat (last to play: the winner with the most points), or,
  with the partner last and able to take it, smear (else take it cheaply if it can);
  otherwise the cheapest card.

Null: the declarer plays the highest card that stays under the trick (void: its highest
card), else its lowest; a defender ducks under the declarer's card, plays low before the
declarer and leads its lowest card in a suit where the declarer holds only higher ones.
Ramsch: every seat for itself, the most points it can play without taking the trick.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.cards import CARDS
from arena.rules import Action
from arena.rules.skat_values import CARD_POINTS, TRUMP, suit_of, top_trumps

GAMES = ("clubs", "spades", "hearts", "diamonds", "grand", "null", "ramsch")
PLAIN_ORDER = (12, 8, 11, 10, 7, 6, 5)
"""A side suit from the highest: A 10 K Q 9 8 7 (rank indexes)."""
NULL_ORDER = (12, 11, 10, 9, 8, 7, 6, 5)
"""Null: A K Q J 10 9 8 7."""
MAX_ROLLOUT_ACTIONS = 64
"""A deal has 30 cards (and a kontra and re): a rollout that has not ended by then is a bug's."""
POINT_WEIGHT = 0.02
"""Each card point the seat's side takes beyond 60 adds this to a trump game's worth: it
only breaks ties between cards that win or lose the same games."""
PLAY = {int(c): Action.of("play", c) for c in CARDS}


def _tables(game: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each card's suit in ``game`` (:func:`suit_of`) and its strength within it."""
    suits = tuple(suit_of(c, game) for c in range(52))
    strength = [0] * 52
    if game == "null":
        for c in range(52):
            if c >> 2 in NULL_ORDER:
                strength[c] = 8 - NULL_ORDER.index(c >> 2)
    else:
        trumps = top_trumps(game)
        for c in range(52):
            if c in trumps:
                strength[c] = 40 - trumps.index(CARDS[c])
            elif c >> 2 in PLAIN_ORDER:
                strength[c] = 8 - PLAIN_ORDER.index(c >> 2)
    return suits, tuple(strength)


TABLES = {game: _tables(game) for game in GAMES}


class SkatRollout:
    """The rollout policy for one game (its suits and strengths looked up by card)."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.suits, self.strength = TABLES[game]

    # -- shared helpers ------------------------------------------------------------------

    def key(self, card: int, led: int) -> int:
        """How high ``card`` ranks in a trick led in suit ``led`` (-1: it cannot win it)."""
        suit = self.suits[card]
        if suit == TRUMP and self.game != "null":
            return 100 + self.strength[card]
        return self.strength[card] if suit == led else -1

    def best(self, cards: Sequence[int]) -> int:
        """The key of the card winning ``cards`` (a trick so far, in order played)."""
        led = self.suits[cards[0]]
        return max(self.key(c, led) for c in cards)

    def can_beat(self, hand: Sequence[int], cards: Sequence[int]) -> bool:
        """Whether a seat holding ``hand`` can beat the trick ``cards`` (it follows suit if it can)."""
        led = self.suits[cards[0]]
        top = self.best(cards)
        follow = [c for c in hand if self.suits[c] == led]
        return any(self.key(c, led) > top for c in (follow or hand))

    def cheapest(self, cards: Sequence[int]) -> int:
        """Side cards before trumps, fewest points, lowest."""
        return min(cards, key=lambda c: (self.suits[c] == TRUMP, CARD_POINTS[c], self.strength[c]))

    def richest(self, cards: Sequence[int]) -> int:
        """The most points, side cards before trumps, lowest."""
        return max(cards, key=lambda c: (CARD_POINTS[c], self.suits[c] != TRUMP, -self.strength[c]))

    def master(self, card: int, others: Sequence[Sequence[int]]) -> bool:
        """No card of ``card``'s suit in ``others``' hands is higher."""
        suit, strength = self.suits[card], self.strength[card]
        return not any(self.suits[c] == suit and self.strength[c] > strength for hand in others for c in hand)

    # -- the policy ----------------------------------------------------------------------

    def choose(self, state: Any) -> Action:
        legal = state.legal_actions()
        cards = [int(a.cards[0]) for a in legal if a.kind == "play"]
        if len(cards) == 1:
            return PLAY[cards[0]]
        seat = state.to_move
        trick = [int(c) for _, c in state.trick]
        order = state.order
        after = [order[(order.index(seat) + k) % 3] for k in range(1, 3 - len(trick))]
        if self.game == "null":
            card = self.null(state, seat, cards, trick, after)
        elif self.game == "ramsch":
            card = self.ramsch(cards, trick)
        else:
            card = self.trump_game(state, seat, cards, trick, after)
        return PLAY[card]

    def trump_game(self, state: Any, seat: int, cards: list[int], trick: list[int], after: list[int]) -> int:
        declarer = state.declarer
        hands = state.hands
        others = [s for s in state.order if s != seat]
        if not trick:
            return self.lead(state, seat, cards, others)
        winner = state.trick[[self.key(c, self.suits[trick[0]]) for c in trick].index(self.best(trick))][0]
        ours = (winner == declarer) == (seat == declarer)
        nxt = after[0] if after else None
        nxt_ours = nxt is not None and (nxt == declarer) == (seat == declarer)
        led = self.suits[trick[0]]
        if ours:
            if nxt is None or nxt_ours or not self.can_beat(hands[nxt], trick):
                return self.richest(cards)
            safe = [c for c in cards if self.key(c, led) > self.best(trick)
                    and not self.can_beat(hands[nxt], trick + [c])]
            return self.cheapest(safe) if safe else self.cheapest(cards)
        top = self.best(trick)
        winners = [c for c in cards if self.key(c, led) > top]
        if nxt is None:
            if not winners:
                return self.cheapest(cards)
            side = [c for c in winners if self.suits[c] != TRUMP]
            return self.richest(side) if side else min(winners, key=lambda c: self.strength[c])
        if nxt_ours:
            if self.can_beat(hands[nxt], trick):
                return self.richest(cards)
            return self.cheapest(winners) if winners else self.cheapest(cards)
        safe = [c for c in winners if not self.can_beat(hands[nxt], trick + [c])]
        return self.cheapest(safe) if safe else self.cheapest(cards)

    def lead(self, state: Any, seat: int, cards: list[int], others: list[int]) -> int:
        hands = state.hands
        declarer = state.declarer
        mine = [c for c in cards if self.suits[c] == TRUMP]
        if seat == declarer:
            theirs = [c for s in others for c in hands[s] if self.suits[c] == TRUMP]
            if mine and theirs:
                top = max(mine, key=lambda c: self.strength[c])
                if self.strength[top] > max(self.strength[c] for c in theirs):
                    return top
                if len(mine) >= len(theirs) + 2:
                    return min(mine, key=lambda c: self.strength[c])
        rest = [hands[s] for s in others]
        cash = [c for c in cards if self.suits[c] != TRUMP and self.master(c, rest)
                and not any(self.ruffs(hands[s], c) for s in others if (s == declarer) != (seat == declarer))]
        return self.richest(cash) if cash else self.cheapest(cards)

    def ruffs(self, hand: Sequence[int], card: int) -> bool:
        """Whether a seat holding ``hand`` can trump a lead of side card ``card``."""
        suit = self.suits[card]
        return not any(self.suits[c] == suit for c in hand) and any(self.suits[c] == TRUMP for c in hand)

    def null(self, state: Any, seat: int, cards: list[int], trick: list[int], after: list[int]) -> int:
        declarer = state.declarer
        strength = self.strength
        if seat == declarer:
            if not trick:
                return min(cards, key=lambda c: strength[c])
            led = self.suits[trick[0]]
            if self.suits[cards[0]] != led:  # void: away with the most dangerous card
                return max(cards, key=lambda c: strength[c])
            top = self.best(trick)
            under = [c for c in cards if strength[c] < top]
            return max(under, key=lambda c: strength[c]) if under else min(cards, key=lambda c: strength[c])
        if not trick:
            theirs = state.hands[declarer]
            forcing = [c for c in cards if any(self.suits[d] == self.suits[c] for d in theirs)
                       and min(strength[d] for d in theirs if self.suits[d] == self.suits[c]) > strength[c]]
            return min(forcing or cards, key=lambda c: strength[c])
        played = [s for s, _ in state.trick]
        led = self.suits[trick[0]]
        if declarer in played:
            winner = state.trick[[self.key(c, led) for c in trick].index(self.best(trick))][0]
            if winner == declarer:
                under = [c for c in cards if self.key(c, led) < self.best(trick)]
                if under:
                    return max(under, key=lambda c: strength[c])
            return max(cards, key=lambda c: strength[c])
        return min(cards, key=lambda c: strength[c])

    def ramsch(self, cards: list[int], trick: list[int]) -> int:
        if not trick:
            return min(cards, key=lambda c: (self.suits[c] == TRUMP, self.strength[c]))
        led = self.suits[trick[0]]
        top = self.best(trick)
        losers = [c for c in cards if self.key(c, led) < top]
        if losers:
            return max(losers, key=lambda c: (CARD_POINTS[c], self.strength[c]))
        return min(cards, key=lambda c: (CARD_POINTS[c], self.strength[c]))

    def finish(self, state: Any) -> Mapping[str, Any] | None:
        """Play the deal to its end; the ``round_end`` event's public part (None if it did not end)."""
        log = state.log
        start = len(log)
        for _ in range(MAX_ROLLOUT_ACTIONS):
            if state.outcome is not None:
                break
            state.apply(self.choose(state))
        for event in log[start:]:
            if event.kind == "round_end":
                public: Mapping[str, Any] = event.public
                return public
        return None


def deal_worth(result: Mapping[str, Any] | None, me: int) -> float:
    """What a finished deal is worth to replayed seat ``me``: its score change less the
    other two seats' mean, and in a trump game :data:`POINT_WEIGHT` per card point its side
    took beyond 60."""
    if result is None:
        return 0.0
    changes: list[int] = result["changes"]
    worth = changes[me] - sum(changes[s] for s in range(3) if s != me) / 2
    declarer = result.get("declarer")
    if result.get("end") == "played" and result.get("game") != "null" and declarer is not None:
        points: int = result["card_points"][declarer]
        side = points if me == declarer else 120 - points
        worth += POINT_WEIGHT * (side - 60)
    return worth
