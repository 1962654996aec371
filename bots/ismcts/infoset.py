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
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from budget import Budget

from arena.cards import Card, new_deck, parse_card
from arena.rules import Action, MatchState, RulesError, Variant

Value = Callable[[Sequence[Card]], float]
"""A three-card hand's value."""
Declined = Callable[[Any, int], float]
"""The chance that ``seat`` would not knock with the hand it holds in a state."""
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
MAX_TRIES = 48
"""Deals drawn before :func:`sample_state` gives up on a history it cannot match."""
MIN_ACCEPT = 0.05
"""A consistent deal is kept at least this often, however unlikely the opponents' choices on it."""


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

    gave: dict[int, list[Card]] = field(default_factory=dict)
    """History index of a ``swap_all`` -> the cards its player gave (shown face up)."""

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
        return self.deal(rng, value)[0]

    def deal(self, rng: random.Random, value: Value | None = None) -> tuple[list[Card], dict[int, list[Card]]]:
        """:meth:`sample`, and the unseen cards each opponent holds now in that deck (by real
        seat): the cards at the positions it held unseen and has not thrown."""
        pool = self.pool[:]
        rng.shuffle(pool)
        deck = self.positions[:]
        holding: dict[int, list[int]] = {}
        for seat, moves in self.unseen.items():
            slots: list[int] = []
            passed = 0
            for position, card in moves:
                if card is None:
                    slots.append(position)
                else:
                    deck[slots.pop(rng.randrange(len(slots)))] = card
                    passed += 1
            holding[seat] = slots
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
        full = [card if card is not None else next(fill) for card in deck]
        return full, {seat: [full[p] for p in slots] for seat, slots in holding.items()}


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


Place = tuple[int, Card | None]
"""A card lying on the table: (its deal position, None) while it is the card dealt there, or
(-1, card) for a card a player put there face up."""


class _Reader(ABC):
    """Follows one round's events: binds what the seat saw to deck positions and records how
    each opponent's unseen cards changed.  The families' readers add the deal layout and
    the meaning of each action."""

    def __init__(self, seat: int, dealer: int, active: Sequence[bool], deck_size: int) -> None:
        self.seat = seat
        self.seats = tuple(s for s, live in enumerate(active) if live)
        self.sim = {real: i for i, real in enumerate(self.seats)}
        self.positions: list[Card | None] = [None] * deck_size
        self.unseen: dict[int, list[Move]] = {s: [] for s in self.seats}
        self.known: dict[int, list[Card]] = {s: [] for s in self.seats}
        self.table: list[list[Place]] = []
        self.history: list[tuple[int, Action | None]] = []
        self.gone: set[int] = set()
        self.gave: dict[int, list[Card]] = {}
        self.dealer = self.sim[dealer]
        k = len(self.seats)
        self.order = [self.seats[(self.dealer + 1 + i) % k] for i in range(k)]
        self.next_stock = 0

    def bind(self, position: int, card: Card) -> None:
        self.positions[position] = card

    def deal_hands(self, per_pass: int, hand: Sequence[str]) -> None:
        """Three cards to each seat, one a pass from the dealer's left, ``per_pass`` cards a pass."""
        for p in range(3):
            for i, real in enumerate(self.order):
                self.unseen[real].append((p * per_pass + i, None))
        for (position, _), name in zip(self.unseen.pop(self.seat), hand):
            self.bind(position, parse_card(name))
        self.known[self.seat] = [parse_card(name) for name in hand]

    def stock_cards(self, cards: Sequence[str]) -> list[Place]:
        """The next cards off the stock, seen face up."""
        places: list[Place] = []
        for name in cards:
            self.bind(self.next_stock, parse_card(name))
            places.append((self.next_stock, None))
            self.next_stock += 1
        return places

    def card_at(self, place: Place) -> Card | None:
        position, card = place
        return card if card is not None else self.positions[position]

    def let_go(self, seat: int, card: Card) -> None:
        """``seat`` gives up ``card`` face up: it was known in its hand or one of its unseen cards."""
        known = self.known[seat]
        if card in known:
            known.remove(card)
        else:
            self.unseen[seat].append((-1, card))

    def receive(self, seat: int, place: Place, received: str | None) -> None:
        """``seat`` takes the card at ``place`` (``received``: its name, when this seat took it)."""
        card = self.card_at(place)
        if card is None and received is not None:
            card = parse_card(received)
            self.bind(place[0], card)
        if card is not None:
            self.known[seat].append(card)
        else:
            self.unseen[seat].append((place[0], None))

    def action(self, seat: int, text: str, event: Mapping[str, Any]) -> None:
        self.history.append((self.sim[seat], Action.parse(text)))
        self.play(seat, text.split(), event)

    @abstractmethod
    def deal(self, event: Mapping[str, Any]) -> None:
        """Lay out the deal: the seat's hand, the others' unseen cards, the table, the stock."""

    @abstractmethod
    def play(self, seat: int, words: list[str], event: Mapping[str, Any]) -> None:
        """What ``seat``'s action (its text split in words) moved."""

    def other(self, event: Mapping[str, Any]) -> bool:
        """Follow a family's own event other than an action; False if it cannot be followed."""
        return False

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
            gave=self.gave,
        )


class _ScatReader(_Reader):
    """The draw-and-discard family: hands (and banking's widow) dealt a card a pass, the
    upcard, then the stock; draw, take, discard and exchange."""

    def deal(self, event: Mapping[str, Any]) -> None:
        widow = int(event.get("widow", 0))
        k = len(self.seats)
        per_pass = k + (1 if widow else 0)
        self.deal_hands(per_pass, event["hand"])
        if widow:
            self.table = [[(p * per_pass + k, None) for p in range(3)]]
        self.next_stock = 3 * per_pass
        self.stock_cards([event["upcard"]])

    def play(self, seat: int, words: list[str], event: Mapping[str, Any]) -> None:
        kind = words[0]
        if kind == "draw":
            self.receive(seat, (self.next_stock, None), event.get("card"))
            self.next_stock += 1
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
        received = _received(event, len(places))
        for card in given:  # the given cards left the hand before the widow's cards joined it
            self.let_go(seat, card)
        for card, place, name in zip(given, places, received):
            self.receive(seat, self.table[0][place], name)
            self.table[0][place] = (-1, card)


class _WidowReader(_Reader):
    """The widow family: hands dealt three a pass, then the table hands, then the stock; the
    dealer's keep or swap, the widow turned up, swaps, new widows, Switch's blind swaps and renews."""

    def deal(self, event: Mapping[str, Any]) -> None:
        k = len(self.seats)
        table = event.get("table")
        hands = len(table) if table is not None else 1
        self.deal_hands(k, event["hand"])
        self.table = [[(3 * k + 3 * h + j, None) for j in range(3)] for h in range(hands)]
        for j, name in enumerate(event.get("other_hand", ())):
            self.bind(self.table[0][j][0], parse_card(name))
        self.next_stock = 3 * (k + hands)

    def play(self, seat: int, words: list[str], event: Mapping[str, Any]) -> None:
        kind = words[0]
        if kind == "swap_hand":
            self.swap_hand(seat, event)
        elif kind == "swap_one":
            give, take = parse_card(words[1]), parse_card(words[2])
            h, j = next((h, j) for h, places in enumerate(self.table) for j, place in enumerate(places)
                        if self.card_at(place) == take)
            self.let_go(seat, give)
            self.known[seat].append(take)
            self.table[h][j] = (-1, give)
        elif kind == "swap_all":
            h = int(words[1]) if len(words) > 1 and words[1].isdigit() else 0
            gave = [parse_card(str(c)) for c in event["gave"]]
            self.gave[len(self.history) - 1] = gave
            received = _received(event, 3)
            for card in gave:
                self.let_go(seat, card)
            for place, name in zip(self.table[h], received):
                self.receive(seat, place, name)
            self.table[h] = [(-1, card) for card in gave]
        elif kind == "swap_blind":
            give, h, j = parse_card(words[1]), int(words[2]), int(words[3])
            self.let_go(seat, give)
            self.receive(seat, self.table[h][j], _received(event, 1)[0])
            self.table[h][j] = (-1, give)
        elif kind == "renew":
            h = int(words[1])
            if words[2] == "up":
                self.table[h] = self.stock_cards(event["cards"])
            else:
                self.table[h] = [(self.next_stock + j, None) for j in range(3)]
                self.next_stock += 3

    def swap_hand(self, seat: int, event: Mapping[str, Any]) -> None:
        """The dealer trades its hand for the first table hand, before anyone has played."""
        if seat == self.seat:
            old, self.known[seat] = self.known[seat], []
            for place, name in zip(self.table[0], event["hand"]):
                self.receive(seat, place, name)
            self.table[0] = [(-1, card) for card in old]
        else:
            dealt = self.unseen[seat]
            self.unseen[seat] = [(position, None) for position, _ in self.table[0]]
            self.table[0] = [(position, None) for position, _ in dealt]

    def other(self, event: Mapping[str, Any]) -> bool:
        kind = event.get("event")
        if kind == "turn_up":
            for place, name in zip(self.table[0], event["cards"]):
                if place[1] is None:
                    self.bind(place[0], parse_card(name))
        elif kind == "new_widow":
            self.table[0] = self.stock_cards(event["cards"])
        else:
            return False
        return True


def _received(event: Mapping[str, Any], count: int) -> list[str | None]:
    """The names of the cards an action gave its own seat unseen (None for another seat's)."""
    names: list[str | None] = [str(c) for c in event.get("received", ())]
    return names or [None] * count


def round_events(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The events of the latest round: from its ``round_start`` on."""
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("event") == "round_start":
            return list(events[i:])
    return []


def read_round(
    events: Sequence[Mapping[str, Any]], seat: int, variant: Variant, options: Mapping[str, Any]
) -> Knowledge | None:
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
    kind = _ScatReader if variant.family.name == "thirty-one" else _WidowReader
    reader = kind(seat, start["dealer"], active, int(options["deck"]))
    reader.deal(deal)
    for event in current[2:]:
        name = event.get("event")
        if name == "action":
            reader.action(int(event["seat"]), str(event["action"]), event)
        elif name == FORFEIT:
            gone = int(event["seat"])
            reader.gone.add(gone)
            reader.history.append((reader.sim[gone], None))
        elif not reader.other(event):
            return None
    return reader.knowledge()


def replay(
    variant: Variant,
    options: Mapping[str, Any],
    knowledge: Knowledge,
    deck: list[Card],
    declined: Declined | None = None,
    declines: list[int] | None = None,
) -> tuple[MatchState, float] | None:
    """The round rebuilt from ``deck`` with the engine and its actions played again, and how
    likely the opponents' choices were on this deal; None if the deal contradicts the history
    (an action turns illegal or the round ends early).

    ``declined`` gives the chance that a seat would not knock with the hand it holds in a
    state where it could knock; each time an opponent played on instead, the deal's
    likelihood is multiplied by it (1.0 without ``declined``); ``declines``, if given, collects
    the history indices of those choices.  ``options`` are the match's
    resolved options (``MatchInfo.resolved_options``): the family builds the state from
    them directly, without resolving them again."""
    likelihood = 1.0
    try:
        state: Any = variant.family.new_match(variant, len(knowledge.seats), {**options, **ONE_ROUND},
                                              REPLAY_SEED, [deck], knowledge.dealer)
        watch = declined is not None or declines is not None
        for index, (seat, action) in enumerate(knowledge.history):
            if action is None:
                state.forfeit(seat)
                continue
            if state.is_over or state.to_move != seat:
                return None
            if watch and seat != knowledge.me and action.kind != "knock" and state.knocker < 0 \
                    and any(a.kind == "knock" for a in state.legal_actions()):
                if declined is not None:
                    likelihood *= declined(state, seat)
                if declines is not None:
                    declines.append(index)
            state.apply(action)
    except RulesError:
        return None
    if state.is_over or state.to_move != knowledge.me:
        return None
    return state, likelihood


def sample_state(
    variant: Variant,
    options: Mapping[str, Any],
    knowledge: Knowledge,
    rng: random.Random,
    value: Value | None = None,
    declined: Declined | None = None,
    declines: list[int] | None = None,
    budget: Budget | None = None,
) -> tuple[list[Card], MatchState] | None:
    """A deal consistent with everything the seat has seen, and the round replayed on it.

    ``value``: see :meth:`Knowledge.sample`; ``declined`` and ``declines``: see :func:`replay`
    (``declines`` is filled from the deal returned).  A deal is kept with probability its
    likelihood (at least :data:`MIN_ACCEPT`, so that an opponent who plays unlike the model
    cannot starve the search).  No new deal is tried once ``budget`` has expired."""
    for _ in range(MAX_TRIES):
        if budget is not None and budget.expired():
            return None
        deck = knowledge.sample(rng, value)
        if declines is not None:
            declines.clear()
        replayed = replay(variant, options, knowledge, deck, declined, declines)
        if replayed is not None and rng.random() < max(replayed[1], MIN_ACCEPT):
            return deck, replayed[0]
    return None
