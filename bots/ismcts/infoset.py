"""What one seat knows about the current round, and deals consistent with it.

The search needs concrete game states to simulate, but a seat sees only part of the
deal.  :func:`read_round` turns the seat's event history into a :class:`Knowledge`: a
deck order (top card first, the order the engine deals from) in which every position the
seat has seen is fixed and the others are blank, plus the pool of cards the seat has not
seen.  :meth:`Knowledge.sample` fills the blanks with a random arrangement of the pool,
and :func:`replay` rebuilds the round from that deck with the arena's own engine, playing
the round's actions again; a deal that contradicts the history (an opponent would have
held a blitz, say) fails the replay and is drawn again (:func:`sample_state`).

Every card the seat has seen is bound to its deck position as it is revealed: its own
hand and draws, the upcard, every card that reaches the discard pile or the face-up
widow from a place the seat saw.  A card an opponent throws without having taken it face
up came from that opponent's unseen cards, so each sample binds it to one of the
positions the opponent held unseen at the time, chosen at random: the choice decides
which hands the opponent held along the way, and the replay rejects choices that would
have shown a blitz the real round never saw.  Cards an opponent took face up stay known in
its hand until it lets them go.

The engine is replayed on a table of the seats still in at the round start (seats out of
the match are skipped by the rules, so a smaller table plays the same round), so the
sampled state numbers seats ``0..k-1``; :attr:`Knowledge.seats` maps them back.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.cards import Card, new_deck, parse_card
from arena.rules import Action, MatchState, RulesError, Variant

Value = Callable[[Sequence[Card]], float]
"""A three-card hand's value."""
Move = tuple[int, Card | None]
"""A change to an opponent's unseen cards: (deck position, None) joins them; (-1, card) is
``card`` leaving them face up."""

FORFEIT = "forfeit"
"""The event of a seat that left the match (its bot faulted)."""
REPLAY_SEED = 0x31
"""Seed of replayed matches: only later rounds' deals would use it, and replays play one round."""
ONE_ROUND = {"max_rounds": 1}
"""Replayed matches end with their round: the engine need not deal the next one."""
MAX_PASSED = 6
"""Opponent modelling looks at most this many thrown-away cards back (see :meth:`Knowledge.sample`)."""
MAX_TRIES = 24
"""Deals drawn before :func:`sample_state` gives up on a history it cannot match."""


@dataclass
class Knowledge:
    """One seat's information set for the current round, as a deck with blanks."""

    seats: tuple[int, ...]
    """Seat of the replayed table -> real seat (the seats in at the round start)."""
    dealer: int
    """Dealer, as a seat of the replayed table."""
    me: int
    """The observing seat, as a seat of the replayed table."""
    positions: list[Card | None]
    """The deck, top first: a card where the seat has seen which card it is, else None."""
    pool: list[Card]
    """The cards the seat has not seen: exactly the ones the blanks hold, in some order."""
    history: list[tuple[int, Action | None]] = field(default_factory=list)
    """The round's actions as (replayed seat, action), or (seat, None) for a forfeit."""
    known: dict[int, list[Card]] = field(default_factory=dict)
    """Real seat -> cards it holds that this seat saw it take (its own hand for the seat)."""
    unseen: dict[int, list[Move]] = field(default_factory=dict)
    """Real seat of an opponent -> how its unseen cards changed this round, in order."""
    gone: set[int] = field(default_factory=set)
    """Real seats that forfeited during the round."""

    def sample(self, rng: random.Random, value: Value | None = None) -> list[Card]:
        """A full deck order: every card the seat has seen where it must be, the blanks filled
        with a random arrangement of the pool.

        An opponent's card thrown face up from its unseen cards is bound to one of the
        positions it held unseen then, chosen at random (replaying tells which choices fit).
        With ``value`` (a three-card hand's value) each opponent's unseen cards are not
        uniform: it is dealt them plus one card for each unseen card it threw away this round
        (at most :data:`MAX_PASSED`), keeping the best hand each time, as a player who throws
        its worst card would; the cards it passes over go back to the pool.
        """
        pool = self.pool[:]
        rng.shuffle(pool)
        deck = self.positions[:]
        for seat, moves in self.unseen.items():
            slots: list[int] = []
            passed = 0
            for position, card in moves:
                if card is None:
                    slots.append(position)
                else:
                    deck[slots.pop(rng.randrange(len(slots)))] = card
                    passed += 1
            if value is not None and slots and seat not in self.gone and len(slots) + len(self.known[seat]) == 3:
                extra = min(passed, MAX_PASSED, len(pool) - len(slots))
                drawn = [pool.pop() for _ in range(len(slots) + extra)]
                kept, dropped = _keep_best(self.known[seat], drawn, len(slots), value)
                for position, kept_card in zip(slots, kept):
                    deck[position] = kept_card
                pool.extend(dropped)
        if value is not None:
            rng.shuffle(pool)
        fill = iter(pool)
        return [card if card is not None else next(fill) for card in deck]


def _keep_best(known: list[Card], drawn: list[Card], size: int, value: Value) -> tuple[list[Card], list[Card]]:
    """Take the ``drawn`` cards one at a time into a hand of ``known`` + ``size`` unseen cards,
    each time throwing the unseen card whose loss leaves the best hand: (kept, thrown)."""
    hand = known + drawn[:size]
    first = len(known)
    thrown = []
    for card in drawn[size:]:
        four = hand + [card]
        worst, best = first, -1.0
        for i in range(first, 4):
            left = value(four[:i] + four[i + 1:])
            if left > best:
                worst, best = i, left
        thrown.append(four.pop(worst))
        hand = four
    return hand[first:], thrown


class _Reader:
    """Follows one round's events: binds what the seat saw to deck positions and records how
    each opponent's unseen cards changed."""

    def __init__(self, seat: int, dealer: int, active: Sequence[bool], deck_size: int, widow: int) -> None:
        self.seat = seat
        self.seats = tuple(s for s, live in enumerate(active) if live)
        self.sim = {real: i for i, real in enumerate(self.seats)}
        self.positions: list[Card | None] = [None] * deck_size
        self.unseen: dict[int, list[Move]] = {s: [] for s in self.seats}
        self.known: dict[int, list[Card]] = {s: [] for s in self.seats}
        self.widow: list[int] = []  # per widow place: the deck position of the card lying there
        self.widow_up: list[Card | None] = []  # per widow place: the card, once it lies face up
        self.history: list[tuple[int, Action | None]] = []
        self.gone: set[int] = set()
        self.dealer = self.sim[dealer]
        k = len(self.seats)
        order = [self.seats[(self.dealer + 1 + i) % k] for i in range(k)]
        per_pass = k + (1 if widow else 0)
        for p in range(3):
            for i, real in enumerate(order):
                self.unseen[real].append((p * per_pass + i, None))
            if widow:
                self.widow.append(p * per_pass + k)
                self.widow_up.append(None)
        self.next_stock = 3 * per_pass  # the upcard, then the stock

    def bind(self, position: int, card: Card) -> None:
        self.positions[position] = card

    def deal(self, hand: Sequence[str], upcard: str) -> None:
        for (position, _), name in zip(self.unseen.pop(self.seat), hand):
            self.bind(position, parse_card(name))
        self.known[self.seat] = [parse_card(name) for name in hand]
        self.bind(self.next_stock, parse_card(upcard))
        self.next_stock += 1

    def let_go(self, seat: int, card: Card) -> None:
        """``seat`` gives up ``card`` face up: it was known in its hand or one of its hidden cards."""
        known = self.known[seat]
        if card in known:
            known.remove(card)
        else:
            self.unseen[seat].append((-1, card))

    def action(self, seat: int, text: str, event: Mapping[str, Any]) -> None:
        self.history.append((self.sim[seat], Action.parse(text)))
        words = text.split()
        kind = words[0]
        if kind == "draw":
            position = self.next_stock
            self.next_stock += 1
            if seat == self.seat:
                card = parse_card(str(event["card"]))
                self.bind(position, card)
                self.known[seat].append(card)
            else:
                self.unseen[seat].append((position, None))
        elif kind == "take":
            self.known[seat].append(parse_card(str(event["card"])))
        elif kind == "discard":
            self.let_go(seat, parse_card(words[1]))
        elif kind == "exchange":
            self.exchange(seat, words, event)

    def exchange(self, seat: int, words: list[str], event: Mapping[str, Any]) -> None:
        """``exchange G.. for P..``: the widow's cards at places P go to ``seat``, G lie there face up."""
        split = words.index("for")
        given = [parse_card(w) for w in words[1:split]]
        places = [int(p) for p in words[split + 1:]]
        received = [parse_card(str(c)) for c in event.get("received", ())]
        for card in given:  # the given cards left the hand before the widow's cards joined it
            self.let_go(seat, card)
        for i, (card, place) in enumerate(zip(given, places)):
            face_up = self.widow_up[place]
            if face_up is not None:
                self.known[seat].append(face_up)
            elif seat == self.seat:
                self.bind(self.widow[place], received[i])
                self.known[seat].append(received[i])
            else:
                self.unseen[seat].append((self.widow[place], None))
            self.widow_up[place] = card

    def knowledge(self) -> Knowledge:
        seen = {c for c in self.positions if c is not None}
        seen.update(card for moves in self.unseen.values() for _, card in moves if card is not None)
        deck = new_deck(len(self.positions))
        return Knowledge(
            seats=self.seats,
            dealer=self.dealer,
            me=self.sim[self.seat],
            positions=self.positions,
            pool=[c for c in deck if c not in seen],
            history=self.history,
            known={s: cards[:] for s, cards in self.known.items() if s not in self.gone},
            unseen=self.unseen,
            gone=self.gone,
        )


def round_events(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The events of the latest round: from its ``round_start`` on."""
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("event") == "round_start":
            return list(events[i:])
    return []


def read_round(events: Sequence[Mapping[str, Any]], seat: int, options: Mapping[str, Any]) -> Knowledge | None:
    """``seat``'s knowledge of the round in progress, from its events (the whole match's or
    just this round's); None when there is no round in progress or it cannot be followed
    (the discard pile was reshuffled into the stock: the new order is the referee's secret
    and cannot be replayed)."""
    current = round_events(events)
    if len(current) < 2 or current[1].get("event") != "deal" or "hand" not in current[1]:
        return None
    start, deal = current[0], current[1]
    active = start.get("active") or []
    if not (0 <= seat < len(active) and active[seat] and active[start["dealer"]]):
        return None
    reader = _Reader(seat, start["dealer"], active, int(options["deck"]), int(deal.get("widow", 0)))
    reader.deal(deal["hand"], deal["upcard"])
    for event in current[2:]:
        kind = event.get("event")
        if kind == "action":
            reader.action(int(event["seat"]), str(event["action"]), event)
        elif kind == FORFEIT:
            gone = int(event["seat"])
            reader.gone.add(gone)
            reader.history.append((reader.sim[gone], None))
        elif kind in ("reshuffle", "round_end"):
            return None
    return reader.knowledge()


def replay(variant: Variant, options: Mapping[str, Any], knowledge: Knowledge, deck: list[Card]) -> MatchState | None:
    """The round rebuilt from ``deck`` with the engine and its actions played again; None if
    the deal contradicts the history (an action turns illegal or the round ends early).

    ``options`` are the match's resolved options (``MatchInfo.resolved_options``): the
    family builds the state from them directly, without resolving them again."""
    try:
        state = variant.family.new_match(variant, len(knowledge.seats), {**options, **ONE_ROUND}, REPLAY_SEED,
                                         [deck], knowledge.dealer)
        for seat, action in knowledge.history:
            if action is None:
                state.forfeit(seat)
                continue
            if state.is_over or state.to_move != seat:
                return None
            state.apply(action)
    except RulesError:
        return None
    if state.is_over or state.to_move != knowledge.me:
        return None
    return state


def sample_state(
    variant: Variant, options: Mapping[str, Any], knowledge: Knowledge, rng: random.Random, value: Value | None = None
) -> tuple[list[Card], MatchState] | None:
    """A deal consistent with everything the seat has seen (``value``: see
    :meth:`Knowledge.sample`), and the round replayed on it."""
    for _ in range(MAX_TRIES):
        deck = knowledge.sample(rng, value)
        state = replay(variant, options, knowledge, deck)
        if state is not None:
            return deck, state
    return None
