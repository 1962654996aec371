"""Cards, decks and the documented seeded shuffle (docs/RULES.md section 1)."""

from __future__ import annotations

import hashlib

import pytest

from arena.cards import (
    CARDS,
    NAMES,
    Card,
    CardError,
    Stock,
    card_names,
    derive_seed,
    new_deck,
    parse_card,
    parse_cards,
    shuffled_deck,
)

# The shuffle is part of the rules: these decks must never change.  They were computed
# once with the engine's SplitMix64 / Lemire / forward Fisher-Yates shuffle.
PINNED = {
    (0, 52): "8s Qd 5c Ks Jc 9d 2d 4s 7d Qs",
    (1, 52): "5h 2s Ks Kd Ad 3s 9s 6h 9d 6s",
    (2**64 - 1, 52): "9s Ts Ac Qd Kh 6s Qs 7d 4s Jc",
    (12345, 52): "8c Kc 9c 3c 4h 9d 5c 2h 5h 9s",
    (7, 32): "Jd 8c Qs Th 7h Td 9h Ad Qc Kc",
    (0, 32): "Js Kd 9c As Kc Qd 9d 9s Qc Ks",
}

# ---------------------------------------------------------------------------------------
# An independent implementation of the algorithm documented in arena/cards.py, so that a
# change of the shuffle is caught for every seed, not only the pinned ones.

_M = (1 << 64) - 1


def _reference_shuffle(seed: int, cards: list[Card]) -> list[Card]:
    state = seed & _M

    def next64() -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & _M
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M
        return z ^ (z >> 31)

    def below(n: int) -> int:
        while True:
            m = next64() * n
            if (m & _M) >= ((1 << 64) - n) % n:
                return m >> 64

    out = list(cards)
    for i in range(len(out) - 1):
        j = i + below(len(out) - i)
        out[i], out[j] = out[j], out[i]
    return out


def _reference_derive(seed: int, *labels: int) -> int:
    state = seed & _M
    for label in labels:
        z = ((state ^ label) + 0x9E3779B97F4A7C15) & _M
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M
        state = z ^ (z >> 31)
    return state


# --- pinned and reference shuffles -------------------------------------------------------


@pytest.mark.parametrize(("seed", "size"), list(PINNED))
def test_pinned_decks(seed: int, size: int) -> None:
    assert " ".join(map(str, shuffled_deck(seed, size)[:10])) == PINNED[seed, size]


@pytest.mark.parametrize(("seed", "size"), list(PINNED))
def test_stock_dealt_fully_equals_shuffled_deck(seed: int, size: int) -> None:
    expected = shuffled_deck(seed, size)
    stock = Stock(new_deck(size), seed)
    assert len(stock) == size
    dealt = [stock.deal() for _ in range(size)]
    assert dealt == expected
    assert len(stock) == 0
    with pytest.raises(IndexError):
        stock.deal()


@pytest.mark.parametrize(("seed", "size"), [*PINNED, (2**63, 52), (424242, 32), (99, 52)])
def test_shuffle_is_a_permutation(seed: int, size: int) -> None:
    deck = shuffled_deck(seed, size)
    assert len(deck) == size
    assert sorted(deck) == sorted(new_deck(size))
    assert len(set(deck)) == size
    assert all(card is CARDS[int(card)] for card in deck)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 12345, 2**32 + 7, 2**64 - 1, 0xDEADBEEFCAFEBABE])
@pytest.mark.parametrize("size", [52, 32])
def test_shuffle_matches_the_documented_algorithm(seed: int, size: int) -> None:
    assert shuffled_deck(seed, size) == _reference_shuffle(seed, new_deck(size))


def test_shuffle_depends_on_the_seed() -> None:
    decks = {tuple(shuffled_deck(seed)) for seed in range(50)}
    assert len(decks) == 50


def test_lazy_stock_matches_partial_dealing() -> None:
    for seed in (0, 5, 2**64 - 1):
        deck = shuffled_deck(seed)
        stock = Stock(new_deck(), seed)
        first = stock.deal_many(7)
        assert len(stock) == 45
        assert first + stock.deal_many(45) == deck
        with pytest.raises(IndexError):
            stock.deal_many(1)


def test_unseeded_stock_deals_in_order() -> None:
    cards = parse_cards("As Kd 7c 2h")
    stock = Stock(cards)
    assert [stock.deal() for _ in range(4)] == cards


def test_shuffled_deck_of_explicit_cards() -> None:
    cards = parse_cards("As Kd 7c 2h 9s Td")
    out = shuffled_deck(77, cards=cards)
    assert sorted(out) == sorted(cards)
    assert out == _reference_shuffle(77, cards)


# --- derived seeds -------------------------------------------------------------------


def test_derive_seed_pinned_and_deterministic() -> None:
    assert derive_seed(1, 1, 1) == 627405149472732430
    assert derive_seed(1, 1, 2) == 15549969042648332857
    assert derive_seed(1, 1, 1) == derive_seed(1, 1, 1)
    assert derive_seed(123) == 123
    for seed, labels in [(0, (1, 1)), (2**64 - 1, (2, 3, 4)), (987654321, (1, 17))]:
        assert derive_seed(seed, *labels) == _reference_derive(seed, *labels)


def test_derive_seed_differs_per_label() -> None:
    assert len({derive_seed(9, 1, r) for r in range(1000)}) == 1000
    assert derive_seed(9, 1, 5) != derive_seed(9, 2, 5)
    assert derive_seed(9, 1, 5) != derive_seed(10, 1, 5)
    assert derive_seed(9, 1, 2) != derive_seed(9, 2, 1)
    assert all(0 <= derive_seed(s, 1, 2) < 2**64 for s in (0, 1, 2**64 - 1))


# --- keyed deals (a secret key instead of a public seed) ---------------------------------

KEYS = [bytes(16), b"\x01" * 32, hashlib.sha256(b"arena").digest()]


def _reference_keyed_shuffle(key: bytes, cards: list[Card]) -> list[Card]:
    """The documented keyed generator: 64-bit little-endian words of shake_256(key)."""
    stream = hashlib.shake_256(key).digest(8 * 4096)
    words = iter(int.from_bytes(stream[k : k + 8], "little") for k in range(0, len(stream), 8))

    def below(n: int) -> int:
        while True:
            m = next(words) * n
            if (m & _M) >= ((1 << 64) - n) % n:
                return m >> 64

    out = list(cards)
    for i in range(len(out) - 1):
        j = i + below(len(out) - i)
        out[i], out[j] = out[j], out[i]
    return out


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("size", [52, 32])
def test_keyed_shuffle_matches_the_documented_algorithm(key: bytes, size: int) -> None:
    deck = shuffled_deck(key, size)
    assert deck == _reference_keyed_shuffle(key, new_deck(size))
    assert sorted(deck) == sorted(new_deck(size))


def test_keyed_stock_deals_lazily_like_the_whole_shuffle() -> None:
    for key in KEYS:
        deck = shuffled_deck(key)
        stock = Stock(new_deck(), key)
        assert stock.deal_many(5) + [stock.deal() for _ in range(10)] + stock.deal_many(37) == deck


def test_keyed_derivation_folds_like_the_integer_one() -> None:
    key = KEYS[2]
    assert derive_seed(derive_seed(key, 1), 7) == derive_seed(key, 1, 7)
    assert derive_seed(key) == key
    expected = hashlib.blake2b((3).to_bytes(8, "little"), key=key, digest_size=32).digest()
    assert derive_seed(key, 3) == expected
    assert len({derive_seed(key, 1, r) for r in range(500)}) == 500
    assert derive_seed(key, 1, 2) != derive_seed(KEYS[1], 1, 2)


def test_keyed_shuffle_is_uniform_enough() -> None:
    """Where the ace of spades lands over 5,200 keys: every position about equally often
    (a chi-square far beyond chance would mean a biased generator)."""
    counts = [0] * 52
    ace = parse_card("As")
    for n in range(5200):
        counts[shuffled_deck(n.to_bytes(16, "little")).index(ace)] += 1
    chi2 = sum((c - 100) ** 2 / 100 for c in counts)
    assert chi2 < 110, f"chi-square {chi2:.0f} over 51 degrees of freedom"  # p < 1e-5 by chance


def test_a_public_seed_and_a_key_never_share_a_stream() -> None:
    assert shuffled_deck(5) != shuffled_deck((5).to_bytes(16, "little"))


# --- decks ---------------------------------------------------------------------------


def test_full_deck() -> None:
    deck = new_deck()
    assert len(deck) == 52 and len(set(deck)) == 52
    assert set(deck) == set(CARDS)
    assert card_names(deck[:3]) == ["2c", "3c", "4c"]
    assert str(deck[-1]) == "As"


def test_short_deck() -> None:
    small = new_deck(32)
    assert len(small) == 32 and len(set(small)) == 32
    assert {str(c)[0] for c in small} == set("789TJQKA")
    assert {str(c)[1] for c in small} == set("cdhs")
    assert min(c.rank for c in small) == 5  # the seven
    assert all(c.rank >= 5 for c in shuffled_deck(3, 32))


@pytest.mark.parametrize("size", [0, 36, 40, 53, 24])
def test_other_deck_sizes_refused(size: int) -> None:
    with pytest.raises(CardError, match=str(size)):
        new_deck(size)


# --- parsing and printing -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("As", "As"),
        ("Th", "Th"),
        ("7c", "7c"),
        ("10h", "Th"),
        ("10S", "Ts"),
        ("7C", "7c"),
        ("AS", "As"),
        ("qd", "Qd"),
        ("2s", "2s"),
        ("tD", "Td"),
        (" Kh ", "Kh"),
    ],
)
def test_parse_card(text: str, name: str) -> None:
    card = parse_card(text)
    assert str(card) == name
    assert card is CARDS[int(card)]
    assert repr(card) == f"Card({name!r})"


def test_every_card_round_trips() -> None:
    for card in CARDS:
        assert parse_card(str(card)) is card
        assert parse_card(str(card).upper()) is card
        assert parse_card(str(card).lower()) is card
        assert len(str(card)) == 2
    assert len(set(NAMES)) == 52


def test_card_properties() -> None:
    ace = parse_card("As")
    assert (ace.rank, ace.suit, ace.points) == (12, 3, 11)
    assert [parse_card(t).points for t in ("2c", "9d", "Th", "Jh", "Qs", "Kc", "Ad")] == [2, 9, 10, 10, 10, 10, 11]
    assert [parse_card(f"7{s}").suit for s in "cdhs"] == [0, 1, 2, 3]
    assert isinstance(ace, Card) and isinstance(ace, int)


@pytest.mark.parametrize(
    "text",
    ["Ah Kh Th", "Ah,Kh,Th", "AhKhTh", " ah, KH 10h ", "Ah, Kh, Th", "AH KH TH", "Ah\tKh\nTh", "AhKh10h"],
)
def test_parse_cards_forms(text: str) -> None:
    assert [str(c) for c in parse_cards(text)] == ["Ah", "Kh", "Th"]


def test_parse_cards_from_tokens_and_empty() -> None:
    assert card_names(parse_cards(["As", "10d", "7C"])) == ["As", "Td", "7c"]
    assert parse_cards("") == []
    assert parse_cards(" , ") == []


@pytest.mark.parametrize("text", ["Xx", "1h", "11h", "Az", "A", "s", "", "Ahh", "1", "0s", "Tx"])
def test_bad_card_refused_with_a_clear_message(text: str) -> None:
    with pytest.raises(CardError, match=repr(text).replace("\\", "\\\\")):
        parse_card(text)


@pytest.mark.parametrize(
    ("text", "bad"),
    [("Xx", "'Xx'"), ("Ah 1h", "'1h'"), ("Ah Kz", "'Kz'"), ("11h", "'11h'"), ("Ah,Qx,Th", "'Qx"), ("Ah Kh 7", "'7'")],
)
def test_bad_card_in_a_list_is_named(text: str, bad: str) -> None:
    with pytest.raises(CardError, match=bad):
        parse_cards(text)


def test_card_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_card("Zz")


@pytest.mark.parametrize("text", ["Ah Kh ah", "AhAh", "Th 10h", "7c,7C"])
def test_repeated_card_refused(text: str) -> None:
    with pytest.raises(CardError, match="twice"):
        parse_cards(text)


def test_repeated_card_refused_in_token_list() -> None:
    with pytest.raises(CardError, match="As"):
        parse_cards(["As", "as"])


def test_canonical_output() -> None:
    cards = parse_cards("10c jd QH aS 9c")
    assert card_names(cards) == ["Tc", "Jd", "Qh", "As", "9c"]
    assert " ".join(map(str, cards)) == "Tc Jd Qh As 9c"
