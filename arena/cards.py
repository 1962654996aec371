"""Cards, decks and the arena's seeded shuffle.

A card is a small ``int`` (``rank * 4 + suit``) so the rules engine can index tables
with it, but it prints and parses as the canonical two-character form (``As``, ``Th``,
``7c``).  Every card is one of 52 interned :class:`Card` objects.

The shuffle is the project's own and is part of the rules: every deal is a pure
function of a 64-bit seed, identical on every platform and Python version.

* **Generator**: SplitMix64 (Steele, Lea and Flood 2014).  The state is a 64-bit
  integer; each step adds ``0x9E3779B97F4A7C15`` and mixes the sum with the two
  multiply-xorshift rounds ``(z ^ z>>30) * 0xBF58476D1CE4E5B9`` and
  ``(z ^ z>>27) * 0x94D049BB133111EB``, then ``z ^ z>>31``, all modulo 2**64.
* **Bounded integers**: ``below(n)`` uses Lemire's method: take a 64-bit output ``x``,
  form ``m = x * n``; accept when ``m mod 2**64 >= (2**64 - n) mod n`` and return
  ``m >> 64``, otherwise draw again.  Every result in ``0..n-1`` is equally likely.
* **Shuffle**: forward Fisher-Yates: for ``i`` from 0 to ``len-2``, swap position
  ``i`` with position ``i + below(len - i)``.  Position 0 is the top card.  The
  :class:`Stock` runs step ``i`` only when card ``i`` is dealt (same result, less work).
* **Derived seeds**: ``derive_seed(seed, a, b, ...)`` folds each label into the seed
  with one SplitMix64 step of ``seed ^ label``; a match's round ``r`` is dealt from
  ``derive_seed(match_seed, DEAL, r)`` applied to the fresh deck (see :func:`new_deck`).

A public integer seed is for reproducible examples and tests: SplitMix64 is not a
cryptographic generator, and anyone who knows the seed knows every card.  Deals that
players must not be able to predict use a **secret key** instead (``bytes``, at least 16):

* **Keyed derivation**: ``derive_seed(key, a, b, ...)`` folds each label into the key with
  keyed BLAKE2b (``blake2b(label as 8 little-endian bytes, key=key, digest_size=32)``), so
  that, as for integers, ``derive_seed(derive_seed(k, a), b) == derive_seed(k, a, b)``.
* **Keyed generator**: the 64-bit outputs are the successive 8-byte little-endian words of
  ``shake_256(key)``; the bounded integers and the shuffle are exactly as above.  Without
  the key, no output reveals anything of the others, of the key, or of another round.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Final, TypeAlias, overload

from arena.errors import ArenaError

__all__ = [
    "CARDS",
    "Card",
    "CardError",
    "NAMES",
    "POINTS",
    "RANKS",
    "SUITS",
    "Seed",
    "Stock",
    "card_names",
    "derive_seed",
    "new_deck",
    "parse_card",
    "parse_cards",
    "shuffled_deck",
]

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
_MASK: Final = (1 << 64) - 1
_TWO64: Final = 1 << 64
_GOLDEN: Final = 0x9E3779B97F4A7C15
_MIX1: Final = 0xBF58476D1CE4E5B9
_MIX2: Final = 0x94D049BB133111EB


Seed: TypeAlias = int | bytes
"""What drives a deal: a public 64-bit seed, or a secret key (see the module docstring)."""


class CardError(ArenaError, ValueError):
    """A card or list of cards could not be parsed, or is not in the deck in use."""


class Card(int):
    """One playing card; an ``int`` in ``0..51`` equal to ``rank * 4 + suit``."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """Rank index: 0 for a two up to 12 for an ace."""
        return self >> 2

    @property
    def suit(self) -> int:
        """Suit index: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
        return self & 3

    @property
    def points(self) -> int:
        """Thirty-One points: face value, 10 for J Q K, 11 for an ace."""
        return POINTS[self]

    def __str__(self) -> str:
        return NAMES[self]

    def __repr__(self) -> str:
        return f"Card({NAMES[self]!r})"


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(52))
NAMES: Final = tuple(RANKS[i >> 2] + SUITS[i & 3] for i in range(52))
POINTS: Final[tuple[int, ...]] = tuple(min(i >> 2, 8) + 2 if (i >> 2) < 12 else 11 for i in range(52))
_BY_NAME: Final = {name: CARDS[i] for i, name in enumerate(NAMES)}
_TOKEN = re.compile(r"(10|[2-9tjqka])([cdhs])", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,]*")


def parse_card(text: str) -> Card:
    """Parse one card: ``As``, ``Th``, ``10h``, ``7C``; raise :class:`CardError` otherwise."""
    card = _BY_NAME.get(text)
    if card is not None:
        return card
    match = _TOKEN.fullmatch(text.strip())
    if match is None:
        raise CardError(
            f"invalid card {text!r}: expected a rank (2-9, T or 10, J, Q, K, A) "
            "followed by a suit (c, d, h, s), e.g. 'As', 'Th', '7c'"
        )
    rank = "T" if match.group(1) == "10" else match.group(1).upper()
    return CARDS[RANKS.index(rank) * 4 + SUITS.index(match.group(2).lower())]


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas (or run together: ``AhKhTh``).

    Raises :class:`CardError` naming the first bad token, or a repeated card.

    >>> parse_cards("As 10h, 7C")
    [Card('As'), Card('Th'), Card('7c')]
    >>> [card.points for card in parse_cards("AhKhTh")]
    [11, 10, 10]
    """
    if not isinstance(text, str):
        cards = [parse_card(t) for t in text]
    else:
        cards = []
        pos = 0
        while True:
            pos = _SEPARATORS.match(text, pos).end()  # type: ignore[union-attr]
            if pos >= len(text):
                break
            match = _TOKEN.match(text, pos)
            if match is None:
                bad = re.match(r"[^\s,]+", text[pos:])
                parse_card(bad.group(0) if bad else text[pos:])  # raises with the message
                raise CardError(f"invalid card list {text!r}")  # pragma: no cover
            cards.append(parse_card(match.group(0)))
            pos = match.end()
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise CardError(f"card {card} appears twice")
        seen.add(card)
    return cards


def card_names(cards: Iterable[int]) -> list[str]:
    """Canonical names of ``cards``, in order."""
    return [NAMES[c] for c in cards]


def new_deck(size: int = 52) -> list[Card]:
    """A fresh deck in the arena's fixed order: clubs, diamonds, hearts, spades, low to high.

    ``size`` is 52 (full) or 32 (7 to A of each suit).
    """
    fresh = _FRESH.get(size)
    if fresh is None:
        raise CardError(f"deck size must be 52 or 32, not {size}")
    return list(fresh)


_FRESH: Final = {
    size: tuple(CARDS[r * 4 + s] for s in range(4) for r in range(low, 13))
    for size, low in ((52, 0), (32, RANKS.index("7")))
}
"""The fresh decks, built once: every match starts from one."""


def _mix(z: int) -> int:
    """SplitMix64's output function."""
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK
    return z ^ (z >> 31)


class Stock:
    """A face-down pile, dealt from the top; shuffled lazily when given a seed.

    The forward Fisher-Yates shuffle fixes position ``k`` at step ``k``, so each card is
    shuffled into place only when it is dealt: a round that deals 20 of 52 cards does 20
    steps, and the cards come out exactly as from :func:`shuffled_deck`.
    """

    __slots__ = ("_cards", "_next", "_state", "_words", "left")

    def __init__(self, cards: Sequence[Card], seed: Seed | None = None) -> None:
        self._cards = list(cards)
        self._next = 0
        self._state: int | None = None
        self._words: _KeyedWords | None = None
        if isinstance(seed, bytes):
            self._words = _KeyedWords(seed)
        elif seed is not None:
            self._state = seed & _MASK
        self.left = len(self._cards)
        """Cards still in the stock (``len`` too; an attribute is cheaper on the hot path)."""

    def __len__(self) -> int:
        return self.left

    def clone(self) -> Stock:
        """A copy that deals the same cards as this stock, independently of it."""
        new = Stock.__new__(Stock)
        new._cards = self._cards[:]
        new._next = self._next
        new._state = self._state
        new._words = None if self._words is None else self._words.clone()
        new.left = self.left
        return new

    def deal(self) -> Card:
        """The top card (IndexError when the stock is empty)."""
        cards = self._cards
        i = self._next
        left = len(cards) - i
        if left <= 0:
            raise IndexError("deal from an empty stock")
        state = self._state
        if state is not None and left > 1:
            while True:
                state = z = (state + _GOLDEN) & _MASK
                z = ((z ^ (z >> 30)) * _MIX1) & _MASK
                z = ((z ^ (z >> 27)) * _MIX2) & _MASK
                product = (z ^ (z >> 31)) * left
                low = product & _MASK
                if low >= left or low >= (_TWO64 - left) % left:
                    break
            j = i + (product >> 64)
            cards[i], cards[j] = cards[j], cards[i]
            self._state = state
        elif self._words is not None and left > 1:
            j = i + self._words.below(left)
            cards[i], cards[j] = cards[j], cards[i]
        self._next = i + 1
        self.left = left - 1
        return cards[i]

    def unseen(self) -> list[Card]:
        """The cards still in the stock, sorted: which cards the next deal can give, never
        in what order (the order already drawn would tell the future)."""
        return sorted(self._cards[self._next :])

    def deal_many(self, count: int) -> list[Card]:
        """The top ``count`` cards, top first (IndexError if the stock has fewer).

        The same steps as :meth:`deal`, in one loop: a round's deal is the engine's
        costliest moment, and a call per card would be a third of it."""
        cards = self._cards
        start = self._next
        size = len(cards)
        if count > size - start:
            raise IndexError(f"deal of {count} cards from a stock of {size - start}")
        state = self._state
        if state is not None:
            mask, golden, mix1, mix2 = _MASK, _GOLDEN, _MIX1, _MIX2  # locals: the loop is hot
            for i in range(start, min(start + count, size - 1)):
                left = size - i
                while True:
                    state = z = (state + golden) & mask
                    z = ((z ^ (z >> 30)) * mix1) & mask
                    z = ((z ^ (z >> 27)) * mix2) & mask
                    product = (z ^ (z >> 31)) * left
                    low = product & mask
                    if low >= left or low >= (_TWO64 - left) % left:
                        break
                j = i + (product >> 64)
                cards[i], cards[j] = cards[j], cards[i]
            self._state = state
        elif self._words is not None:
            below = self._words.below
            for i in range(start, min(start + count, size - 1)):
                j = i + below(size - i)
                cards[i], cards[j] = cards[j], cards[i]
        self._next = start + count
        self.left = size - start - count
        return cards[start : start + count]


class _KeyedWords:
    """The keyed generator: 64-bit words of ``shake_256(key)``, read in order."""

    __slots__ = ("_key", "_words", "_used")

    _BATCH: Final = 64
    """Words read at once: a deck's shuffle needs at most 51 (rejections are ~2**-58 rare)."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._words: list[int] = []
        self._used = 0

    def clone(self) -> _KeyedWords:
        """A copy that reads on independently (the words read so far are shared: they are
        replaced, never changed)."""
        new = _KeyedWords.__new__(_KeyedWords)
        new._key = self._key
        new._words = self._words
        new._used = self._used
        return new

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` (Lemire's method on the next words)."""
        while True:
            if self._used == len(self._words):
                size = len(self._words) + self._BATCH  # the XOF's longer output extends the shorter
                stream = hashlib.shake_256(self._key).digest(8 * size)
                self._words = [int.from_bytes(stream[k : k + 8], "little") for k in range(0, 8 * size, 8)]
            product = self._words[self._used] * n
            self._used += 1
            low = product & _MASK
            if low >= n or low >= (_TWO64 - n) % n:
                return product >> 64


@overload
def derive_seed(seed: int, *labels: int) -> int: ...
@overload
def derive_seed(seed: bytes, *labels: int) -> bytes: ...
@overload
def derive_seed(seed: Seed, *labels: int) -> Seed: ...
def derive_seed(seed: Seed, *labels: int) -> Seed:
    """A seed for a sub-stream (a round's deal, a reshuffle) derived from ``seed``: an
    integer from an integer, a key from a key."""
    if isinstance(seed, bytes):
        for label in labels:
            seed = hashlib.blake2b((label & _MASK).to_bytes(8, "little"), key=seed[:64], digest_size=32).digest()
        return seed
    state = seed & _MASK
    for label in labels:
        state = _mix(((state ^ (label & _MASK)) + _GOLDEN) & _MASK)
    return state


def shuffled_deck(seed: Seed, size: int = 52, cards: Sequence[Card] | None = None) -> list[Card]:
    """``cards`` (default: a fresh deck of ``size``) shuffled by ``seed``; top card first.

    The same seed deals the same cards on every platform and Python version:

    >>> card_names(shuffled_deck(7)[:5])
    ['9d', '3c', 'Ts', '7h', 'Ad']
    """
    stock = Stock(new_deck(size) if cards is None else cards, seed)
    return [stock.deal() for _ in range(len(stock))]
