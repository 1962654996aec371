"""The search bot's Skat: its sampler deals only what the seat cannot have seen and no seat a
suit it showed void in, its deals replay to what the seat sees, it finds the obvious card
in hand-made positions, its auction, skat, discard and game search bids, passes and
declares as a Skat player would, backs every bid with the deals it sampled, says kontra
and re where the deals say so, plays the same given its seed, and it plays whole matches
through the real referee.

What the seat knows is worked out here from the engine's real state, independently of
the bot: its hand, every card played, the suits each seat failed to follow, the skat
when it picked it up, an ouvert declarer's hand.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.botspec import find_bot
from arena.cards import NAMES, Card, new_deck, parse_card, parse_cards
from arena.referee import Bot, TimeControl, open_bots, play_match
from arena.rules import Action, MatchState, get_variant
from arena.rules.skat_values import Contract, suit_of
from arena.sdk import MatchInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bots" / "ismcts"))

import skat_bidding  # noqa: E402
from budget import Budget  # noqa: E402
from skat_bidding import Outcomes  # noqa: E402
from skat_deal import SKAT, SkatKnowledge, auction_calls, bid_weight, read_deal, redeal, replay  # noqa: E402
from skat_player import SkatPlayer  # noqa: E402
from skat_search import candidates  # noqa: E402

SKAT_RULES = get_variant("skat")
POSITIONS = 80
"""Random positions the sampler is checked on (a seed each, cards played at random)."""
SAMPLES = 6


def _random_position(seed: int) -> tuple[MatchState, int] | None:
    """A match played at random to a card decision: low bids (so that games get declared),
    random pickups, discards, games, kontras and cards.  The seat to move and the state."""
    rng = random.Random(seed)
    options = {"all_pass": "ramsch" if seed % 4 == 0 else "throw_in", "kontra": seed % 3 == 0}
    state: Any = SKAT_RULES.new_match(3, seed=seed, options=options)
    stop = rng.randrange(30)
    cards = 0
    while not state.is_over:
        legal = state.legal_actions()
        kinds = {a.kind for a in legal}
        if "play" in kinds:
            if cards >= stop and len(legal) > 1:
                return state, state.to_move
            cards += 1
        bidding = "bid" in kinds  # the lowest bid, or pass
        state.apply((legal[0] if rng.random() < 0.4 else legal[-1]) if bidding else rng.choice(legal))
    return None


def _voids(state: Any) -> dict[int, set[int]]:
    """The suits each seat has failed to follow, from the engine's tricks."""
    voids: dict[int, set[int]] = {s: set() for s in range(3)}
    tricks = [list(cards) for _, cards in state.tricks] + [list(state.trick)]
    for trick in tricks:
        if not trick:
            continue
        led = suit_of(trick[0][1], state.game)
        for seat, card in trick[1:]:
            if suit_of(card, state.game) != led:
                voids[seat].add(led)
    return voids


def _played(state: Any) -> set[Card]:
    return {c for _, cards in state.tricks for _, c in cards} | {c for _, c in state.trick}


def _check_state(rebuilt: Any, real: Any, seat: int, sim: int) -> None:
    """A rebuilt deal looks to the seat as the real one: its hand, the tricks, its legal cards."""
    assert sorted(rebuilt.hands[sim]) == sorted(real.hands[seat])
    assert [c for _, c in rebuilt.trick] == [c for _, c in real.trick]
    assert [[c for _, c in t] for _, t in rebuilt.tricks] == [[c for _, c in t] for _, t in real.tricks]
    assert [a.text for a in rebuilt.legal_actions()] == [a.text for a in real.legal_actions()]
    assert rebuilt.game == real.game and rebuilt.bid == real.bid and rebuilt.kontra == real.kontra


def test_sampled_deals_respect_everything_the_seat_has_seen() -> None:
    checked = declarers = voids_seen = 0
    games: set[str] = set()
    for seed in range(1, 4 * POSITIONS):
        found = _random_position(seed)
        if found is None:
            continue
        state, seat = found
        known = read_deal(state.events_for(seat, 0), seat)
        assert known is not None
        sim = {real: i for i, real in enumerate(state.order)}
        assert known.seats == tuple(state.order) and known.me == sim[seat]
        assert known.game == state.game
        voids = _voids(state)
        played = _played(state)
        mine = set(state.hands[seat])
        own_skat = seat == state.declarer and bool(state.picked)
        voids_seen += sum(len(v) for s, v in voids.items() if s != seat)
        games.add("ouvert" if state.contract and state.contract.ouvert else state.game)
        games.update(["kontra"] * state.kontra)
        declarers += own_skat
        rng = random.Random(seed)
        template = None
        for _ in range(SAMPLES):
            dealt = known.sample(rng)
            assert dealt is not None
            hands, skat = dealt
            for other in state.order:
                if other == seat:
                    continue
                hand = hands[sim[other]]
                assert len(hand) == len(state.hands[other])
                assert not set(hand) & (mine | played), "a card the seat holds or saw played"
                assert all(suit_of(c, state.game) not in voids[other] for c in hand), "a suit it showed void in"
                if other == state.declarer and state.contract.ouvert:
                    assert sorted(hand) == sorted(state.hands[other])
            assert len(skat) == 2 and not set(skat) & (mine | played)
            if own_skat:
                assert sorted(skat) == sorted(state.skat)
            every = [c for h in hands.values() for c in h] + list(skat) + list(mine) + list(played)
            assert len(every) == len(set(every)) == 32
            if template is None:
                template = replay(SKAT_RULES, SKAT_RULES.resolve(state.options), known, hands, skat)
                assert template is not None
                rebuilt = template
            else:
                rebuilt = redeal(template, known, hands, skat)
            _check_state(rebuilt, state, seat, sim[seat])
            if state.declarer is not None:
                d = sim[state.declarer]
                held = list(rebuilt.hands[d]) + [c for s, c in _plays(rebuilt) if s == d] + list(rebuilt.skat)
                assert sorted(rebuilt.declarer_cards) == sorted(held)
        if checked % 8 == 0:  # the whole decision too, its errors not caught by the bot's hook
            match = MatchInfo(f"position-{seed}", "skat", dict(state.options), seat, 3, {"move_ms": 100},
                              state.events_for(seat, 0))
            legal = [a.text for a in state.legal_actions()]
            assert SkatPlayer(match).choose(state.observe(seat), legal, Budget(0.01, 0.01)) in legal
        checked += 1
        if checked >= POSITIONS:
            break
    assert checked == POSITIONS
    assert declarers >= 3 and voids_seen >= 20, (declarers, voids_seen)  # the cases were really met
    assert {"ramsch", "null", "grand", "ouvert", "kontra"} <= games, games


def _plays(state: Any) -> list[tuple[int, Card]]:
    return [p for _, cards in state.tricks for p in cards] + list(state.trick)


def test_the_sampler_keeps_voids_when_they_bind() -> None:
    """Voids that leave a seat few cards to hold: every deal still keeps to them."""
    known = read_deal(_events(NULL_HANDS, NULL_SKAT, []), 1)
    assert known is not None
    known.game = "grand"
    known.voids[2] = {0, 3}  # rearhand: no clubs, no spades (13 unseen cards left for its 10)
    known.voids[0] = {2}  # forehand: no hearts
    for seed in range(20):
        dealt = known.sample(random.Random(seed))
        assert dealt is not None
        hands, skat = dealt
        assert all(suit_of(c, "grand") in (1, 2, 4) for c in hands[2])
        assert all(suit_of(c, "grand") != 2 for c in hands[0])
        assert len(hands[0]) == len(hands[2]) == 10 and len(skat) == 2


def test_the_bid_weighs_the_declarers_jacks() -> None:
    """Clubs bid to 36 needs "with 2" or "without 2" (3 x 12) unless schneider is made."""
    clubs = Contract("clubs")
    with_two = parse_cards("Jc Js Ac Tc Kc 9c 7d 8d Ah 7h 8s 9s")
    with_one = parse_cards("Jc Jh Ac Tc Kc 9c 7d 8d Ah 7h 8s 9s")
    few_trumps = parse_cards("Jc Js Ac 7d 8d 9d Ah 7h 8h 8s 9s Ts")
    assert bid_weight(with_two, with_two[:10], clubs, 36) == 1.0
    assert bid_weight(with_one, with_one[:10], clubs, 36) < 0.5
    assert bid_weight(with_one, with_one[:10], clubs, 24) == 1.0
    assert bid_weight(few_trumps, few_trumps[:10], clubs, 24) < 0.2


# -- hand-made positions: the dealer is seat 2, so seat 0 is forehand and leads ---------------

NULL_HANDS = ("Jh Ah 7h Tc Jc Qc Kc Ac Td Jd", "Th Qh 7c 8c 9c 7d 8d 9d 7s 8s", "Kh 8h 9h Qd Kd Ad Ts Js Qs Ks")
NULL_SKAT = "As 9s"
TRUMP_HANDS = ("7h 9h Qh Kh Tc Ac Td Ad Kd Qd", "Th Jc Js Jh Jd As Ts Ks Qs 9s", "Ah 8h 7c 8c 9c 7d 8d 9d Qc Kc")
TRUMP_SKAT = "8s 7s"


def _deck(hands: Sequence[str], skat: str) -> list[Card]:
    """A deck dealing ``hands`` to seats 0, 1, 2 (3-skat-4-3) and ``skat`` to the skat."""
    cards = [parse_cards(h) for h in hands]
    deck: list[Card] = []
    for first, last in ((0, 3), (3, 7), (7, 10)):
        for hand in cards:
            deck += hand[first:last]
        if first == 0:
            deck += parse_cards(skat)
    return deck


def _position(hands: Sequence[str], skat: str, script: Sequence[str], options: dict[str, Any] | None = None) -> Any:
    state: Any = SKAT_RULES.new_match(3, seed=0, options=options, decks=[_deck(hands, skat)], dealer=2)
    for text in script:
        legal = {a.text: a for a in state.legal_actions()}
        if text.startswith("discard"):  # the engine lists a discard's cards in card order
            text = "discard " + " ".join(c for c in sorted(text.split()[1:], key=parse_card))
        state.apply(legal[text])
    return state


def _events(hands: Sequence[str], skat: str, script: Sequence[str], seat: int = 1) -> list[dict[str, Any]]:
    return _position(hands, skat, script).events_for(seat, 0)


def _bot_choice(hands: Sequence[str], skat: str, script: Sequence[str], seat: int) -> str:
    state = _position(hands, skat, script)
    match = MatchInfo("sanity", "skat", dict(SKAT_RULES.resolve()), seat, 3, {"move_ms": 1000})
    match.events.extend(state.events_for(seat, 0))
    player = SkatPlayer(match)
    return player.choose(state.observe(seat), [a.text for a in state.legal_actions()], Budget.fixed(SANITY_DEALS))


SANITY_DEALS = 120
"""Deals a hand-made position's search samples: a fixed number, so the test does not
depend on the machine's speed."""
NULL_SCRIPT = ["bid 18", "pass", "pass", "hand", "declare null hand", "play Jh"]
TRUMP_SCRIPT = ["bid 18", "pass", "pass", "pickup", "discard 7s 8s", "declare spades", "play 7h", "play Th"]


def test_the_null_declarer_ducks_under_the_trick() -> None:
    """Jh led against its null: Th stays under it, Qh would take the trick and lose the game
    (the search orders Qh, with fewer card points, first: only the search can find Th)."""
    state = _position(NULL_HANDS, NULL_SKAT, NULL_SCRIPT)
    known = read_deal(state.events_for(1, 0), 1)
    assert known is not None
    assert [a.text for a in candidates(known, state.legal_actions())] == ["play Qh", "play Th"]
    assert _bot_choice(NULL_HANDS, NULL_SKAT, NULL_SCRIPT, 1) == "play Th"


def test_a_defender_takes_the_declarers_ten_with_its_ace() -> None:
    """Spades: its partner led 7h, the declarer threw its only heart, Th: Ah takes 21 points
    that the declarer, now void in hearts, would ruff later (8h, the cheaper card, is
    searched first)."""
    assert _bot_choice(TRUMP_HANDS, TRUMP_SKAT, TRUMP_SCRIPT, 2) == "play Ah"


def _candidates(game: str, dealt: str, plays: Sequence[tuple[int, str]] = ()) -> list[str]:
    known = SkatKnowledge((0, 1, 2), 0, parse_cards(dealt), game=game)
    known.plays = [(seat, parse_card(c)) for seat, c in plays]
    known.played[0] = [c for seat, c in known.plays if seat == 0]
    legal = [Action.of("play", c) for c in known.hand()]
    return [a.text for a in candidates(known, legal)]


def test_cards_that_cannot_differ_are_searched_once() -> None:
    hand = "Jc Js Jd 7c 8c Ah Kh 7s 9s Td"
    # clubs: Jc Js touch (Jd does not: Jh is out), so do the trumps 8c 7c; Ah Kh have Th between
    # cheapest first: side cards by points, then trumps
    assert _candidates("clubs", hand) == ["play 7s", "play 9s", "play Kh", "play Td", "play Ah", "play 7c",
                                          "play Jd", "play Js"]
    # 8s played in a finished trick: 7s 9s touch; on the table it still lies between them
    assert "play 9s" not in _candidates("clubs", hand + " Ks", [(1, "8s"), (2, "Qs"), (0, "Ks")])
    assert "play 9s" in _candidates("clubs", hand, [(1, "8s"), (2, "Qs")])
    # null: touching cards are alike whatever their points (Tc Jc Qc Kc Ac: one), Jh Ah are not
    assert len(_candidates("null", "Jh Ah 7h Tc Jc Qc Kc Ac Td Jd")) == 5


def test_the_seat_reads_its_own_skat_and_discard() -> None:
    state = _position(TRUMP_HANDS, TRUMP_SKAT, TRUMP_SCRIPT)
    known = read_deal(state.events_for(1, 0), 1)
    assert known is not None
    assert known.skat_known and known.declarer == 1 and known.contract == Contract("spades")
    assert sorted(known.discarded) == sorted(parse_cards(TRUMP_SKAT))
    assert known.slots() == {0: 9, 2: 10, SKAT: 0}
    partner = read_deal(state.events_for(2, 0), 2)
    assert partner is not None and not partner.skat_known and partner.slots() == {0: 9, 1: 9, SKAT: 2}
    assert partner.bid == 18 and partner.voids == [set(), set(), set()]  # the declarer followed hearts


# -- the auction, the skat, the discard and the game -----------------------------------------

AUCTION_DEALS = 48
"""Deals an auction position's searches sample (a fixed number: no dependence on the clock)."""


def _rest(*hands: str) -> str:
    """The cards of the 32 that ``hands`` (and a skat) leave: the last hand."""
    used = {c for h in hands for c in parse_cards(h)}
    return " ".join(NAMES[c] for c in new_deck(32) if c not in used)


def _seat(state: Any, seat: int, options: dict[str, Any] | None = None, match_id: str = "auction") -> SkatPlayer:
    match = MatchInfo(match_id, "skat", dict(SKAT_RULES.resolve(options or {})), seat, 3, {"move_ms": 1000})
    match.events.extend(state.events_for(seat, 0))
    return SkatPlayer(match)


def _declares(hands: Sequence[str], skat: str, seat: int = 1) -> tuple[list[str], Any]:
    """Every other seat passes: what the bot in ``seat`` says up to its game, and the state."""
    state = _position(hands, skat, [])
    player = _seat(state, seat)
    said = []
    while state.observe(state.to_move)["phase"] not in ("play", "over"):
        legal = [a.text for a in state.legal_actions()]
        if state.to_move == seat:
            player.match.events[:] = state.events_for(seat, 0)
            text = player.choose(state.observe(seat), legal, Budget.fixed(AUCTION_DEALS))
            said.append(text)
        else:
            text = "pass"
        state.apply(state.legal_actions()[legal.index(text)])
    return said, state


def test_a_strong_grand_hand_declares_grand() -> None:
    """All four jacks, three aces with their tens: bid, play hand, grand."""
    mine = "Jc Js Jh Jd Ac Tc As Ts Ah Th"
    said, state = _declares(("Kh Qh 9h 8h Kc Qc 9c Kd Qd Td", mine, _rest("Kh Qh 9h 8h Kc Qc 9c Kd Qd Td", mine,
                                                                          "7h 7s")), "7h 7s")
    assert said[0] == "bid 18"
    assert state.contract is not None and state.contract.game == "grand", said


def test_a_hand_without_trumps_passes_at_18() -> None:
    """No jack, no suit longer than three, kings and queens: no game wins, none is bid."""
    mine = "Qh Kh 8h Qc Kc 9s Qs Kd Qd 9d"
    hands = ("Jc Js Ac Tc 9c 8c 7c Ah Th 9h", mine, _rest("Jc Js Ac Tc 9c 8c 7c Ah Th 9h", mine, "7h Jh"))
    state = _position(hands, "7h Jh", [])
    assert _seat(state, 1).choose(state.observe(1), [a.text for a in state.legal_actions()],
                                  Budget.fixed(AUCTION_DEALS)) == "pass"
    forehand = _position((mine, hands[0], hands[2]), "7h Jh", ["bid 18"])  # the same cards, answering 18
    assert _seat(forehand, 0).choose(forehand.observe(0), ["hold", "pass"], Budget.fixed(AUCTION_DEALS)) == "pass"


def test_a_null_hand_plays_null() -> None:
    """Sevens, eights and nines, two high cards: bid null's 23 at most, pick up, put the high
    cards away and play null."""
    mine = "7h 8h 9h 7c 8c 9c 7d 8d Kd Qs"
    other = "Jc Js Jh Jd Ac Tc As Ts Ah Th"
    said, state = _declares((other, mine, _rest(other, mine, "8s 9s")), "8s 9s")
    assert said[:2] == ["bid 18", "pickup"], said
    assert state.contract is not None and state.contract.game == "null", said
    assert sorted(state.skat) == sorted(parse_cards("Kd Qs"))


BID_MARGIN = 0.0
"""How far below the needed share of won deals a game may be at a value the bot bids or
holds: none, on the very deals its search sampled."""


def test_every_bid_is_backed_by_the_sampled_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random deals, the bot in middlehand against a forehand that holds to 60: every value the
    bot bids is won often enough by some game on the deals its search sampled (within
    :data:`BID_MARGIN`), and every pass is made when none is."""
    searched: list[list[Outcomes]] = []
    search = skat_bidding.search

    def spy(*args: Any, **kwargs: Any) -> list[Outcomes]:
        outcomes = search(*args, **kwargs)
        searched.append(outcomes)
        return outcomes

    monkeypatch.setattr(skat_bidding, "search", spy)
    bids = passes = 0
    for seed in range(12):
        state: Any = SKAT_RULES.new_match(3, seed=seed, dealer=2)
        player = _seat(state, 1, match_id=f"backed-{seed}")
        while state.observe(state.to_move)["phase"] in ("bid", "answer") and state.to_move != 2:
            legal = [a.text for a in state.legal_actions()]
            if state.to_move == 0:
                text = "hold" if state.bid <= 60 else "pass"
            else:
                searched.clear()
                player.match.events[:] = state.events_for(1, 0)
                text = player.choose(state.observe(1), legal, Budget.fixed(AUCTION_DEALS))
                (outcomes,) = searched
                value = int(text.split()[1]) if text.startswith("bid") else min(
                    int(a.split()[1]) for a in legal if a.startswith("bid"))
                backed = any(o.chance(value) >= o.needed - BID_MARGIN for o in outcomes)
                assert backed == text.startswith("bid"), (seed, text, value)
                bids += backed
                passes += not backed
            state.apply(state.legal_actions()[legal.index(text)])
    assert bids >= 5 and passes >= 5, (bids, passes)  # both cases were met


def test_the_seats_calls_are_read_from_the_auction() -> None:
    """Middlehand bids 18 and 20, forehand holds 18 and passes 20; rearhand passes (refusing 22)."""
    calls = auction_calls([(1, "bid 18"), (0, "hold"), (1, "bid 20"), (0, "pass"), (2, "pass")])
    assert calls == {1: (20, 0), 0: (18, 20), 2: (0, 22)}


KONTRA_HANDS = ("Jc Js Jh Jd As Ts Ks Ah Th Kh", "7s 8s 9s Qs 7h 8h 9h 7d 8d 9d",
                "Ac Tc Kc Qc 9c 8c 7c Ad Td Kd")
"""Middlehand plays spades hand on four low trumps; the defenders hold every jack, ace and ten."""
KONTRA_SKAT = "Qh Qd"
KONTRA = {"kontra": True}


def test_a_defender_says_kontra_against_a_lost_game() -> None:
    state = _position(KONTRA_HANDS, KONTRA_SKAT, ["bid 18", "pass", "pass", "hand", "declare spades hand"], KONTRA)
    legal = [a.text for a in state.legal_actions()]
    assert "kontra" in legal
    assert _seat(state, 0, KONTRA).choose(state.observe(0), legal, Budget.fixed(SANITY_DEALS)) == "kontra"


def test_the_declarer_says_re_only_with_a_won_game() -> None:
    """Grand hand with every jack and the aces and tens: re after the kontra; the spades hand
    above, kontra'd: no re."""
    strong = ("Kh Qh 9h 8h Kc Qc 9c Kd Qd Td", "Jc Js Jh Jd Ac Tc As Ts Ah Th", "9s 8s 7s 7c 8c Ad 9d 8d 7d Ks")
    state = _position(strong, "7h Qs", ["bid 18", "pass", "pass", "hand", "declare grand hand", "kontra", "play Kh"],
                      KONTRA)
    legal = [a.text for a in state.legal_actions()]
    assert "re" in legal
    assert _seat(state, 1, KONTRA).choose(state.observe(1), legal, Budget.fixed(SANITY_DEALS)) == "re"
    weak = _position(KONTRA_HANDS, KONTRA_SKAT, ["bid 18", "pass", "pass", "hand", "declare spades hand", "kontra",
                                                 "play Ah"], KONTRA)
    legal = [a.text for a in weak.legal_actions()]
    assert "re" in legal
    assert _seat(weak, 1, KONTRA).choose(weak.observe(1), legal, Budget.fixed(SANITY_DEALS)) != "re"


def _in_process(seed: int, options: dict[str, Any]) -> list[tuple[int, str]]:
    """A match of the bot in every seat at a fixed number of deals a decision: every action."""
    state: Any = SKAT_RULES.new_match(3, seed=seed, options=options)
    players = [_seat(state, s, options, f"fixed-{seed}") for s in range(3)]
    actions = []
    while not state.is_over:
        seat = state.to_move
        legal = [a.text for a in state.legal_actions()]
        players[seat].match.events[:] = state.events_for(seat, 0)
        chosen = players[seat].choose(state.observe(seat), legal, Budget.fixed(FIXED_MATCH_DEALS))
        assert chosen in legal
        actions.append((seat, chosen))
        state.apply(state.legal_actions()[legal.index(chosen)])
    return actions


FIXED_MATCH_DEALS = 8
"""Deals a decision of the in-process matches samples: few, so the test is quick."""


def test_a_fixed_budget_plays_the_same_given_the_seed() -> None:
    """Three-deal matches of the bot against itself, kontra on: every action legal, the same
    match played twice the same, and the auction searched to real declarations."""
    options = {"rounds": 3, "kontra": True, "all_pass": "ramsch"}
    declared = 0
    for seed in (31, 32):
        first = _in_process(seed, options)
        assert first == _in_process(seed, options)
        declared += sum(1 for _, text in first if text.startswith("declare"))
    assert declared >= 2


BUDGET_S = 0.035
SLACK_S = 0.015
"""CPU time a decision may take beyond its budget: the deal under way at the deadline."""


@pytest.mark.alone  # measures CPU time against a wall-clock budget: run with the machine to itself
def test_every_card_keeps_to_the_budget_in_cpu_time() -> None:
    """The bot in seat 0 of in-process matches (random players elsewhere: they bid high, so it
    defends as often as it declares): each searched card's CPU time stays within its budget,
    and the search did use it, on the wall clock it stops by (a busy machine gives it less
    CPU in that time, never more)."""
    times: list[float] = []
    walls: list[float] = []
    for seed in (21, 22):
        state: Any = SKAT_RULES.new_match(3, seed=seed, options={"rounds": 3})
        match = MatchInfo(f"cpu-{seed}", "skat", dict(state.options), 0, 3, {"move_ms": 100})
        player = SkatPlayer(match)
        rng = random.Random(seed)
        seen = 0
        while not state.is_over:
            legal = [a.text for a in state.legal_actions()]
            if state.to_move != 0:
                state.apply(rng.choice(state.legal_actions()))
                continue
            match.events.extend(state.events_for(0, seen))
            seen = len(state.log)
            began, wall = time.process_time(), time.perf_counter()
            chosen = player.choose(state.observe(0), legal, Budget(BUDGET_S, 10 * BUDGET_S))
            if sum(1 for a in legal if a.startswith("play")) > 1:
                times.append(time.process_time() - began)
                walls.append(time.perf_counter() - wall)
            state.apply(state.legal_actions()[legal.index(chosen)])
    assert len(times) >= 10
    assert max(times) <= BUDGET_S + SLACK_S, f"a card took {1000 * max(times):.0f} ms of CPU"
    assert sum(walls) / len(walls) > BUDGET_S / 4, "the bot hardly searched: the check means nothing"


CONTROL = TimeControl(move_ms=100, bank_ms=2000, first_move_ms=0, startup_ms=10_000)
"""A short time control: the bot searches 35 ms a card."""
MATCHES = (  # players, seed, options: three-deal and four-deal matches, Ramsch and kontra on
    (3, 11, {"rounds": 3, "all_pass": "ramsch", "kontra": True}),
    (4, 12, {"rounds": 4, "scoring": "seeger"}),
)


async def _matches() -> list[tuple[int, Any]]:
    names = ("ismcts", "heuristic", "random", "random")
    results = []
    async with open_bots([find_bot(n) for n in names], time_control=CONTROL) as bots:
        assert all(isinstance(bot, Bot) for bot in bots), bots
        for players, seed, options in MATCHES:
            for shift in range(players):
                seated = bots[:players][shift:] + bots[:players][:shift]
                result = await play_match(SKAT_RULES, seated, seed=seed + shift, options=options,
                                          time_control=CONTROL, match_id=f"skat-ismcts-{players}-{shift}")
                results.append((players, result))
    return results


@pytest.mark.alone  # bots on the clock: run with the machine to itself
def test_the_search_bot_plays_whole_skat_matches_legally() -> None:
    assert find_bot("ismcts").plays("skat")
    began = time.perf_counter()
    results = trio.run(_matches)
    label = find_bot("ismcts").label
    cards = 0
    for players, result in results:
        assert result.faults == [], result.faults
        assert sorted(result.outcome.placements)[0] == 1 and len(result.outcome.placements) == players
        assert result.outcome.reason == "rounds played"
        seat = result.bots.index(label)
        assert result.timings[seat].decisions > 0
        assert result.timings[seat].max_s <= (CONTROL.move_ms + CONTROL.bank_ms) / 1000
        cards += sum(1 for e in result.log if e.get("event") == "action" and e.get("seat") == seat
                     and str(e.get("action", "")).startswith("play"))
    assert cards >= 40, cards
    assert time.perf_counter() - began < 120
