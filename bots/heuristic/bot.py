"""A greedy heuristic bot for the draw-and-discard family (scat and every preset); the
four- and five-card relatives (fifty-one, fifty-one-chinese, empat-satu) are played by
``relatives.py``, the widow family (schwimmen, stop-the-bus, switch) by ``widow.py`` and
Skat by ``skat.py``, chosen by the variant's rules family.

What it does, in the order ``choose`` applies it (bot.toml ``notes`` cites the rules of
thumb behind each step):

* **Memory.** ``on_event`` follows the round: the discard pile (every card in it is face
  up and known), the cards each opponent took from the pile or the face-up widow (and has
  not discarded since), how many turns each seat has had, reshuffles.  It resets at every
  ``round_start``/``deal``.  The cards it has not seen (*unseen*: the deck less its hand,
  the pile, the opponents' known cards and the face-up widow) are the ones a draw can
  bring.  If its record ever disagrees with the observation (pile size or top), it falls
  back to what the observation shows.
* **Hand score.** ``value + LAMBDA * potential`` while the round goes on, where potential
  is the average gain of one more draw over the unseen cards; value alone in last turns.
  A blitz (or three aces worth 33) scores a bonus above every other hand.
* **Knock.** By a threshold: lower with fewer players, higher as the round's turns pass
  (opponents' hands improve), lower when the stock is nearly out, shifted by how strong
  hands are under the match's options (32-card deck, trips), higher when knocking is
  riskier (a knocker tied for lowest loses, a knocker must beat someone, a failed knock
  would eliminate the bot).  Points and chips scoring knock only when a quick simulation
  says the hand is probably the highest.  Out of the gate (california-quick) it knocks
  when its dealt hand is unlikely to be lowest among the others' dealt hands, and never
  with a dealt 31 (declining reveals it as a blitz).
* **Take, draw or exchange.** The discard top is taken when the best hand keeping it
  scores at least the expected score after a draw (average over unseen cards of the best
  hand keeping three of four); in banking, exchanges for face-up widow cards are scored the
  same way (exchanges for face-down cards are blind: for one card no better than a draw,
  which also lets it throw the new card back; they are not played).
* **Discard.** The card whose loss leaves the best score, less a danger penalty when the
  next player to move is known to collect that suit (it took cards of it): a card that
  completes its blitz from its known cards is never thrown while another is safe.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import relatives  # this folder is on sys.path (the bot host adds it)
import skat as skat_family
import widow as widow_family

from arena.cards import CARDS, POINTS
from arena.sdk import MatchInfo, hookimpl

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NAMES = [r + s for r in RANKS for s in SUITS]  # index = rank * 4 + suit, as in arena.cards
INDEX = {name: i for i, name in enumerate(NAMES)}
BIT = [1 << i for i in range(52)]

LAMBDA = 0.5
"""Weight of a hand's potential (expected gain of one more draw) while the round goes on."""
SPECIAL_BONUS = 8.0
"""Added to a blitz (or three aces worth 33): it ends the round at once in the bot's favour."""
KNOCK_BASE = 22.0
"""Knock threshold with two players on the first orbit of a 52-card scat round."""
PER_PLAYER = 1.0
"""Threshold added for each player beyond two (more hands to improve in last turns)."""
PER_ORBIT = 1.0
"""Threshold added per completed orbit of turns this round (opponents improve) ..."""
MAX_ORBITS = 3.0
"""... counting at most this many orbits."""
LOW_STOCK = 1.5
"""Threshold removed when the stock is about to run out before a knock (stock_out = draw)."""
SHIFT_WEIGHT = 1.0
"""Share of the options' strength shift (vs 52-card scat) added to the knock threshold."""
GATE_RISK = 0.20
"""Knock out of the gate when the chance of being (tied) lowest among dealt hands is below this."""
HIGHEST_NEEDED = {"points": 0.55, "chips": 0.5}
"""Points/chips scoring: knock when the simulated chance of holding the highest hand reaches this."""
SAMPLES = 200
"""Monte Carlo samples for the gate and highest-hand estimates."""


class Round:
    """What the bot remembers about the current round."""

    def __init__(self) -> None:
        self.pile: list[int] = []
        self.known: dict[int, set[int]] = {}  # seat -> cards it took and still holds
        self.draws: dict[int, int] = {}  # seat -> stock draws this round
        self.turns = 0  # completed turns (any seat) this round
        self.actions = 0  # action events this round
        self.knocker: int | None = None

    def holder(self, seat: int) -> set[int]:
        return self.known.setdefault(seat, set())


class Bot:
    """Per-match state: options, the value cache and the round memory."""

    def __init__(self, match: MatchInfo) -> None:
        self.match = match
        o = match.resolved_options
        self.options = o
        self.evaluate = match.evaluator()
        self.scoring: str = o["scoring"]
        self.deck = [i for i in range(52) if o["deck"] == 52 or (i >> 2) >= 5]
        self.round = Round()
        self.rng = random.Random(f"{match.match_id}/{match.seat}/heuristic")
        signature = repr(sorted(o.items()))
        self.values = _VALUES.setdefault(signature, {})
        if signature not in _SHIFT:  # how much stronger hands run than in 52-card scat
            _SHIFT[signature] = self.strength(self.deck) - self.strength(list(range(52)), plain=True)
        self.shift = _SHIFT[signature]

    # -- hand values ----------------------------------------------------------------

    def rate(self, a: int, b: int, c: int) -> float:
        """Value of a three-card hand (a blitz or 33 gets SPECIAL_BONUS), by the match's rules."""
        v = self.values.get(BIT[a] | BIT[b] | BIT[c])
        return self.rate_new(a, b, c) if v is None else v

    def rate_new(self, a: int, b: int, c: int) -> float:
        hand = self.evaluate((a, b, c))
        v = self.values[BIT[a] | BIT[b] | BIT[c]] = hand.value + (SPECIAL_BONUS if hand.special else 0.0)
        return v

    def rate_hand(self, hand: list[int]) -> float:
        return self.rate(hand[0], hand[1], hand[2])

    def best3(self, cards: list[int], keep: int | None = None) -> tuple[float, list[int]]:
        """Best value of three of ``cards`` (containing ``keep``) and those three cards."""
        best, hand = -1.0, cards[:3]
        for trio in combinations(cards, 3):
            if keep is not None and keep not in trio:
                continue
            v = self.rate(*trio)
            if v > best:
                best, hand = v, list(trio)
        return best, hand

    def potential(self, hand: list[int], unseen: list[int], cache: dict[int, float]) -> float:
        """Average gain of one more draw: mean over unseen c of best3(hand + c) - value(hand)."""
        a, b, c = hand
        ba, bb, bc = BIT[a], BIT[b], BIT[c]
        key = ba | bb | bc
        p = cache.get(key)
        if p is None:
            base = self.rate(a, b, c)
            values = self.values
            get = values.get
            ab, ac, bc_ = ba | bb, ba | bc, bb | bc
            gain = 0.0
            count = 0
            for x in unseen:
                bx = BIT[x]
                if bx & key:  # a drawn card being valued is not drawn again
                    continue
                count += 1
                v1 = get(ab | bx)
                if v1 is None:
                    v1 = self.rate_new(a, b, x)
                v2 = get(ac | bx)
                if v2 is None:
                    v2 = self.rate_new(a, c, x)
                v3 = get(bc_ | bx)
                if v3 is None:
                    v3 = self.rate_new(b, c, x)
                best = v1 if v1 > v2 else v2
                if v3 > best:
                    best = v3
                if best > base:
                    gain += best - base
            p = cache[key] = gain / count if count else 0.0
        return p

    def strength(self, deck: list[int], plain: bool = False) -> float:
        """Mean best hand of five random cards of ``deck``: how strong hands run under the
        match's options (``plain``: suit sums only, the 52-card scat reference)."""
        from arena.rules.net_suit import suit_sum  # loaded by the match's rules already

        rng = random.Random(5)
        total = 0.0
        for _ in range(300):
            pool = rng.sample(deck, 5)
            if plain:
                total += max(suit_sum(t) for t in combinations(map(CARDS.__getitem__, pool), 3))
            else:
                total += min(31.0, self.best3(pool)[0])
        return total / 300

    # -- memory -----------------------------------------------------------------------

    def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        r = self.round
        if kind in ("round_start", "deal"):
            if kind == "round_start" or r.actions:
                r = self.round = Round()
            if kind == "deal" and event.get("upcard") in INDEX:
                r.pile = [INDEX[event["upcard"]]]
        elif kind == "action":
            seat = event.get("seat", -1)
            text = str(event.get("action", ""))
            words = text.split()
            r.actions += 1
            if not words:
                return
            if words[0] == "take":
                card = INDEX.get(str(event.get("card")))
                if card is not None:
                    if r.pile and r.pile[-1] == card:
                        r.pile.pop()
                    if seat != self.match.seat:
                        r.holder(seat).add(card)
            elif words[0] == "draw":
                r.draws[seat] = r.draws.get(seat, 0) + 1
            elif words[0] == "discard" and len(words) > 1 and words[1] in INDEX:
                card = INDEX[words[1]]
                r.pile.append(card)
                r.holder(seat).discard(card)
                r.turns += 1
            elif words[0] == "knock":
                r.knocker = seat
                r.turns += 1
            elif words[0] == "stand":
                r.turns += 1
            elif words[0] == "exchange":
                r.turns += 1
                given = [INDEX[w] for w in words[1:] if w in INDEX]
                held = r.holder(seat)
                for card in given:
                    held.discard(card)
                if seat != self.match.seat:
                    held.update(INDEX[c] for c in event.get("taken_face_up", ()) if c in INDEX)
        elif kind == "reshuffle":
            r.pile = r.pile[-1:]

    def unseen(self, observation: dict[str, Any], hand: list[int]) -> list[int]:
        """Cards the bot has not seen this round (in the stock, the widow face down or
        opponents' hands): what a draw may bring."""
        r = self.round
        top = observation.get("discard_top")
        shown_top = NAMES[r.pile[-1]] if r.pile else None
        if len(r.pile) != observation.get("discard_size") or shown_top != top:
            r.pile = [INDEX[top]] if top in INDEX else []  # lost track: trust only what is shown
        seen = set(hand) | set(r.pile)
        for seat, cards in r.known.items():
            if seat != self.match.seat:
                seen |= cards
        for card in observation.get("widow") or ():
            if card in INDEX:
                seen.add(INDEX[card])
        return [c for c in self.deck if c not in seen]

    # -- decisions --------------------------------------------------------------------

    def choose(self, observation: dict[str, Any], legal: list[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        hand = [INDEX[c] for c in observation["hand"]]
        unseen = self.unseen(observation, hand)
        phase = observation.get("phase")
        if phase == "discard":
            return self.choose_discard(observation, legal, hand, unseen)
        return self.choose_turn(observation, legal, hand, unseen)

    def choose_turn(self, observation: dict[str, Any], legal: list[str], hand: list[int], unseen: list[int]) -> str:
        last = observation.get("phase") == "last_turn"
        current = self.rate_hand(hand)
        if "knock" in legal:
            if current >= 31 + SPECIAL_BONUS:  # a blitz to show (blitz_on_turn)
                return "knock"
            if not last and self.should_knock(observation, hand, current, unseen):
                return "knock"
        lam = 0.0 if last else LAMBDA
        cache: dict[int, float] = {}

        def score(h: list[int]) -> float:
            v = self.rate_hand(h)
            return v + lam * self.potential(h, unseen, cache) if lam else v

        candidates: list[tuple[float, str]] = []
        top = observation.get("discard_top")
        if "take" in legal and top in INDEX:
            t = INDEX[top]
            candidates.append((max(score([x, y, t]) for x, y in combinations(hand, 2)) + 1e-6, "take"))
        if "draw" in legal and unseen:
            total = 0.0
            for x in unseen:
                four = hand + [x]
                total += max(score(list(trio)) for trio in combinations(four, 3))
            candidates.append((total / len(unseen), "draw"))
        widow = observation.get("widow")
        if widow:
            for action in legal:
                if action.startswith("exchange"):
                    after = _exchange_result(observation["hand"], action, widow)
                    if after is not None:
                        candidates.append((score([INDEX[c] for c in after]), action))
        if "stand" in legal:
            candidates.append((score(hand), "stand"))
        if candidates:
            return max(candidates)[1]
        return "draw" if "draw" in legal else legal[0]

    def choose_discard(self, observation: dict[str, Any], legal: list[str], hand: list[int], unseen: list[int]) -> str:
        going_on = observation.get("knocker") is None
        cache: dict[int, float] = {}
        danger = self.danger(observation)
        best: tuple[float, float, str] | None = None
        for action in legal:
            words = action.split()
            if words[0] != "discard" or words[1] not in INDEX:
                continue
            card = INDEX[words[1]]
            rest = [c for c in hand if c != card]
            s = self.rate_hand(rest)
            if going_on:
                s += LAMBDA * self.potential(rest, unseen, cache)
            s -= danger(card)
            key = (s, -POINTS[card], action)  # ties: throw the lower card
            if best is None or key > best:
                best = key
        return best[2] if best else legal[0]

    def next_seat(self, observation: dict[str, Any]) -> int | None:
        """The next seat to move after this bot, or None if the round ends with this turn."""
        active = observation.get("active") or []
        n = len(active)
        me = self.match.seat
        s = (me + 1) % n
        while s != me and not active[s]:
            s = (s + 1) % n
        if s == me:
            return None
        knocker = observation.get("knocker")
        if knocker is not None and s == knocker:
            return None  # the last turns end with this one
        return s

    def danger(self, observation: dict[str, Any]) -> Any:
        """Penalty for handing ``card`` to the next player, from the cards it is known to hold:
        a card completing its blitz: 20; a 10 or an ace of a suit it collects: 1.5."""
        nxt = self.next_seat(observation)
        known = sorted(self.round.known.get(nxt, ()), key=POINTS.__getitem__, reverse=True) if nxt is not None else []

        def penalty(card: int) -> float:
            same = [c for c in known if c & 3 == card & 3][:2]
            if not same:
                return 0.0
            if len(same) == 2 and POINTS[same[0]] + POINTS[same[1]] + POINTS[card] == 31:
                return 20.0
            return 1.5 if POINTS[card] >= 10 else 0.0

        return penalty

    def should_knock(self, observation: dict[str, Any], hand: list[int], value: float, unseen: list[int]) -> bool:
        o = self.options
        r = self.round
        active = observation.get("active") or [True] * self.match.players
        n = max(2, sum(1 for a in active if a))
        if o["out_of_the_gate"] and r.actions == 0:
            if value >= 31:  # a dealt 31: declining shows it as a blitz, knocking only as 31
                return False
            return self.gate_risk(hand, value, unseen, n) < GATE_RISK
        if self.scoring in HIGHEST_NEEDED:
            if value < 20:
                return False
            return self.chance_highest(hand, value, unseen, observation) >= HIGHEST_NEEDED[self.scoring]
        threshold = self.threshold(observation, n)
        return value >= threshold

    def threshold(self, observation: dict[str, Any], n: int) -> float:
        """The lives-scoring knock threshold (see the module and bot.toml notes)."""
        o = self.options
        r = self.round
        t = KNOCK_BASE + PER_PLAYER * (n - 2)
        t += PER_ORBIT * min(MAX_ORBITS, r.turns / n)
        stock = observation.get("stock", 99)
        if o["stock_out"] == "draw" and stock <= n:
            t -= LOW_STOCK
        t += SHIFT_WEIGHT * self.shift
        if o["knocker_tie"] == "loses":
            t += 0.5
        if o["knocker_blitz_penalty"] > 1:
            t += 0.5
        if o["knocker_must_beat"]:
            t += 1.0
        lives = observation.get("lives")
        if lives is not None:
            mine = lives[self.match.seat]
            floor = 0 if o["free_ride"] else 1
            if mine - o["knocker_penalty"] < floor:
                t += 1.0  # a failed knock would put the bot out
        return t

    def gate_risk(self, hand: list[int], value: float, unseen: list[int], n: int) -> float:
        """Simulated chance that the bot is lowest (or tied lowest, when a tied knocker loses)
        against the n-1 others' dealt hands: out of the gate nobody else plays a turn."""
        ties_lose = self.options["knocker_tie"] == "loses" or self.options["knocker_must_beat"]
        if len(unseen) < 3 * (n - 1):
            return 1.0
        low = 0
        for _ in range(SAMPLES):
            cards = self.rng.sample(unseen, 3 * (n - 1))
            others = [self.rate(*cards[3 * i: 3 * i + 3]) for i in range(n - 1)]
            m = min(others)
            if m > value or (ties_lose and m == value):
                low += 1
        return low / SAMPLES

    def chance_highest(self, hand: list[int], value: float, unseen: list[int], observation: dict[str, Any]) -> float:
        """Simulated chance the bot's hand is the highest at a showdown after its knock:
        each opponent holds the best three of its known cards plus random unseen cards,
        one more for each stock draw it made this round and one for its last turn."""
        r = self.round
        active = observation.get("active") or []
        opponents = [s for s, a in enumerate(active) if a and s != self.match.seat]
        wins = 0.0
        for _ in range(SAMPLES):
            pool = list(unseen)
            self.rng.shuffle(pool)
            at = 0
            best_other = 0.0
            for s in opponents:
                known = [c for c in r.known.get(s, ()) if c not in hand][:3]
                extra = min(6 - len(known), 3 - len(known) + r.draws.get(s, 0) + 1)  # at most 6 cards
                cards = known + pool[at: at + extra]
                at += extra
                if len(cards) >= 3:
                    best_other = max(best_other, self.best3(cards)[0])
            if value > best_other:
                wins += 1
            elif value == best_other:
                wins += 0.5
        return wins / SAMPLES


def _exchange_result(hand: list[str], action: str, widow: list[str | None]) -> list[str] | None:
    """The hand after ``exchange G.. for P..`` when every card received is face up, else None."""
    words = action.split()
    if "for" not in words:
        return None
    split = words.index("for")
    give, positions = words[1:split], words[split + 1:]
    try:
        received = [widow[int(p)] for p in positions]
    except (ValueError, IndexError):
        return None
    if any(card not in INDEX for card in received):
        return None
    after = [c for c in hand if c not in give] + [str(c) for c in received]
    return after if len(after) == 3 else None


_bot: Any = None
"""The current match's bot: a Bot, or for another rules family one of relatives.FAMILIES,
widow_family.FAMILIES, skat_family.FAMILIES."""
_VALUES: dict[str, dict[int, float]] = {}
"""Hand values by the match options they were computed under (a process plays many matches)."""
_SHIFT: dict[str, float] = {}


def _current(match: MatchInfo) -> Any:
    global _bot
    if _bot is None or _bot.match is not match:
        family = match.rules.family.name
        players = {**relatives.FAMILIES, **widow_family.FAMILIES, **skat_family.FAMILIES}
        _bot = players[family](match) if family in players else Bot(match)
    return _bot


@hookimpl
def match_start(match: MatchInfo) -> None:
    _current(match)


@hookimpl
def on_event(event: dict[str, Any], match: MatchInfo) -> None:
    _current(match).on_event(event)


@hookimpl
def choose(observation: dict[str, Any], legal: list[str], match: MatchInfo) -> str:
    action = _current(match).choose(observation, legal)
    return action if action in legal else legal[0]
