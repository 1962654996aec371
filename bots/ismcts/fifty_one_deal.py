"""What one seat knows of the Fifty-One hand in progress, and deals consistent with it.

:func:`read_hand` follows the hand's events: the seat's dealt cards, the table as it
changes (every swap shows both cards; a clear shows the new table), the cards each
opponent took from the table and still holds, and the cards it gave away that it had
not taken (so it was dealt them).  Everything else an opponent holds, and the stock, is
unseen.  Cleared cards were seen on the table; after a reshuffle they are back in the
stock, unseen again.

:func:`replay` rebuilds the hand once per decision with the engine: a deck dealing each
seat its dealt cards (an opponent's unknown ones filled from cards nobody has seen), the
first table, then the hand's actions applied again, each clear's table set to the one
the seat saw (so a reshuffled stock is no obstacle).  :class:`Sampler` then copies that
state for every deal and puts in new unseen cards: each opponent's hidden cards, and the
stock in a random order.

An opponent's hidden cards are the cards it has held since the deal, so they were in its
hand at every decision it made this hand; a deal is weighed by how well the rule of thumb
(:mod:`fifty_one_policy`) explains those decisions with them: the swap it chose against
the best one (a card it kept that it would rather have given, a suit it did not collect),
whether it stopped or played on at the score it reached, whether it cleared a table that
offered nothing.  Each opponent's hidden cards are drawn :data:`CANDIDATES` times and one
draw kept in proportion to its weight (sampling importance resampling).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fifty_one_policy import CLEAR_BELOW, SUITS, give_gain, take_gain

from arena.cards import POINTS, Card, Stock, new_deck, parse_card
from arena.rules import Action, RulesError, Variant
from arena.rules.fifty_one import FiftyOneState

HAND_SIZE = 5
REPLAY_SEED = 0x51
"""Seed of replayed matches: only a reshuffle in a rollout uses it."""
ONE_HAND = {"max_rounds": 1}
"""A replayed match ends with its hand: the engine need not deal the next one."""
ROLLOUT_TURNS = 100
"""Turns a sampled deal's hand may run past the decision before it ends with no result, as
the engine's turn cap (500 by default) would end it later.  The rule of thumb stops a
hand within 35 turns in every rollout that ends by itself (about 230,000 measured); the
few that never end took 15 ms each to reach the engine's cap, which broke a decision's
CPU budget."""
CANDIDATES = 8
"""Hidden hands drawn for each opponent per deal, one of which is kept by its weight."""
SWAP_TEMPERATURE = 3.0
"""Points of score a chosen swap falls short of the best by for its likelihood to drop by e."""
STOP_SPREAD = 2.0
"""Spread (points) of the modelled chance to stop around a seat's threshold."""
CLEAR_SPREAD = 1.0
"""Spread (points of the best swap's gain) of the modelled chance to clear."""
NOISE = 0.15
"""Share of every decision the model leaves unexplained (another bot's reasons): no deal is
ruled out by a choice the rule of thumb would not make."""
NO_CARD = -1e9
"""A gain no card reaches (no card to give of that kind)."""


@dataclass
class Decision:
    """One opponent decision of the hand, as the model reads it."""

    fixed: list[Card]
    """Cards the seat is known to have held then: those it had taken and still held, and
    dealt cards it gave away at this decision or later."""
    table: list[Card]
    give: Card | None
    """The card given (None for a clear)."""
    take: Card | None
    stop: bool
    may_stop: bool
    may_clear: bool


@dataclass
class HandKnowledge:
    """One seat's information set for the Fifty-One hand in progress."""

    seats: tuple[int, ...]
    """Seat of the replayed table -> real seat (the seats in at the hand's start)."""
    dealer: int
    me: int
    """The observing seat and the dealer, as seats of the replayed table."""
    dealt: list[Card]
    first_table: list[Card]
    history: list[tuple[int, Action | None, list[Card] | None]] = field(default_factory=list)
    """The hand's actions as (replayed seat, action, the table a clear showed), a forfeit as
    (seat, None, None)."""
    known: dict[int, list[Card]] = field(default_factory=dict)
    """Replayed seat of an opponent -> cards it took from the table and still holds."""
    gave_dealt: dict[int, list[Card]] = field(default_factory=dict)
    """Replayed seat of an opponent -> dealt cards it has given away."""
    decisions: dict[int, list[Decision]] = field(default_factory=dict)
    """Replayed seat of an opponent -> its decisions this hand, in order."""

    def others(self) -> list[int]:
        return [s for s in range(len(self.seats)) if s != self.me]


def round_events(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The events of the latest hand: from its ``round_start`` on."""
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("event") == "round_start":
            return list(events[i:])
    return []


def read_hand(events: Sequence[Mapping[str, Any]], seat: int) -> HandKnowledge | None:
    """``seat``'s knowledge of the hand in progress, from its events; None when no hand is
    in progress or its events cannot be followed."""
    current = round_events(events)
    if len(current) < 2 or current[1].get("event") != "deal" or "hand" not in current[1]:
        return None
    active = current[0].get("active") or []
    seats = tuple(s for s, on in enumerate(active) if on)
    dealer = current[0].get("dealer")
    if seat not in seats or dealer not in seats:
        return None
    sim = {real: i for i, real in enumerate(seats)}
    known = HandKnowledge(seats, sim[dealer], sim[seat], [parse_card(c) for c in current[1]["hand"]],
                          [parse_card(c) for c in current[1]["table"]])
    reader = _Reader(known)
    for event in current[2:]:
        kind = event.get("event")
        if kind == "reshuffle":
            continue
        who = sim.get(int(event.get("seat", -1)))
        if who is None or kind not in ("action", "forfeit"):
            return None
        if kind == "forfeit":
            known.history.append((who, None, None))
            continue
        action = Action.parse(str(event["action"]))
        table = [parse_card(c) for c in event["table"]] if action.kind == "clear" else None
        reader.follow(who, action, table)
        known.history.append((who, action, table))
    reader.finish()
    return known


class _Reader:
    """Follows the table and each opponent's known cards through the hand's actions."""

    def __init__(self, known: HandKnowledge) -> None:
        self.known = known
        self.table = known.first_table[:]
        self.stopper = -1
        self.turns = [0] * len(known.seats)
        self.cleared = -1
        """The seat that has just cleared and must now swap."""
        self.gives: dict[int, list[tuple[int, Card]]] = {s: [] for s in known.others()}
        """Opponent -> (its decision's index, dealt card it gave then)."""
        self.pending: dict[int, list[tuple[list[Card], Decision]]] = {s: [] for s in known.others()}
        for s in known.others():
            known.known[s] = []
            known.gave_dealt[s] = []
            known.decisions[s] = []

    def follow(self, who: int, action: Action, table: list[Card] | None) -> None:
        known = self.known
        # the rule of thumb never clears on a last turn
        may_clear = self.turns[who] > 0 and self.cleared != who and self.stopper < 0
        if who != known.me:
            give, take = (action.cards[0], action.cards[1]) if action.kind == "swap_one" else (None, None)
            decision = Decision([], self.table[:], give, take, action.arg == "stop", self.stopper < 0, may_clear)
            self.pending[who].append((known.known[who][:], decision))
            if give is not None and take is not None:
                held = known.known[who]
                if give in held:
                    held.remove(give)
                else:
                    known.gave_dealt[who].append(give)
                    self.gives[who].append((len(self.pending[who]) - 1, give))
                held.append(take)
        if action.kind == "clear":
            self.table = list(table or ())
            self.cleared = who
            return
        give, take = action.cards
        self.table[self.table.index(take)] = give
        self.turns[who] += 1
        self.cleared = -1
        if action.arg == "stop":
            self.stopper = who

    def finish(self) -> None:
        """Each decision's fixed cards: known then, plus the dealt cards given from then on."""
        for seat, pending in self.pending.items():
            for index, (held, decision) in enumerate(pending):
                decision.fixed = held + [card for at, card in self.gives[seat] if at >= index]
                self.known.decisions[seat].append(decision)


def replay(variant: Variant, options: Mapping[str, Any], known: HandKnowledge, table: Sequence[Card]
           ) -> FiftyOneState | None:
    """The hand rebuilt with the engine, its actions applied again, this seat to move; an
    opponent's unknown dealt cards are cards nobody has seen.  None if the history does not
    fit (the table differs from ``table``, the one the seat sees now)."""
    k = len(known.seats)
    seen = set(known.dealt) | set(known.first_table) | set(table)
    for _, action, shown in known.history:
        seen.update(action.cards if action is not None else ())
        seen.update(shown or ())
    filler = [c for c in new_deck(52) if c not in seen]
    hands: dict[int, list[Card]] = {known.me: known.dealt}
    for s in known.others():
        gave = known.gave_dealt[s]
        missing = HAND_SIZE - len(gave)
        if missing < 0 or missing > len(filler):
            return None
        hands[s] = gave + filler[:missing]
        del filler[:missing]
    order = [(known.dealer + 1 + i) % k for i in range(k)]
    deck = [hands[s][j] for j in range(HAND_SIZE) for s in order] + known.first_table
    placed = set(deck)
    deck += [c for c in new_deck(52) if c not in placed]
    try:
        played = sum(1 for _, action, _ in known.history if action is not None and action.kind == "swap_one")
        turns = min(int(options.get("max_turns", 500)), played + ROLLOUT_TURNS)
        state = variant.family.new_match(variant, k, {**options, **ONE_HAND, "max_turns": turns}, REPLAY_SEED, [deck],
                                         known.dealer)
        if not isinstance(state, FiftyOneState):
            return None
        for seat, action, shown in known.history:
            if action is None:
                state.forfeit(seat)
                continue
            state.apply(action)
            if shown is not None:
                state.table = list(shown)
    except (RulesError, ValueError):
        return None
    if state.to_move != known.me or state.table != list(table):
        return None
    return state


class _Suited:
    """Per-suit sums of a set of cards, and what giving the best of them adds per suit."""

    __slots__ = ("best_give", "sums", "total")

    def __init__(self, cards: Sequence[Card]) -> None:
        self.sums = [0, 0, 0, 0]
        for c in cards:
            self.sums[c & 3] += POINTS[c]
        self.total = sum(self.sums)
        self.best_give = [max((give_gain(s, c, 0.0) for c in cards), default=NO_CARD) for s in SUITS]


class _Model:
    """One opponent decision with everything the hidden cards do not change worked out."""

    __slots__ = ("best_take", "chosen", "decision", "fixed")

    def __init__(self, decision: Decision) -> None:
        self.decision = decision
        self.fixed = _Suited(decision.fixed)
        self.best_take = [max(take_gain(s, c, 0.0) for c in decision.table) for s in SUITS]
        give, take = decision.give, decision.take
        self.chosen = ([give_gain(s, give, 0.0) + take_gain(s, take, 0.0) for s in SUITS]
                       if give is not None and take is not None else None)

    def log_weight(self, hidden: _Suited, threshold: float) -> float:
        """Log of how well the rule of thumb explains this decision with ``hidden`` held."""
        fixed = self.fixed
        total = fixed.total + hidden.total
        bases = [2 * (fixed.sums[s] + hidden.sums[s]) - total for s in SUITS]
        now = max(bases)
        best = max(bases[s] + self.best_take[s] + max(fixed.best_give[s], hidden.best_give[s]) for s in SUITS)
        decision = self.decision
        clear = _logistic((CLEAR_BELOW - (best - now)) / CLEAR_SPREAD) * _logistic((threshold - now) / STOP_SPREAD)
        if self.chosen is None:
            return _explained(clear)
        chosen = max(bases[s] + self.chosen[s] for s in SUITS)
        log = _explained(math.exp((chosen - best) / SWAP_TEMPERATURE))
        if decision.may_clear:
            log += _explained(1.0 - clear)
        if decision.may_stop:
            stop = _logistic((chosen - threshold) / STOP_SPREAD)
            log += _explained(stop if decision.stop else 1.0 - stop)
        return log


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))


def _explained(chance: float) -> float:
    """Log-likelihood of a choice the model gives ``chance``, with :data:`NOISE` unexplained."""
    return math.log(NOISE + (1.0 - NOISE) * chance)


class Sampler:
    """Deals consistent with a seat's knowledge, as copies of one replayed state."""

    def __init__(self, known: HandKnowledge, template: FiftyOneState, thresholds: Sequence[float]) -> None:
        self.template = template
        self.thresholds = list(thresholds)
        self.others = known.others()
        self.known = {s: known.known[s] for s in self.others}
        self.hidden = {s: HAND_SIZE - len(self.known[s]) for s in self.others}
        self.models = {s: [_Model(d) for d in known.decisions[s]] for s in self.others}
        taken = {c for s in self.others for c in self.known[s]}
        visible = set(template.hands[known.me]) | set(template.table) | set(template.cleared) | taken
        self.pool = [c for c in new_deck(52) if c not in visible]

    def consistent(self) -> bool:
        """Whether the unseen cards fill exactly the opponents' hidden cards and the stock."""
        return len(self.pool) == sum(self.hidden.values()) + len(self.template.stock)

    def deal(self, rng: random.Random) -> FiftyOneState:
        """A copy of the replayed state with new hidden cards and a new stock."""
        pool = self.pool[:]
        state = self.template.clone()
        for seat in self.others:
            hidden = self.draw(seat, pool, rng)
            for c in hidden:
                pool.remove(c)
            state.hands[seat] = self.known[seat] + hidden
        rng.shuffle(pool)
        state.stock = Stock(pool)
        return state

    def draw(self, seat: int, pool: list[Card], rng: random.Random) -> list[Card]:
        """One opponent's hidden cards: :data:`CANDIDATES` draws from ``pool``, one kept in
        proportion to how well it explains the seat's decisions."""
        size = self.hidden[seat]
        models = self.models[seat]
        if not models or size == 0:
            return rng.sample(pool, size)
        threshold = self.thresholds[seat]
        draws = [rng.sample(pool, size) for _ in range(CANDIDATES)]
        logs = []
        for cards in draws:
            suited = _Suited(cards)
            logs.append(sum(model.log_weight(suited, threshold) for model in models))
        top = max(logs)
        weights = [math.exp(w - top) for w in logs]
        return rng.choices(draws, weights)[0]
