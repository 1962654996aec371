"""A person's seat through the real referee, in every variant: the relay process the
referee launches like a bot, the seat answering for a scripted person, real bot processes.

The scripted person answers in every form a person may type (a number, the action's text
in capitals, its cards in another order) and sometimes types nonsense first: every
refusal must keep the turn, and every match must reach its end.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import trio

from arena.botspec import find_bot
from arena.human.match import Played, Seating, person_clock, play_seated
from arena.human.parse import valued
from arena.human.render import decision_text
from arena.human.view import Decision, Ending
from arena.referee import Abandon, FaultKind, TimeControl
from arena.rules import get_variant, variants
from arena.sandbox import Sandbox

SHORT = {"thirty-one": {"lives": 1}, "widow": {"lives": 1}, "fifty-one": {"rounds": 1},
         "fifty-one-chinese": {"target": 40}, "empat-satu": {"rounds": 1}, "skat": {"rounds": 3}}
MATCH_TIMEOUT_S = 60


class Person:
    """Answers each decision with a random legal action, typed in a rotating form."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.decisions = 0
        self.refused = 0
        self.typo_pending = False
        self.ending: Ending | None = None
        self.left_with: str | None = None

    async def ask(self, view: Decision, problem: str | None) -> str:
        screen = "\n".join(decision_text(view))
        assert view.prompt in screen and f"your move {view.move}" in screen
        if problem is not None:
            assert self.typo_pending, problem  # only the nonsense is ever refused
            self.typo_pending = False
            self.refused += 1
        elif self.decisions == 0 or self.rng.random() < 0.1:  # nonsense first, then now and then
            self.typo_pending = True
            return "xyzzy"
        self.decisions += 1
        number = self.rng.randrange(len(view.legal))
        words = view.legal[number].split()
        cards = [w for w in words if len(w) == 2 and w[1] in "cdhs" and not w.isdigit()]
        form = self.decisions % 3
        if form == 0:  # a choice's number; where numbers are bids, #N
            return f"#{number + 1}" if valued(view.legal) else str(number + 1)
        if form == 1 or len(cards) < 2:
            return view.legal[number].upper()
        rest = [w for w in words[1:] if w not in cards]
        return " ".join([words[0], *reversed(cards), *rest])

    def finished(self, view: Ending) -> None:
        self.ending = view

    def left(self, message: str) -> None:
        self.left_with = message

    def notice(self, message: str) -> None:
        raise AssertionError(f"the referee faulted the person: {message}")


def play(variant: str, person: Person, *, seat: int = 1, bots: tuple[str, ...] = ("random", "random"),
         clock: TimeControl | None = None, options: dict[str, object] | None = None) -> Played:
    game = get_variant(variant)
    chosen = options if options is not None else ({"rounds": 1} if variant == "banking" else SHORT[game.family.name])
    who = list(bots)
    who.insert(seat, "alice")
    seating = Seating(game, chosen, seat, "alice", [find_bot(b) for b in bots], who)

    async def main() -> Played:
        with trio.fail_after(MATCH_TIMEOUT_S):
            return await play_seated(seating, person, seed=7, match_id="test", bot_clock=TimeControl(),
                                     clock=clock or person_clock(None), sandbox=Sandbox(), abandon=Abandon())

    return trio.run(main)


@pytest.mark.parametrize("variant", sorted(variants()))
def test_a_person_plays_every_variant_to_its_end(variant: str) -> None:
    person = Person(len(variant))
    played = play(variant, person)
    result = played.result
    assert result.faults == [], result.faults
    assert person.ending is not None and person.ending == played.ending
    assert person.ending.reason == result.outcome.reason and not person.ending.abandoned
    assert [p.place for p in person.ending.places] == sorted(result.outcome.placements)
    assert result.timings[1].decisions == person.decisions > 0
    assert person.refused >= 1 and not person.typo_pending  # refused, asked again, answered: the turn kept
    assert result.bots[1] == "alice@person"
    assert result.log[-1]["event"] == "match_end"


def test_the_person_plays_under_their_own_clock(tmp_path: Path) -> None:
    """With --move-seconds the person is out when it runs out, as a bot would be; the bots
    play on under theirs."""

    class Asleep(Person):
        async def ask(self, view: Decision, problem: str | None) -> str:
            await trio.sleep_forever()
            raise AssertionError("unreachable")

    person = Asleep(1)
    played = play("scat", person, seat=0, clock=person_clock(0.3), options={"lives": 1})
    faults = played.result.faults
    assert [(f.seat, f.kind) for f in faults] == [(0, FaultKind.TIMEOUT)]
    assert "300 ms" in faults[0].detail
    assert person.left_with is not None and person.left_with.startswith("Your time ran out")
    assert played.result.outcome.placements[0] == 3
