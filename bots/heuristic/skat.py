"""Heuristic play for Skat (docs/RULES.md 6): a documented hand evaluation for the auction
and the skat, then rule-of-thumb card play (bot.toml ``notes``, rule 13).

Cards are ``rank * 4 + suit`` ints (suits c d h s; the 32-card deck is 7 to A), as in
arena.cards; the card orders, trick winners and matadors come from
arena.rules.skat_values (already loaded by the match's rules), everything else is counted
here, so a decision takes well under a millisecond.

Hand evaluation (:func:`evaluate`, for one trump game: a suit or grand)
-----------------------------------------------------------------------

The declarer's card points are estimated by a simple trick count:

* **Trump winners.**  Walk the game's trumps from the top (the jacks Jc Js Jh Jd, then in
  a suit game the suit's A 10 K Q 9 8 7).  A held trump counts as a winner when the
  trumps above it that the bot lacks are no more than the trumps it holds below it (it
  can wait until they fall).  With ``t`` trumps held and ``o`` held by the others the
  trump winners are ``max(that count, t - o)`` (length wins once their trumps are gone).
* **Side winners.**  In each side suit, the top cards held in unbroken sequence from the
  ace win (A, A-10, A-10-K ...), but with a long suit the others run out and ruff: at
  most ``max(1, 6 - length)`` of them count, unless the bot can draw their trumps (holds
  two trumps more than they do).  A ten or king second from the top with a guard (the
  ace out, the suit held twice or more) is half a winner.  A void in a suit game with
  five trumps or more is half a winner (a ruff).
* **Points** = the card points of the counted winning cards (a half winner: half its
  points) + ``PER_TRICK`` (5) for each winning trick (what the others put on it).
* **The skat.**  Picking up adds ``SKAT_AVERAGE`` (7.5, two unknown cards) and the best
  discard: the two side cards (never a jack or an ace) whose points, safe in the skat,
  plus the rest's estimate are highest.  Playing hand adds only ``SKAT_AVERAGE``.

A game is *playable* with a pickup when its estimate reaches ``THRESHOLD`` (61, the
points a declarer needs), hand when the hand estimate reaches ``HAND_THRESHOLD`` (78);
grand needs ``GRAND_MARGIN`` (8) more, a suit game at least five trumps, grand at least
two jacks.  Its value is ``base x (matadors + 1)`` (+1 hand), base clubs 12, spades 11,
hearts 10, diamonds 9, grand 24; "without" matadors count at most 1, as a jack in the
skat would spoil them.  The bot bids and holds up to the highest value of a playable
game and passes beyond it (or with no playable game).

Null is considered only when no trump game is playable and the hand has only low cards:
a suit is *safe* when its k-th lowest card (k = 0, 1, ...) is at most the (2k+1)-th
lowest card of the suit in null order (7 8 9 10 J Q K A: so 7, 9, J, K may be held),
a void always; null (23, with the pickup) is bid when the best eight of the ten cards
are all safe, and the two most dangerous cards go to the skat.

After the pickup the bot chooses the game and the discard together over the twelve
cards: every trump game whose value (matadors now known exactly) reaches the bid, every
pair of side cards (jacks and the game's trumps only when nothing else is left); the
pair maximising estimate + discarded points, the game by the highest value among the
playable ones (else the best estimate).

Card play: see :class:`SkatBot` (``play_*``).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from arena.rules.skat_values import BASE, CARD_POINTS, TRUMP, matadors, suit_of, top_trumps, trick_winner

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NAMES = [r + s for r in RANKS for s in SUITS]  # index = rank * 4 + suit, as in arena.cards
INDEX = {name: i for i, name in enumerate(NAMES)}
DECK = [r * 4 + s for r in range(5, 13) for s in range(4)]
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


class SkatBot:
    """One seat's Skat play: the plan is made once a deal (cached by round)."""

    def __init__(self, match: Any) -> None:
        self.match = match
        self.seat: int = match.seat
        self.plan_round: int | None = None
        self.plan = Plan(None, False, 0, 0.0)
        self.game: str | None = None

    def on_event(self, event: dict[str, Any]) -> None:
        return None

    def choose(self, observation: dict[str, Any], legal: list[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        phase = observation.get("phase")
        hand = [INDEX[c] for c in observation["hand"]]
        if phase in ("bid", "answer", "skat") and self.plan_round != observation.get("round"):
            self.plan_round = observation.get("round")
            self.plan = plan(hand)
            self.game = self.plan.game
        if phase == "bid":
            return self.bid(legal)
        if phase == "answer":
            return "hold" if observation.get("bid", 0) <= self.plan.limit else "pass"
        if phase == "skat":
            return self.pickup(hand, observation.get("bid", 0), legal)
        if phase == "discard":
            game, (a, b) = choose_game(hand, observation.get("bid", 0))
            self.game = game
            action = "discard " + " ".join(NAMES[c] for c in sorted((a, b)))
            return action if action in legal else legal[0]
        if phase == "declare":
            return self.declare(hand, observation, legal)
        plays = [a for a in legal if a.startswith("play ")]
        if not plays:
            return legal[0]
        return "play " + NAMES[self.play(observation, hand, [INDEX[a[5:]] for a in plays])]

    # -- the auction, the skat, the game ---------------------------------------------

    def bid(self, legal: list[str]) -> str:
        bids = [int(a.split()[1]) for a in legal if a.startswith("bid ")]
        if bids and min(bids) <= self.plan.limit:
            return f"bid {min(bids)}"
        return "pass"

    def pickup(self, hand: list[int], bid: int, legal: list[str]) -> str:
        p = self.plan
        if p.game in SUIT_OF_GAME or p.game == "grand":
            assert p.game is not None
            hand_points = evaluate(hand, p.game) + SKAT_AVERAGE
            margin = GRAND_MARGIN if p.game == "grand" else 0.0
            if hand_points >= HAND_THRESHOLD + margin and game_value(hand, p.game, True) >= bid and "hand" in legal:
                self.game = p.game
                return "hand"
        return "pickup" if "pickup" in legal else legal[0]

    def declare(self, hand: list[int], observation: dict[str, Any], legal: list[str]) -> str:
        picked = observation.get("picked_up") is not None
        word = "" if picked else " hand"
        if self.game is not None and f"declare {self.game}{word}" in legal:
            return f"declare {self.game}{word}"
        bid = observation.get("bid", 0)
        cards = hand + [INDEX[c] for c in observation.get("skat") or ()]
        games = [g for g in TRUMP_GAMES if f"declare {g}{word}" in legal]
        if not games:
            return legal[0]
        reaching = [g for g in games if game_value(cards, g, not picked) >= bid] or games
        game = max(reaching, key=lambda g: evaluate(hand, g))
        return f"declare {game}{word}"

    # -- card play ------------------------------------------------------------------------

    def play(self, observation: dict[str, Any], hand: list[int], legal: list[int]) -> int:
        game = str(observation.get("game"))
        trick = [(int(t["seat"]), INDEX[t["card"]]) for t in observation.get("trick") or ()]
        played: set[int] = {c for _, c in trick}
        voids: dict[int, set[int]] = {}
        for t in observation.get("tricks") or ():
            cards = [(int(x["seat"]), INDEX[x["card"]]) for x in t["cards"]]
            played.update(c for _, c in cards)
            self.note_voids(cards, game, voids)
        self.note_voids(trick, game, voids)
        shown = list(observation.get("skat") or ()) + list(observation.get("ouvert_hand") or ())
        known = {INDEX[c] for c in shown}
        mine = set(hand)
        unseen = [c for c in DECK if c not in played and c not in mine and c not in known]
        declarer = observation.get("declarer")
        if game == "null":
            return self.play_null(trick, legal, declarer)
        if game == "ramsch" or declarer is None:
            return self.play_ramsch(trick, legal, game)
        order = [observation["forehand"], observation["middlehand"], observation["rearhand"]]
        if declarer == self.seat:
            return self.play_declarer(trick, hand, legal, game, unseen, voids, order)
        return self.play_defender(trick, hand, legal, game, unseen, voids, order, declarer)

    @staticmethod
    def note_voids(cards: list[tuple[int, int]], game: str, voids: dict[int, set[int]]) -> None:
        """A seat that did not follow the suit led has none of it."""
        if not cards:
            return
        led = suit_of(cards[0][1], game)
        for seat, card in cards[1:]:
            if suit_of(card, game) != led:
                voids.setdefault(seat, set()).add(led)

    def wins(self, trick: list[tuple[int, int]], card: int, game: str) -> bool:
        cards = [c for _, c in trick] + [card]
        return trick_winner(cards, game) == len(trick)

    @staticmethod
    def lowest(cards: list[int], game: str) -> int:
        """The cheapest card to give away: side cards before trumps, fewest points, lowest."""
        return min(cards, key=lambda c: (suit_of(c, game) == TRUMP, CARD_POINTS[c], power(c, game)))

    @staticmethod
    def cheapest_winner(cards: list[int], game: str) -> int:
        return min(cards, key=lambda c: (suit_of(c, game) == TRUMP, power(c, game) if suit_of(c, game) == TRUMP else 0,
                                         CARD_POINTS[c], power(c, game)))

    def is_master(self, card: int, game: str, unseen: list[int]) -> bool:
        """No unseen card of its suit (in ``game``) is higher."""
        s = suit_of(card, game)
        p = power(card, game)
        return not any(suit_of(x, game) == s and power(x, game) > p for x in unseen)

    def safe_win(self, trick: list[tuple[int, int]], card: int, game: str, unseen: list[int],
                 after: list[int], voids: dict[int, set[int]]) -> bool:
        """``card`` wins the trick now and none of the seats in ``after`` (still to play) can
        beat it: they follow the suit led unless known void in it, then may ruff."""
        if not self.wins(trick, card, game):
            return False
        cards = [c for _, c in trick] + [card]
        led = suit_of(cards[0], game)
        for x in unseen:
            sx = suit_of(x, game)
            if sx != led and not (sx == TRUMP and any(led in voids.get(s, ()) for s in after)):
                continue
            if trick_winner(cards + [x], game) == len(cards):
                return False
        return True

    def play_declarer(self, trick: list[tuple[int, int]], hand: list[int], legal: list[int], game: str,
                      unseen: list[int], voids: dict[int, set[int]], order: list[int]) -> int:
        """Lead: the master trump while they hold trumps, a low trump when the bot has more
        of them, a side master (ace) in a suit nobody ruffs, else the cheapest card.
        Follow: last, take the trick with the cheapest winner; second, with the cheapest
        card that cannot be beaten; otherwise give the cheapest card."""
        if not trick:
            mine = sorted((c for c in hand if suit_of(c, game) == TRUMP), key=lambda c: power(c, game), reverse=True)
            theirs = [c for c in unseen if suit_of(c, game) == TRUMP]
            if mine and theirs and self.is_master(mine[0], game, unseen):
                return mine[0]
            others = [s for s in order if s != self.seat]
            masters = [c for c in hand if suit_of(c, game) != TRUMP and self.is_master(c, game, unseen)
                       and not (theirs and any(suit_of(c, game) in voids.get(s, ()) for s in others))]
            if masters:
                return max(masters, key=lambda c: CARD_POINTS[c])
            if mine and theirs and len(mine) > len(theirs):
                return mine[-1]
            return self.lowest(hand, game)
        start = order.index(trick[0][0])
        after = [order[(start + k) % 3] for k in range(len(trick) + 1, 3)]
        winners = [c for c in legal if self.wins(trick, c, game)]
        if len(trick) == 2:
            return self.cheapest_winner(winners, game) if winners else self.lowest(legal, game)
        safe = [c for c in winners if self.safe_win(trick, c, game, unseen, after, voids)]
        if safe:
            return self.cheapest_winner(safe, game)
        return self.lowest(legal, game)

    def play_defender(self, trick: list[tuple[int, int]], hand: list[int], legal: list[int], game: str,
                      unseen: list[int], voids: dict[int, set[int]], order: list[int], declarer: int) -> int:
        """Lead: a side master (ace) in a suit the declarer is not known to ruff, else the
        cheapest card of the longest side suit.  Follow: partner winning for sure (the
        declarer has played, or cannot beat it): smear the most points (not a side master
        or trump when it can keep them); declarer winning: take it with the cheapest winner
        (when last, or when the trick holds points); otherwise the cheapest card."""
        if not trick:
            side = [c for c in hand if suit_of(c, game) != TRUMP]
            masters = [c for c in side if self.is_master(c, game, unseen)
                       and suit_of(c, game) not in voids.get(declarer, ())]
            if masters:
                return max(masters, key=lambda c: CARD_POINTS[c])
            if side:
                length = {s: sum(1 for c in side if suit_of(c, game) == s) for s in range(4)}
                return min(side, key=lambda c: (CARD_POINTS[c] >= 10, suit_of(c, game) in voids.get(declarer, ()),
                                                -length[suit_of(c, game)], CARD_POINTS[c], power(c, game)))
            return self.lowest(hand, game)
        cards = [c for _, c in trick]
        leader = trick[trick_winner(cards, game)][0]
        declarer_played = any(s == declarer for s, _ in trick)
        led = suit_of(cards[0], game)
        if leader != declarer:  # partner is winning
            sure = declarer_played or self.partner_safe(trick, game, unseen, declarer, voids)
            if sure:
                following = suit_of(legal[0], game) == led and all(suit_of(c, game) == led for c in legal)

                def smear(c: int) -> float:
                    keep = not following and (suit_of(c, game) == TRUMP or self.is_master(c, game, unseen))
                    return CARD_POINTS[c] - (8 if keep else 0)

                return max(legal, key=lambda c: (smear(c), -power(c, game)))
            return self.lowest(legal, game)
        winners = [c for c in legal if self.wins(trick, c, game)]
        points = sum(CARD_POINTS[c] for c in cards)
        if winners and (len(trick) == 2 or points > 0 or any(suit_of(c, game) != TRUMP for c in winners)):
            return self.cheapest_winner(winners, game)
        return self.lowest(legal, game)

    def partner_safe(self, trick: list[tuple[int, int]], game: str, unseen: list[int], declarer: int,
                     voids: dict[int, set[int]]) -> bool:
        """The partner's card (winning now) cannot be beaten by the declarer, still to play."""
        cards = [c for _, c in trick]
        led = suit_of(cards[0], game)
        ruff = led in voids.get(declarer, ())
        for x in unseen:
            sx = suit_of(x, game)
            if sx != led and not (sx == TRUMP and ruff):
                continue
            if trick_winner(cards + [x], game) == len(cards):
                return False
        return True

    def play_null(self, trick: list[tuple[int, int]], legal: list[int], declarer: Any) -> int:
        """Null: the declarer never wins a trick it can lose (the highest card under the
        trick's winner, else the lowest; void, it throws its highest card); a defender plays
        under a declarer's winning card (the highest such), else its lowest card."""
        cards = [c for _, c in trick]
        if not cards:
            return min(legal, key=lambda c: c >> 2)
        led = cards[0] & 3
        if not all(c & 3 == led for c in legal):  # void: rid of the most dangerous card
            return max(legal, key=lambda c: c >> 2)
        top = trick_winner(cards, "null")
        under = [c for c in legal if c >> 2 < cards[top] >> 2]
        if under and (self.seat == declarer or trick[top][0] == declarer):
            return max(under, key=lambda c: c >> 2)
        return min(legal, key=lambda c: c >> 2)

    @staticmethod
    def play_ramsch(trick: list[tuple[int, int]], legal: list[int], game: str) -> int:
        """Ramsch (every player for itself, the most points lose): under the trick's winner
        with the most points, else the lowest card."""
        cards = [c for _, c in trick]
        if not cards:
            return min(legal, key=lambda c: (suit_of(c, game) == TRUMP, power(c, game)))
        losers = [c for c in legal if trick_winner(cards + [c], game) != len(cards)]
        if losers:
            return max(losers, key=lambda c: (CARD_POINTS[c], power(c, game)))
        if len(cards) == 2:  # taken anyway: with the most points
            return max(legal, key=lambda c: (CARD_POINTS[c], power(c, game)))
        return min(legal, key=lambda c: (CARD_POINTS[c], power(c, game)))


FAMILIES = {"skat": SkatBot}
"""The rules families this module plays, by family name (bot.py dispatches on it)."""
