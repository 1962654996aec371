"""What one seat knows of the Skat deal in progress, and deals consistent with it.

:func:`read_deal` replays the deal's events into a :class:`SkatKnowledge`: the seat's
dealt cards, the auction, the declarer and the contract, the skat where the seat saw it
(the declarer's pickup and discard), an ouvert declarer's hand, every card played and the
suits each seat has shown it lacks (it did not follow the suit led: with the jacks trumps
in suit games, grand and Ramsch, as the rules count them).

:meth:`SkatKnowledge.sample` deals the cards the seat has not seen to the other two
playing seats and, unless the seat knows it, to the skat: each hand gets the number of
cards it still holds, and no seat gets a card of a suit it has shown void in.  A deal is
then weighed by how well the declarer's twelve cards (its hand, the cards it played, the
skat) fit its bid and game (:func:`bid_weight`) and how well the other seats' ten cards fit
their calls in the auction (:func:`call_weight`), and kept with that weight relative to the
best weight drawn so far.

The deal is rebuilt with the engine on a table of three (:func:`replay`): forehand,
middlehand and rearhand are seats 0, 1 and 2 (at a table of four the dealer, who sits the
deal out, is left off), and the deal's actions are played again.  Each later deal copies
that state and puts the new hands and skat in (:func:`redeal`): nothing else in a Skat
state depends on the hidden cards.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from infoset import MAX_TRIES, round_events
from skat_auction import plan

from arena.cards import Card, new_deck, parse_card
from arena.rules import Action, MatchState, RulesError, Variant
from arena.rules.skat_values import BID_VALUES, TRUMP, Contract, matadors, suit_of

SKAT = -1
"""The holder key of the skat in a sampled deal."""
REPLAY_OPTIONS = {"rounds": 3, "max_rounds": 1}
"""A replayed match is one deal at a table of three (``rounds`` must be a multiple of 3)."""
REPLAY_DEALER = 2
"""At a table of three the dealer is rearhand: forehand is seat 0."""
REPLAY_SEED = 0x5CA7
"""Seed of replayed matches (their only deal comes from the deck given)."""
SCHNEIDER_BID = 0.3
"""Weight of a deal whose declarer reaches its bid only if it makes schneider."""
OVERBID = 0.05
"""Weight of a deal on which the declarer's bid is above any value its game could have."""
TRUMP_LENGTH = {"suit": 6, "grand": 2, "null": 0}
"""Trumps (grand: jacks) a declarer's twelve cards hold at least before a deal is weighed down ..."""
SHORT_TRUMP = 0.5
"""... by this factor for each one fewer (null: for each dangerous card beyond one, see
:func:`null_danger`)."""
NULL_RANKS = (5, 6, 7, 8, 9, 10, 11, 12)
"""Null's order from the lowest: 7 8 9 10 J Q K A (rank indexes)."""
UNBACKED_CALL = 0.25
"""Weight of a deal giving a seat that bid or held a value ten cards the hand evaluation
(:func:`skat_auction.plan`, what most bidders do) would not take that high: unlikely, not
ruled out (a bolder bidder, or a null or hand game the evaluation does not see)."""
SHUNNED_CALL = 0.5
"""Weight of a deal giving a seat that passed ten cards the evaluation would have bid or
held at the value it refused: passing is the weaker sign (a cautious bidder passes good
hands too)."""


@dataclass
class SkatKnowledge:
    """One seat's information set for the Skat deal in progress."""

    seats: tuple[int, ...]
    """Real seats of forehand, middlehand and rearhand: seats 0, 1, 2 of the replayed table."""
    me: int
    """The observing seat, as a seat of the replayed table."""
    dealt: list[Card]
    """The ten cards the seat was dealt."""
    history: list[tuple[int, str]] = field(default_factory=list)
    """The deal's actions as (replayed seat, text); another declarer's discard is ``discard``."""
    bid: int = 0
    declarer: int | None = None
    contract: Contract | None = None
    game: str | None = None
    """The contract's game, ``ramsch`` when every player passed into Ramsch, else None."""
    picked_up: bool = False
    """The declarer took the skat."""
    picked: list[Card] = field(default_factory=list)
    """The skat as this seat found it (declarer only)."""
    discarded: list[Card] = field(default_factory=list)
    """The two cards this seat put back (declarer only)."""
    ouvert: list[Card] = field(default_factory=list)
    """An ouvert declarer's cards as laid face up."""
    played: list[list[Card]] = field(default_factory=lambda: [[], [], []])
    """The cards each seat has played, in order."""
    plays: list[tuple[int, Card]] = field(default_factory=list)
    """Every card played this deal, in order, with its seat."""
    voids: list[set[int]] = field(default_factory=lambda: [set(), set(), set()])
    """The suits (as :func:`suit_of` counts them in the game) each seat has shown void in."""

    @property
    def skat_known(self) -> bool:
        """Whether this seat knows the skat: it is the declarer and picked it up."""
        return self.declarer == self.me and self.picked_up

    def hand(self) -> list[Card]:
        """This seat's cards now."""
        held = self.dealt + self.picked
        return [c for c in held if c not in self.discarded and c not in self.played[self.me]]

    def known_cards(self, seat: int) -> list[Card]:
        """The cards another seat is known to hold now (an ouvert declarer's)."""
        if seat == self.declarer and self.ouvert:
            return [c for c in self.ouvert if c not in self.played[seat]]
        return []

    def pool(self) -> list[Card]:
        """The cards this seat has not seen."""
        seen = set(self.dealt) | set(self.picked) | set(self.ouvert) | {c for _, c in self.plays}
        return [c for c in new_deck(32) if c not in seen]

    def others(self) -> list[int]:
        return [s for s in range(3) if s != self.me]

    def slots(self) -> dict[int, int]:
        """Unseen cards each holder has: the other seats (their cards not known) and the skat."""
        out = {s: 10 - len(self.played[s]) - len(self.known_cards(s)) for s in self.others()}
        out[SKAT] = 0 if self.skat_known else 2
        return out

    def sample(self, rng: random.Random) -> tuple[dict[int, list[Card]], list[Card]] | None:
        """A deal of the unseen cards: each other seat's whole hand (by replayed seat) and the
        skat, no seat holding a suit it showed void in; None if none was found."""
        pool = self.pool()
        slots = self.slots()
        allowed = {card: [h for h in slots if slots[h] and (h == SKAT or self.suit(card) not in self.voids[h])]
                   for card in pool}
        for _ in range(MAX_TRIES):
            dealt = _deal(pool, slots, allowed, rng)
            if dealt is not None:
                hands = {s: self.known_cards(s) + dealt[s] for s in self.others()}
                skat = self.discarded[:] if self.skat_known else dealt[SKAT]
                return hands, skat
        return None

    def suit(self, card: int) -> int:
        return suit_of(card, self.game or "grand")

    def weight(self, hands: Mapping[int, Sequence[Card]], skat: Sequence[Card]) -> float:
        """How well a deal fits the auction: :func:`bid_weight` of another declarer's twelve
        cards, times :func:`call_weight` of every other seat's ten (the declarer's bid is
        weighed by its game instead)."""
        declarer = self.declarer
        weight = 1.0
        calls = auction_calls(self.history)
        for seat in self.others():
            ten = list(hands[seat]) + self.played[seat]
            if seat == declarer and self.contract is not None:
                weight *= bid_weight(ten + list(skat), ten, self.contract, self.bid)
            elif seat in calls:
                weight *= call_weight(ten, *calls[seat])
        return weight


def _deal(pool: list[Card], slots: Mapping[int, int], allowed: Mapping[Card, list[int]],
          rng: random.Random) -> dict[int, list[Card]] | None:
    """The pool dealt to the holders, the cards with the fewest holders allowed first, each
    to an allowed holder with room, chosen in proportion to its room; None at a dead end."""
    room = dict(slots)
    out: dict[int, list[Card]] = {h: [] for h in slots}
    order = pool[:]
    rng.shuffle(order)
    order.sort(key=lambda c: len(allowed[c]))
    for card in order:
        open_ = [h for h in allowed[card] if room[h] > 0]
        total = sum(room[h] for h in open_)
        if not total:
            return None
        pick = rng.randrange(total)
        for holder in open_:
            pick -= room[holder]
            if pick < 0:
                break
        room[holder] -= 1
        out[holder].append(card)
    return out


def null_danger(cards: Sequence[int]) -> int:
    """Cards that make their suit unsafe in null (the heuristic's count): the k-th lowest
    card held must be at most the (2k+1)-th lowest of the suit."""
    danger = 0
    for s in range(4):
        ranks = sorted(NULL_RANKS.index(c >> 2) for c in cards if c & 3 == s)
        danger += sum(1 for k, r in enumerate(ranks) if r > 2 * k)
    return danger


def bid_weight(twelve: Sequence[int], ten: Sequence[int], contract: Contract, bid: int) -> float:
    """How plausible it is that a declarer holding ``twelve`` (its hand, the cards it played
    and the skat; ``ten``: without the skat) bid ``bid`` and declared ``contract``.

    A trump game whose value on these cards (the matadors count the skat) reaches the bid
    weighs 1, one that reaches it only with schneider :data:`SCHNEIDER_BID`, one that cannot
    :data:`OVERBID`.  Few trumps weigh it down (:data:`TRUMP_LENGTH`, :data:`SHORT_TRUMP`);
    in null, dangerous cards in the ten it plays with do."""
    game = contract.game
    if game == "null":
        return float(SHORT_TRUMP ** max(0, null_danger(ten) - 1))
    levels = abs(matadors(twelve, game)) + 1 + contract.hand + 2 * contract.schneider + 2 * contract.schwarz \
        + contract.ouvert
    base = contract.base
    weight = 1.0 if base * levels >= bid else SCHNEIDER_BID if base * (levels + 1) >= bid else OVERBID
    if game == "grand":
        short = TRUMP_LENGTH["grand"] - sum(1 for c in twelve if c >> 2 == 9)
    else:
        short = TRUMP_LENGTH["suit"] - sum(1 for c in twelve if suit_of(c, game) == TRUMP)
    return weight * SHORT_TRUMP ** max(0, short)


def auction_calls(history: Sequence[tuple[int, str]]) -> dict[int, tuple[int, int]]:
    """What each seat's calls in the auction said: (the highest value it bid or held, the
    lowest value it refused; 0 for none).  A pass answering a bid refuses that bid; any
    other pass refuses the next value above the bid so far."""
    calls: dict[int, tuple[int, int]] = {}
    bid = 0
    last = ""
    for seat, text in history:
        kind = text.split()[0]
        shown, refused = calls.get(seat, (0, 0))
        if kind == "bid":
            bid = int(text.split()[1])
            shown = max(shown, bid)
        elif kind == "hold":
            shown = max(shown, bid)
        elif kind == "pass":
            above = [v for v in BID_VALUES if v > bid]
            value = bid if last.startswith("bid") else above[0] if above else bid
            refused = value if not refused else min(refused, value)
        else:
            break  # the auction is over
        calls[seat] = (shown, refused)
        last = text
    return calls


def call_weight(ten: Sequence[int], shown: int, refused: int) -> float:
    """How plausible a seat's calls (:func:`auction_calls`) are with ``ten`` as its dealt
    cards, the hand evaluation's limit taken for its own: :data:`UNBACKED_CALL` below a
    value it named or held, :data:`SHUNNED_CALL` at or above one it refused."""
    if not shown and not refused:
        return 1.0
    limit = plan(list(ten)).limit
    weight = UNBACKED_CALL if limit < shown else 1.0
    return weight * SHUNNED_CALL if refused and limit >= refused else weight


def read_deal(events: Sequence[Mapping[str, Any]], seat: int) -> SkatKnowledge | None:
    """``seat``'s knowledge of the deal in progress, from its events (the whole match's or
    this deal's); None when it plays no deal now or the deal cannot be followed."""
    current = round_events(events)
    if len(current) < 2 or current[1].get("event") != "deal" or "hand" not in current[1]:
        return None
    start = current[0]
    try:
        seats = (int(start["forehand"]), int(start["middlehand"]), int(start["rearhand"]))
    except (KeyError, TypeError, ValueError):
        return None
    if seat not in seats:
        return None
    sim = {real: i for i, real in enumerate(seats)}
    known = SkatKnowledge(seats, sim[seat], [parse_card(c) for c in current[1]["hand"]])
    for event in current[2:]:
        kind = event.get("event")
        if kind == "trick":
            continue
        if kind != "action" or int(event.get("seat", -1)) not in sim:
            if kind == "forfeit" and int(event.get("seat", -1)) not in sim:
                continue  # the dealer sitting the deal out left: the deal goes on
            return None
        who = sim[int(event["seat"])]
        text = str(event["action"])
        _follow(known, who, text, event)
        known.history.append((who, text))
    if known.plays and known.game is None:
        known.game = "ramsch"  # cards are played with no game declared: every player passed
    _note_voids(known)
    return known


def _follow(known: SkatKnowledge, who: int, text: str, event: Mapping[str, Any]) -> None:
    """What one action tells the seat."""
    words = text.split()
    kind = words[0]
    if kind == "bid":
        known.bid = int(words[1])
    elif kind in ("pickup", "hand"):
        known.declarer = who
        known.picked_up = kind == "pickup"
        if kind == "pickup" and who == known.me:
            known.picked = [parse_card(c) for c in event.get("skat", ())]
    elif kind == "discard" and who == known.me:
        known.discarded = [parse_card(c) for c in words[1:]]
    elif kind == "declare":
        known.contract = Contract.parse(" ".join(words[1:]), not known.picked_up)
        known.game = known.contract.game
        known.ouvert = [parse_card(c) for c in event.get("ouvert_hand") or ()]
    elif kind == "play":
        card = parse_card(words[1])
        known.played[who].append(card)
        known.plays.append((who, card))


def _note_voids(known: SkatKnowledge) -> None:
    """A seat that did not follow the suit led has none of it left (tricks are every three plays)."""
    plays = known.plays
    for first in range(0, len(plays), 3):
        trick = plays[first:first + 3]
        led = known.suit(trick[0][1])
        for who, card in trick[1:]:
            if known.suit(card) != led:
                known.voids[who].add(led)


def original_deal(known: SkatKnowledge, hands: Mapping[int, Sequence[Card]], skat: Sequence[Card]) -> list[Card]:
    """A deck (top first, dealt 3-skat-4-3) that deals each seat its cards of a sampled deal.

    Another declarer that picked the skat up is dealt the cards it kept and finds the two
    it put back (which two it really found is unknown and changes nothing that follows)."""
    ten: list[list[Card]] = []
    for s in range(3):
        ten.append(known.dealt if s == known.me else list(hands[s]) + known.played[s])
    found = known.picked if known.skat_known else list(skat)
    deck: list[Card] = []
    for packet in ((0, 3), (3, 7), (7, 10)):
        for s in range(3):
            deck += ten[s][packet[0]:packet[1]]
        if packet == (0, 3):
            deck += found
    return deck


def replay(variant: Variant, options: Mapping[str, Any], known: SkatKnowledge,
           hands: Mapping[int, Sequence[Card]], skat: Sequence[Card]) -> MatchState | None:
    """The deal rebuilt from a sampled deal with the engine, its actions played again, this
    seat to move; None if the history does not fit the deal."""
    deck = original_deal(known, hands, skat)
    put_back = Action.of("discard", *sorted(skat)).text
    try:
        state = variant.family.new_match(variant, 3, {**options, **REPLAY_OPTIONS}, REPLAY_SEED, [deck],
                                         REPLAY_DEALER)
        for _, text in known.history:
            state.apply(Action.parse(put_back if text == "discard" else text))
    except RulesError:
        return None
    return state if state.to_move == known.me else None


def redeal(template: Any, known: SkatKnowledge, hands: Mapping[int, Sequence[Card]], skat: Sequence[Card]) -> Any:
    """A copy of a replayed state with another sampled deal's hands and skat put in; the
    declarer's twelve cards (its matadors) follow them."""
    state = template.clone()
    for s, cards in hands.items():
        state.hands[s] = list(cards)
    if not known.skat_known:
        state.skat = list(skat)
    declarer = known.declarer
    if declarer is not None and not known.skat_known:
        state.declarer_cards = list(state.hands[declarer]) + known.played[declarer] + list(skat)
    return state
