"""Skat's hand evaluation: the heuristic bot's, copied, and its auction as a fallback.

Copied from ``bots/heuristic/skat.py`` (a bot folder is self-contained: the bot host puts
only its own folder on the path), where the evaluation is documented in full; in short:
a game's card points are estimated by a trick count (trump winners, side aces and A-10
runs, half a trick for a guarded ten and for a void with five trumps, 5 points a trick
won, 7.5 for the skat and the best two-card discard).  A game estimated at 61 points
(grand 69, hand 78) with five trumps (grand: two jacks) is bid up to base x (matadors +
1); low cards only bid null.  After the pickup the game and discard are chosen together
over the twelve cards.

The search bot decides its auction, skat, discard and game by search
(:mod:`skat_bidding`); it uses this evaluation where a search needs something cheap: to
rank the discards it tries, to stand for the other seats' bidding when it weighs a deal
(:func:`skat_deal.call_weight`), and as the whole auction when no deal fits in the time.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

from arena.cards import NAMES, parse_card
from arena.rules.skat_values import BASE, CARD_POINTS, TRUMP, matadors, suit_of, top_trumps

JACK = 9
ACE = 12
SUIT_OF_GAME = {"clubs": 0, "diamonds": 1, "hearts": 2, "spades": 3}
TRUMP_GAMES = ("clubs", "spades", "hearts", "diamonds", "grand")
PLAIN_ORDER = (12, 8, 11, 10, 7, 6, 5)
"""A side suit from the highest: A 10 K Q 9 8 7 (rank indexes)."""
JACK_POWER = {0: 23, 3: 22, 2: 21, 1: 20}
"""Jacks above every other trump: clubs, spades, hearts, diamonds."""

PER_TRICK = 5.0
"""Card points the others add to each trick the declarer wins."""
SKAT_AVERAGE = 7.5
"""Expected card points of two unknown skat cards (the declarer's)."""
THRESHOLD = 61.0
"""Estimated card points a pickup game needs to be played."""
HAND_THRESHOLD = 78.0
"""Estimated card points a hand game needs (the skat may not help)."""
GRAND_MARGIN = 8.0
"""Grand needs this much more (it costs twice a suit game when lost)."""
MIN_TRUMPS = 5
"""A suit game needs this many trumps in the ten cards."""
MIN_GRAND_JACKS = 2
VOID_TRICK = 0.5
"""A side void in a suit game with MIN_TRUMPS trumps: half a trick (a ruff)."""
NULL_VALUE = 23


def power(card: int, game: str) -> int:
    """Order of ``card`` within its suit in ``game`` (compare only cards of one suit_of)."""
    rank = card >> 2
    if game == "null":
        return rank
    if rank == JACK:
        return JACK_POWER[card & 3]
    return 6 - PLAIN_ORDER.index(rank)


TOP = {game: tuple(int(c) for c in top_trumps(game)) for game in TRUMP_GAMES}
"""Each trump game's trumps from the highest."""


def trump_part(held: set[int], game: str) -> tuple[float, float, int, bool]:
    """(points, tricks) of the trump winners, the trumps held, and whether the bot can draw
    the others' trumps (two more than they hold)."""
    order = TOP[game]
    t = sum(1 for c in order if c in held)
    others = len(order) - t
    below = t
    missing = high = 0
    points = 0.0
    for c in order:
        if c in held:
            below -= 1
            if missing <= below:
                high += 1
                points += CARD_POINTS[c]
        else:
            missing += 1
    return points, float(max(high, t - others)), t, t >= others + 2


def side_part(held: set[int], s: int, game: str, t: int, draw: bool) -> float:
    """Estimated points (winners' card points + PER_TRICK a trick) of side suit ``s``."""
    n = sum(1 for r in PLAIN_ORDER if r * 4 + s in held)
    if n == 0:
        return PER_TRICK * VOID_TRICK if game != "grand" and t >= MIN_TRUMPS else 0.0
    cap = n if draw else max(1, 6 - n)
    wins = 0
    gone = 0
    points = 0.0
    for r in PLAIN_ORDER:
        c = r * 4 + s
        if c not in held:
            gone += 1
            if gone > 1 or wins:
                break
            continue
        if gone == 0:
            if wins < cap:
                wins += 1
                points += CARD_POINTS[c]
            continue
        if n >= 2:  # second from the top, guarded: half a winner
            points += CARD_POINTS[c] / 2 + PER_TRICK / 2
        break
    return points + PER_TRICK * wins


def evaluate(cards: list[int], game: str) -> float:
    """Estimated card points of ``cards`` as declarer of ``game`` (a suit or grand), the
    skat not counted: the trick count of the module docstring."""
    held = set(cards)
    points, tricks, t, draw = trump_part(held, game)
    trump_suit = SUIT_OF_GAME.get(game)
    total = points + PER_TRICK * tricks
    for s in range(4):
        if s != trump_suit:
            total += side_part(held, s, game, t, draw)
    return total


def game_value(cards: list[int], game: str, hand: bool) -> int:
    """base x (matadors + 1 [+ 1 hand]); on ten cards "without" counts at most 1."""
    mats = matadors(cards, game)
    m = mats if mats > 0 else -mats if len(cards) > 10 else min(-mats, 1)
    return BASE[game] * (m + 1 + hand)


def trumps_in(cards: list[int], game: str) -> int:
    return sum(1 for c in cards if suit_of(c, game) == TRUMP)


def playable(cards: list[int], game: str) -> bool:
    """Enough trumps for the game: MIN_TRUMPS in a suit game, MIN_GRAND_JACKS jacks in grand."""
    return trumps_in(cards, game) >= (MIN_GRAND_JACKS if game == "grand" else MIN_TRUMPS)


def best_discard(cards: list[int], game: str) -> tuple[float, tuple[int, int]]:
    """The two cards to put away for ``game``: maximise the rest's estimate plus their
    points.  Side cards only (no jack, no trump; no ace while another card can go).  The
    estimate is a sum over suits, so each suit's best one- and two-card discards are found
    apart and combined."""
    side = [c for c in cards if suit_of(c, game) != TRUMP]
    pool = [c for c in side if c >> 2 != ACE]
    if len(pool) < 2:
        pool = side
    held = set(cards)
    if len(pool) < 2:  # (nearly) trumps only: the lowest cards
        pair = sorted(cards, key=lambda c: (suit_of(c, game) == TRUMP, c >> 2 == JACK, power(c, game)))[:2]
        rest = [c for c in cards if c not in pair]
        return evaluate(rest, game) + CARD_POINTS[pair[0]] + CARD_POINTS[pair[1]], (pair[0], pair[1])
    points, tricks, t, draw = trump_part(held, game)
    total = points + PER_TRICK * tricks
    ones: list[tuple[float, tuple[int, ...]]] = []
    twos: list[tuple[float, tuple[int, ...]]] = []
    trump_suit = SUIT_OF_GAME.get(game)
    for s in range(4):
        if s == trump_suit:
            continue
        base = side_part(held, s, game, t, draw)
        total += base
        suited = [c for c in pool if c & 3 == s]
        for k, into in ((1, ones), (2, twos)):
            best: tuple[float, tuple[int, ...]] | None = None
            for group in combinations(suited, k):
                kept = held.difference(group)
                gain = side_part(kept, s, game, t, draw) + sum(CARD_POINTS[c] for c in group) - base
                if best is None or gain > best[0]:
                    best = (gain, group)
            if best is not None:
                into.append(best)
    choices = list(twos) + [(x[0] + y[0], x[1] + y[1]) for x, y in combinations(ones, 2)]
    gain, group = max(choices)
    return total + gain, (group[0], group[1])


def null_danger(cards: list[int]) -> int:
    """Cards that make their suit unsafe in null: the k-th lowest held must be at most the
    (2k+1)-th lowest of the suit (7, 9, J, K)."""
    danger = 0
    for s in range(4):
        ranks = sorted(c >> 2 for c in cards if c & 3 == s)
        danger += sum(1 for k, r in enumerate(ranks) if r - 5 > 2 * k)
    return danger


def null_discard(cards: list[int]) -> tuple[int, tuple[int, int]]:
    """(danger left, the pair to put away) for null: twice over, the card whose removal
    leaves the least danger (ties: the higher card)."""
    rest = list(cards)
    gone: list[int] = []
    for _ in range(2):
        card = min(rest, key=lambda c: (null_danger([x for x in rest if x != c]), -(c >> 2)))
        rest.remove(card)
        gone.append(card)
    return null_danger(rest), (gone[0], gone[1])


class Plan:
    """The auction's plan for ten cards: the game, hand or pickup, the highest value to bid."""

    def __init__(self, game: str | None, hand: bool, limit: int, points: float) -> None:
        self.game = game
        self.hand = hand
        self.limit = limit
        self.points = points

    def __repr__(self) -> str:
        return f"Plan({self.game!r}, hand={self.hand}, limit={self.limit}, points={self.points:.1f})"


def plan(cards: list[int]) -> Plan:
    """The bidding evaluation of ten cards (module docstring): the playable game of the
    highest value, or Plan(None, ...) with limit 0 (pass)."""
    best = Plan(None, False, 0, 0.0)
    for game in TRUMP_GAMES:
        if not playable(cards, game):
            continue
        margin = GRAND_MARGIN if game == "grand" else 0.0
        bare = evaluate(cards, game)
        pickup = best_discard(cards, game)[0] + SKAT_AVERAGE
        hand_points = bare + SKAT_AVERAGE
        options = []
        if pickup >= THRESHOLD + margin:
            options.append(Plan(game, False, game_value(cards, game, False), pickup))
        if hand_points >= HAND_THRESHOLD + margin:
            options.append(Plan(game, True, game_value(cards, game, True), hand_points))
        for option in options:
            if (option.limit, option.points) > (best.limit, best.points):
                best = option
    if best.game is None:
        low = sorted(cards, key=lambda c: c >> 2)[:8]
        if null_danger(cards) <= 2 and null_danger(low) == 0:
            best = Plan("null", False, NULL_VALUE, 0.0)
    return best


def choose_game(cards: list[int], bid: int) -> tuple[str, tuple[int, int]]:
    """After the pickup: the game and the two cards to discard, over the twelve cards."""
    found: list[tuple[bool, int, float, str, tuple[int, int]]] = []
    for game in TRUMP_GAMES:
        value = game_value(cards, game, False)
        if value < bid:
            continue
        margin = GRAND_MARGIN if game == "grand" else 0.0
        score, pair = best_discard(cards, game)
        ok = score >= THRESHOLD + margin and playable(cards, game)
        found.append((ok, value if ok else 0, score - margin, game, pair))
    if bid <= NULL_VALUE and not any(f[0] for f in found):
        danger, pair = null_discard(cards)
        if danger == 0:
            return "null", pair
    if found:
        best = max(found)
        return best[3], best[4]
    # every trump game is overbid: lost anyway; play the strongest
    game = max(TRUMP_GAMES, key=lambda g: best_discard(cards, g)[0])
    return game, best_discard(cards, game)[1]



class Auction:
    """One seat's auction and game choice: the plan is made once a deal, from its ten cards."""

    def __init__(self) -> None:
        self.round: int | None = None
        self.plan = Plan(None, False, 0, 0.0)
        self.game: str | None = None
        """The game the seat means to declare (set by the plan, the pickup or the discard)."""

    def choose(self, observation: Mapping[str, Any], legal: list[str]) -> str:
        """The seat's action in the ``bid``, ``answer``, ``skat``, ``discard`` or ``declare`` phase."""
        phase = observation.get("phase")
        hand = [int(parse_card(c)) for c in observation["hand"]]
        bid = int(observation.get("bid") or 0)
        if phase in ("bid", "answer", "skat") and self.round != observation.get("round"):
            self.round = observation.get("round")
            self.plan = plan(hand)
            self.game = self.plan.game
        if phase == "bid":
            bids = [int(a.split()[1]) for a in legal if a.startswith("bid ")]
            return f"bid {min(bids)}" if bids and min(bids) <= self.plan.limit else "pass"
        if phase == "answer":
            return "hold" if bid <= self.plan.limit else "pass"
        if phase == "skat":
            return self.pickup(hand, bid, legal)
        if phase == "discard":
            self.game, (a, b) = choose_game(hand, bid)
            return "discard " + " ".join(NAMES[c] for c in sorted((a, b)))
        if phase == "declare":
            return self.declare(hand, observation, legal)
        return legal[0]

    def pickup(self, hand: list[int], bid: int, legal: list[str]) -> str:
        """Hand when the planned trump game is worth the bid and strong enough without the skat."""
        game = self.plan.game
        if game in SUIT_OF_GAME or game == "grand":
            assert game is not None
            margin = GRAND_MARGIN if game == "grand" else 0.0
            if evaluate(hand, game) + SKAT_AVERAGE >= HAND_THRESHOLD + margin and game_value(hand, game, True) >= bid \
                    and "hand" in legal:
                return "hand"
        return "pickup"

    def declare(self, hand: list[int], observation: Mapping[str, Any], legal: list[str]) -> str:
        """The chosen game if it can be declared, else the trump game that best reaches the bid."""
        picked = observation.get("picked_up") is not None
        word = "" if picked else " hand"
        if self.game is not None and f"declare {self.game}{word}" in legal:
            return f"declare {self.game}{word}"
        bid = int(observation.get("bid") or 0)
        cards = hand + [int(parse_card(c)) for c in observation.get("skat") or ()]
        games = [g for g in TRUMP_GAMES if f"declare {g}{word}" in legal]
        if not games:
            return legal[0]
        reaching = [g for g in games if game_value(cards, g, not picked) >= bid] or games
        game = max(reaching, key=lambda g: evaluate(hand, g))
        return f"declare {game}{word}"
