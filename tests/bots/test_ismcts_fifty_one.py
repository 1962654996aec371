"""The search bot's Japanese Fifty-One: its sampler never contradicts what the seat saw, its
search finds the move that keeps a winning card from the next seat, its match value ranks
hands as the placements do, and it plays whole matches through the real referee.

What the seat knows is worked out here from the engine's real state and the seat's events,
independently of the bot: its hand, the table, the cleared cards, and the cards each
opponent took from the table and still holds.  Every other card (an opponent's other
cards, the stock) is unseen, and a sampled deal may only rearrange those.
"""

from __future__ import annotations

import gc
import random
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
from botmatch import check_result
from hypothesis import given, settings
from hypothesis import strategies as st
from ismcts_module import load_bot

from arena.botspec import find_bot
from arena.cards import Card, new_deck, parse_card, parse_cards
from arena.referee import Bot, TimeControl, open_bots, play_match
from arena.rules import Action, get_variant
from arena.rules.fifty_one import FiftyOneState
from arena.sdk import MatchInfo

FOLDER = Path(__file__).resolve().parents[2] / "bots" / "ismcts"
sys.path.insert(0, str(FOLDER))

from budget import Budget, think_s  # noqa: E402
from fifty_one_deal import ROLLOUT_TURNS, Sampler, read_hand, replay  # noqa: E402
from fifty_one_player import FiftyOnePlayer, MatchValue  # noqa: E402
from fifty_one_policy import RuleOfThumb, finish_hand, stop_threshold  # noqa: E402

RULES = get_variant("fifty-one")
STOP_CHANCE = 0.02
"""Chance that a history's random player stops when it may (more would end hands at once)."""
SAMPLES = 4
"""Deals drawn per history."""
COMPARED = ("phase", "stock", "cleared", "table")
"""Observation fields a sampled deal must show the seat exactly as the real hand does."""


def _history(players: int, seed: int, steps: int, style: int, clears: bool, forfeit: bool) -> FiftyOneState:
    """A match after ``steps`` random actions (clearing whenever allowed if ``clears``, so
    that stocks run short and reshuffle; with ``forfeit`` one seat leaves half way)."""
    rng = random.Random(style)
    state: Any = RULES.new_match(players, seed=seed)
    for step in range(steps):
        if forfeit and players > 2 and step == steps // 2:
            state.forfeit(rng.randrange(players))
        legal = state.legal_actions()
        calm = [a for a in legal if a.arg != "stop"]
        if clears and legal[-1].kind == "clear":
            state.apply(legal[-1])
        else:
            state.apply(rng.choice(legal if rng.random() < STOP_CHANCE else calm))
        if state.is_over:
            break
    assert isinstance(state, FiftyOneState)
    return state


def _this_hand(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    starts = [i for i, e in enumerate(events) if e["event"] == "round_start"]
    return list(events[starts[-1]:])


def _taken(events: Sequence[Mapping[str, Any]]) -> dict[int, set[Card]]:
    """Per seat, the cards it took from the table this hand and still holds."""
    held: dict[int, set[Card]] = {}
    for event in events:
        if event["event"] == "action" and event["action"].startswith("swap_one"):
            words = event["action"].split()
            cards = held.setdefault(event["seat"], set())
            cards.discard(parse_card(words[1]))
            cards.add(parse_card(words[2]))
    return held


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    players=st.integers(2, 5),
    seed=st.integers(0, 2**64 - 1),
    steps=st.integers(0, 120),
    style=st.integers(0, 2**32),
    clears=st.booleans(),
    forfeit=st.booleans(),
)
def test_sampled_deals_never_contradict_what_the_seat_saw(
    players: int, seed: int, steps: int, style: int, clears: bool, forfeit: bool
) -> None:
    real = _history(players, seed, steps, style, clears, forfeit)
    if real.is_over:
        return
    seat = real.to_move
    assert seat is not None
    events = real.events_for(seat)
    mine = real.observe(seat)
    known = read_hand(events, seat)
    assert known is not None
    template = replay(RULES, RULES.resolve(), known, [parse_card(c) for c in mine["table"]])
    assert template is not None, "the hand's history does not replay"
    sampler = Sampler(known, template, [stop_threshold(len(known.seats))] * len(known.seats))
    assert sampler.consistent()

    taken = _taken(_this_hand(events))
    visible = set(real.hands[seat]) | set(real.table) | set(real.cleared)
    visible |= {c for s, cards in taken.items() if s != seat for c in cards}
    unseen = set(new_deck(52)) - visible
    hidden_now = {c for s in known.seats if s != seat for c in real.hands[s] if c not in taken.get(s, set())}
    assert hidden_now | set(real.stock.unseen()) == unseen, "the test's own reading of the hand is wrong"
    assert set(sampler.pool) == unseen

    rng = random.Random(seed)
    for _ in range(SAMPLES):
        sim = sampler.deal(rng)
        theirs = sim.observe(known.me)
        assert sorted(theirs["hand"]) == sorted(mine["hand"])
        for field in COMPARED:
            assert theirs[field] == mine[field], field
        assert theirs["stopper"] == (None if real.stopper < 0 else known.seats.index(real.stopper))
        assert theirs["turns"] == [mine["turns"][s] for s in known.seats]
        assert known.seats[sim.to_move or 0] == seat
        hidden = set(sim.stock.unseen())
        for s, real_seat in enumerate(known.seats):
            if s == known.me:
                continue
            assert len(sim.hands[s]) == len(real.hands[real_seat])
            assert taken.get(real_seat, set()) <= set(sim.hands[s]), f"seat {real_seat} lost a card it took"
            hidden |= set(sim.hands[s]) - taken.get(real_seat, set())
        assert hidden == unseen, "a sampled unseen card is one the seat saw elsewhere"
        everywhere = [c for hand in sim.hands for c in hand] + sim.table + sim.cleared + sim.stock.unseen()
        assert len(everywhere) == len(set(everywhere)), "a card is in two places"


class _Counted(RuleOfThumb):
    """The rule of thumb with a stop no hand reaches, counting its turns (swaps: a clear is
    followed by a swap in the same turn): a hand it plays for every seat never ends by itself."""

    def __init__(self, players: int) -> None:
        super().__init__([1000.0] * players)
        self.turns = 0

    def choose(self, seat: int, hand: Sequence[Card], table: Sequence[Card], may_clear: bool,
               may_stop: bool) -> Action:
        action = super().choose(seat, hand, table, may_clear, may_stop)
        self.turns += action.kind == "swap_one"
        return action


@pytest.mark.parametrize(("players", "seed", "steps"), [(2, 3, 0), (3, 5, 40), (5, 8, 150)])
def test_a_sampled_hand_that_never_ends_stops_soon_after_the_decision(players: int, seed: int, steps: int) -> None:
    """A rollout that would run to the engine's turn cap (500) costs a decision about 15 ms
    of CPU, past its budget; the replayed hand ends with no result sooner."""
    real = _history(players, seed, steps, style=seed, clears=False, forfeit=False)
    seat = real.to_move
    assert seat is not None and not real.is_over
    known = read_hand(real.events_for(seat), seat)
    assert known is not None
    template = replay(RULES, RULES.resolve(), known, real.table)
    assert template is not None
    sampler = Sampler(known, template, [stop_threshold(players)] * players)
    for _ in range(SAMPLES):
        sim = sampler.deal(random.Random(seed))
        policy = _Counted(players)
        finish_hand(sim, policy)
        assert sim.to_move is None, "the hand did not end"
        assert policy.turns <= ROLLOUT_TURNS
        assert sim.won == [0] * players, "a hand with no result gave someone a win"


def _denial_position() -> FiftyOneState:
    """Two players; the opponent (seat 1) has taken Ah Kh Qh Jh 2c from the table, every card
    it holds, and passed; seat 0 holds As Ks Qs Js 2d (39) facing 3d 4d 5d 6d Th.

    The rule of thumb swaps 2d for 3d and stops with 38, and the opponent takes Th for 51.
    Taking Th itself (31) leaves the opponent nothing better than its 39, with which it
    stops, and seat 0's last turn ties it at 39 (giving Th, taking 2d): the non-stopper wins."""
    me, opponent, table = parse_cards("As Ks Qs Js 2d"), parse_cards("3d 4d 5d 6d Th"), parse_cards("Ah Kh Qh Jh 2c")
    deck = [card for pair in zip(opponent, me) for card in pair] + table  # the dealer's left (seat 1) first
    deck += [c for c in new_deck(52) if c not in deck]
    state: Any = RULES.new_match(2, decks=[deck])
    script = ("3d Ah", "2d 3d", "4d Kh", "3d 2d", "5d Qh", "2d 3d", "6d Jh", "3d 2d", "Th 2c")
    for cards in script:
        state.apply(Action.parse(f"swap_one {cards}"))
    assert isinstance(state, FiftyOneState)
    return state


def _decide(state: FiftyOneState, seat: int, deals: int) -> str:
    match = MatchInfo("fifty-one-position", "fifty-one", dict(state.options), seat, state.players, {"move_ms": 1000},
                      state.events_for(seat))
    legal = [a.text for a in state.legal_actions()]
    return FiftyOnePlayer(match).choose(state.observe(seat), legal, Budget.fixed(deals))


def test_search_keeps_the_winning_card_from_the_next_seat() -> None:
    state = _denial_position()
    assert state.to_move == 0
    rule = RuleOfThumb([stop_threshold(2)] * 2)
    assert rule.choose(0, state.hands[0], state.table, True, True).text == "swap_one 2d 3d stop"
    choice = _decide(state, 0, 40)
    assert choice == "swap_one 2d Th"
    assert _decide(state, 0, 40) == choice, "the same match and seat must search the same way"


def test_a_hand_won_outweighs_any_score_and_scores_break_level_hands() -> None:
    """Last hand of a two-player match, level on hands won: the winner of the hand wins the
    match whatever the totals; with the hand shared, the higher total does."""
    state = _denial_position()
    known = read_hand(state.events_for(0), 0)
    assert known is not None
    observation = {"hands_won": [1, 1], "totals": [0, 60], "active": [True, True]}
    value = MatchValue(known, observation, remaining=0)
    assert value.ahead(1, -60) == 1.0
    assert value.ahead(0, 1) == 1.0 and value.ahead(0, 0) == 0.5 and value.ahead(0, -1) == 0.0
    early = MatchValue(known, observation, remaining=2)
    assert 0.5 < early.ahead(1, -60) < 1.0
    assert early.ahead(0, 0) == pytest.approx(0.5)
    assert early.ahead(0, 10) > 0.5 > early.ahead(0, -10)


@pytest.mark.parametrize(
    ("options", "left"),
    [({}, 3), ({"rounds": 500}, 199), ({"rounds": 500, "max_rounds": 300}, 299), ({"rounds": 9, "max_rounds": 5}, 4)],
)
def test_the_hands_still_to_come_stop_at_the_round_cap(options: dict[str, int], left: int) -> None:
    """After the first hand of two players: four hands by default, and never past the cap
    (200 unless set), where the engine ends the match."""
    match = MatchInfo("fifty-one-cap", "fifty-one", options, 0, 2, {"move_ms": 1000}, [])
    assert FiftyOnePlayer(match).remaining({"round": 1}) == left


REFEREE_TABLE = ("ismcts", "heuristic", "random", "ismcts", "heuristic")
"""Seats of the processes opened: a table of k players takes the first k, rotated."""
REFEREE_CONTROL = TimeControl(move_ms=100, bank_ms=10_000)
"""A short move time with a bank no loaded machine uses up: the test checks play, not speed."""


def test_search_bot_plays_fifty_one_through_the_referee() -> None:
    async def main() -> list[tuple[int, Any]]:
        results = []
        async with open_bots([find_bot(name) for name in REFEREE_TABLE], time_control=REFEREE_CONTROL) as bots:
            assert all(isinstance(bot, Bot) for bot in bots), bots
            for players in (2, 3, 4, 5):
                seated = bots[:players][players - 2:] + bots[:players][:players - 2]
                result = await play_match(RULES, seated, seed=players, time_control=REFEREE_CONTROL,
                                          match_id=f"fifty-one-{players}", options={"rounds": players})
                results.append((players, result))
        return results

    assert find_bot("ismcts").plays("fifty-one")
    label = find_bot("ismcts").label
    for players, result in trio.run(main):
        check_result(result, players, ("rounds played",))
        seats = [s for s, bot in enumerate(result.bots) if bot == label]
        assert seats and any(result.timings[s].decisions for s in seats), (players, result.bots)


SLACK_S = 0.015
"""CPU time a decision may take beyond its budget: the deal under way at the deadline."""


@pytest.mark.alone  # measures CPU time: run with the machine to itself
def test_every_decision_keeps_to_the_budget_in_cpu_time() -> None:
    bot = load_bot("ismcts_bot_fifty_one")
    move_ms = 100
    times: list[float] = []
    walls: list[float] = []
    gc.collect()
    gc.freeze()
    try:
        for seed in range(1, 4):
            players = 2 + seed
            state: Any = RULES.new_match(players, seed=seed)
            match = MatchInfo(f"fifty-one-{seed}", "fifty-one", dict(state.options), 0, players, {"move_ms": move_ms})
            bot.match_start(match)
            rule = RuleOfThumb([stop_threshold(players)] * players)
            seen = 0
            while not state.is_over:
                seat = state.to_move
                legal = state.legal_actions()
                if seat != 0:
                    state.apply(rule.choose(seat, state.hands[seat], state.table, legal[-1].kind == "clear",
                                            state.stopper < 0))
                    continue
                match.events.extend(state.events_for(0, seen))
                seen = len(state.log)
                texts = [a.text for a in legal]
                began, wall = time.process_time(), time.perf_counter()
                chosen = bot.choose(state.observe(0), texts, match, move_ms)
                times.append(time.process_time() - began)
                walls.append(time.perf_counter() - wall)
                state.apply(legal[texts.index(chosen)])
    finally:
        gc.unfreeze()
    assert len(times) > 30
    assert max(times) <= think_s({"move_ms": move_ms}) + SLACK_S, f"a decision took {1000 * max(times):.0f} ms of CPU"
    # on the wall clock, which also stops it: a busy machine gives it less CPU in that time, never less time
    assert sum(walls) / len(walls) > think_s({"move_ms": move_ms}) / 4, "it hardly searched: the bound means nothing"
