"""Skat's card orders, contracts and game values (docs/RULES.md 6), apart from the play.

Pure functions on cards (``rank * 4 + suit``; the 32-card deck is 7 to A) so that the
state machine, ``arena hand`` and the tests share one reading of the ISkO rules: which
cards are trumps and in what order, who wins a trick, what a game is worth and what it
scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from arena.cards import Card
from arena.rules.hands import HandValue

__all__ = [
    "BASE",
    "BID_VALUES",
    "CARD_POINTS",
    "Contract",
    "GAMES",
    "Result",
    "card_points",
    "contracts",
    "follows",
    "hand_value",
    "legal_plays",
    "matadors",
    "null_value",
    "score_change",
    "settle",
    "suit_of",
    "top_trumps",
    "trick_winner",
]

JACK: Final = 9
ACE: Final = 12
TEN: Final = 8
RANK_POINTS: Final = {12: 11, 8: 10, 11: 4, 10: 3, 9: 2}
CARD_POINTS: Final[tuple[int, ...]] = tuple(RANK_POINTS.get(i >> 2, 0) for i in range(52))
"""Card points by card: A 11, 10 10, K 4, Q 3, J 2, 9 8 7 nothing (120 in the deck)."""

SUITS: Final = {"clubs": 0, "diamonds": 1, "hearts": 2, "spades": 3}
GAMES: Final = ("diamonds", "hearts", "spades", "clubs", "grand", "null")
"""The games a declarer may announce, lowest base first."""
BASE: Final = {"diamonds": 9, "hearts": 10, "spades": 11, "clubs": 12, "grand": 24}
NULL_VALUES: Final = {(False, False): 23, (True, False): 35, (False, True): 46, (True, True): 59}
"""Null's fixed values by (hand, ouvert)."""

TRUMP: Final = 4
"""The effective suit of a trump."""
JACK_ORDER: Final = (0, 3, 2, 1)
"""The jacks from the highest: clubs, spades, hearts, diamonds (suit indexes)."""
_PLAIN_ORDER: Final = (12, 8, 11, 10, 7, 6, 5)
"""A suit's cards from the highest in suit and grand games: A 10 K Q 9 8 7 (rank indexes)."""
_NULL_ORDER: Final = (12, 11, 10, 9, 8, 7, 6, 5)
"""Null: A K Q J 10 9 8 7."""


def _max_multiplier(game: str) -> int:
    """Matadors (11 in a suit game, 4 in grand) + game, hand, schneider, announced,
    schwarz, announced, ouvert."""
    return (11 if game in SUITS else 4) + 7


BID_VALUES: Final[tuple[int, ...]] = tuple(sorted(
    {base * m for game, base in BASE.items() for m in range(2, _max_multiplier(game) + 1)}
    | set(NULL_VALUES.values())
))
"""Every value a game can have, 18 to 264: the values a bid may name."""


def top_trumps(game: str) -> tuple[Card, ...]:
    """The trumps of ``game`` from the highest: none in null, the jacks alone in grand (and
    ramsch), the jacks then the suit's A 10 K Q 9 8 7 in a suit game."""
    if game == "null":
        return ()
    jacks = tuple(Card(JACK * 4 + s) for s in JACK_ORDER)
    if game not in SUITS:
        return jacks
    suit = SUITS[game]
    return jacks + tuple(Card(r * 4 + suit) for r in _PLAIN_ORDER)


def suit_of(card: int, game: str) -> int:
    """The suit ``card`` belongs to in ``game``: its own, or :data:`TRUMP` (jacks outside
    null; the trump suit's cards in a suit game)."""
    if game == "null":
        return card & 3
    if card >> 2 == JACK or SUITS.get(game) == card & 3:
        return TRUMP
    return card & 3


def _strength(card: int, game: str) -> int:
    """Order within the card's own suit in ``game`` (higher wins)."""
    rank = card >> 2
    if game == "null":
        return 8 - _NULL_ORDER.index(rank)
    if rank == JACK:
        return 20 - JACK_ORDER.index(card & 3)
    return 8 - _PLAIN_ORDER.index(rank)


def trick_winner(cards: Sequence[int], game: str) -> int:
    """The index in ``cards`` (in the order played) of the card that takes the trick: the
    highest trump, else the highest card of the suit led."""
    led = suit_of(cards[0], game)
    best = 0
    best_key = (1, _strength(cards[0], game))
    for i in range(1, len(cards)):
        suit = suit_of(cards[i], game)
        key = (2 if suit == TRUMP and led != TRUMP else 1 if suit == led else 0, _strength(cards[i], game))
        if key > best_key:
            best, best_key = i, key
    return best


def follows(card: int, led: int, game: str) -> bool:
    """Whether ``card`` is of the suit of the card ``led`` in ``game``."""
    return suit_of(card, game) == suit_of(led, game)


def legal_plays(hand: Sequence[Card], led: int | None, game: str) -> list[Card]:
    """The cards of ``hand`` that may be played: any to lead, else the led suit if held."""
    if led is None:
        return sorted(hand)
    same = [c for c in hand if follows(c, led, game)]
    return sorted(same or hand)


def card_points(cards: Iterable[int]) -> int:
    """The card points of ``cards``."""
    return sum(CARD_POINTS[c] for c in cards)


def matadors(cards: Iterable[int], game: str) -> int:
    """Matadors of the declarer's cards (hand and skat): ``n`` "with" n (the top trumps
    held in unbroken sequence from the club jack), ``-n`` "without" n (not held)."""
    held = set(cards)
    order = top_trumps(game)
    with_ = order[0] in held
    count = 0
    for card in order:
        if (card in held) != with_:
            break
        count += 1
    return count if with_ else -count


def null_value(hand: bool, ouvert: bool) -> int:
    """Null 23, null hand 35, null ouvert 46, null ouvert hand 59."""
    return NULL_VALUES[hand, ouvert]


@dataclass(frozen=True, slots=True)
class Contract:
    """A declared game: its name and announcements (schwarz implies schneider announced,
    ouvert in a suit or grand game implies both)."""

    game: str
    hand: bool = False
    schneider: bool = False
    schwarz: bool = False
    ouvert: bool = False

    @staticmethod
    def parse(words: str, hand: bool) -> Contract:
        """The contract ``words`` (the text after ``declare``) name; ``hand`` when the skat
        was not picked up."""
        said = words.split()
        game = said[0]
        trump_ouvert = "ouvert" in said and game != "null"
        schwarz = "schwarz" in said or trump_ouvert
        return Contract(game, hand, schwarz or "schneider" in said, schwarz, "ouvert" in said)

    @property
    def words(self) -> str:
        """The text after ``declare``: the game, then ``hand`` and the highest announcement."""
        words = [self.game]
        if self.hand:
            words.append("hand")
        if self.ouvert:
            words.append("ouvert")
        elif self.schwarz:
            words.append("schwarz")
        elif self.schneider:
            words.append("schneider")
        return " ".join(words)

    @property
    def announced(self) -> list[str]:
        """The announcements made, as words (``hand``, ``schneider``, ``schwarz``, ``ouvert``)."""
        flags = (("hand", self.hand), ("schneider", self.schneider), ("schwarz", self.schwarz),
                 ("ouvert", self.ouvert))
        return [word for word, on in flags if on]

    @property
    def base(self) -> int:
        """The base value (null: its fixed value)."""
        return null_value(self.hand, self.ouvert) if self.game == "null" else BASE[self.game]


def contracts(hand: bool, bid: int) -> list[Contract]:
    """Every game the declarer may announce: after picking up the skat the five trump games,
    null and null ouvert; playing hand, each trump game plain, schneider, schwarz or ouvert
    announced, and null hand and null ouvert hand.  A null game worth less than the bid
    cannot be declared (it has no multiples to reach it)."""
    out: list[Contract] = []
    for game in GAMES[:-1]:
        out.append(Contract(game, hand))
        if hand:
            out += [Contract(game, True, True), Contract(game, True, True, True),
                    Contract(game, True, True, True, True)]
    for ouvert in (False, True):
        if null_value(hand, ouvert) >= bid:
            out.append(Contract("null", hand, ouvert=ouvert))
    return out


@dataclass(frozen=True, slots=True)
class Result:
    """A played game's result: won or lost, its value and how the value was made."""

    won: bool
    value: int
    overbid: bool
    matadors: int | None
    multiplier: int | None
    schneider: bool
    schwarz: bool

    @property
    def matadors_text(self) -> str | None:
        """``with 2`` / ``without 3`` (None in null)."""
        if self.matadors is None:
            return None
        return f"{'with' if self.matadors > 0 else 'without'} {abs(self.matadors)}"


def settle(contract: Contract, bid: int, declarer_cards: Iterable[int], points: int, tricks: int) -> Result:
    """The result of a game: ``declarer_cards`` are the declarer's ten dealt cards and the
    skat, ``points`` the declarer's card points (skat included), ``tricks`` its tricks (of ten; in
    null, of those played).  An overbid game is lost at the lowest multiple of its base that
    reaches the bid."""
    if contract.game == "null":
        value = contract.base
        return Result(tricks == 0, value, False, None, None, False, False)
    mats = matadors(declarer_cards, contract.game)
    schwarz = tricks in (0, 10)
    schneider = schwarz or points >= 90 or points <= 30
    won = points >= 61 and (not contract.schneider or points >= 90) and (not contract.schwarz or tricks == 10)
    levels = (abs(mats) + 1 + contract.hand + (schneider or contract.schneider) + contract.schneider
              + (schwarz or contract.schwarz) + contract.schwarz + contract.ouvert)
    value = contract.base * levels
    overbid = value < bid
    if overbid:
        won = False
        value = -(-bid // contract.base) * contract.base
    return Result(won, value, overbid, mats, levels, schneider, schwarz)


def score_change(result: Result, picked_up: bool, lost_scoring: str, kontra: int = 0) -> int:
    """What the declarer scores (before league points): the value if won; if lost, minus
    the value, doubled (``lost_scoring = official``; ``source``: only when the skat was picked
    up).  Kontra doubles the value, Re doubles it again (``kontra`` is 0, 1 or 2)."""
    value = result.value << kontra
    if result.won:
        return value
    return -2 * value if lost_scoring == "official" or picked_up else -value


def hand_value(cards: Sequence[Card]) -> HandValue:
    """A hand's value for ``arena hand``: the suit game in which it holds the most trumps
    (equal counts: the higher base), worth base x (matadors + 1), matadors counted over the
    cards given (ten: the skat unknown and not counted; twelve: hand and skat); the label
    says the matadors and what grand would be worth."""
    def trumps(game: str) -> int:
        return sum(1 for c in cards if suit_of(c, game) == TRUMP)

    game = max(("diamonds", "hearts", "spades", "clubs"), key=lambda g: (trumps(g), BASE[g]))
    label = ""
    values = {}
    for name in (game, "grand"):
        mats = matadors(cards, name)
        values[name] = BASE[name] * (abs(mats) + 1)
        text = f"{'with' if mats > 0 else 'without'} {abs(mats)}"
        count = trumps(name)
        label += (f"{name} ({count} trump{'' if count == 1 else 's'}) {text}: "
                  f"game {abs(mats) + 1} x {BASE[name]} = {values[name]}")
        label += "; " if name == game else ""
    if len(cards) == 10:
        label += " (the skat not counted)"
    key = (values[game],)
    shown = sorted(cards, key=lambda c: (suit_of(c, game), _strength(c, game)), reverse=True)  # trumps first
    return HandValue(float(values[game]), tuple(shown), label, key, key)
