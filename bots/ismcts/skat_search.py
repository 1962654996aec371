"""Perfect-information Monte Carlo for Skat's card play.

For one decision: sample a deal consistent with what the seat knows (:mod:`skat_deal`),
rebuild it with the engine (the first deal replays the whole deal; later ones copy that
state with other hands), play each candidate card on a copy of the same deal and finish
the deal with the rollout policy (:mod:`skat_rollout`), and score it
(:func:`skat_rollout.deal_worth`).  Comparing the cards on the same deals cancels most of
the luck of the deal.  The search stops when its budget (:mod:`budget`) runs out, or
once the leader's paired advantage over every other card is clear (:func:`pimc.clear_leader`).

Cards that cannot differ are searched once (:func:`candidates`): two cards of one suit
with the same card points and no card between them that is still in play, in another
seat's hand or on the table (7 8 9 of a side suit, touching jacks; in null any touching
cards).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from budget import Budget, deals_while
from infoset import MAX_TRIES, MIN_ACCEPT
from pimc import Tally, clear_leader
from skat_deal import SkatKnowledge, redeal, replay
from skat_rollout import SkatRollout, deal_worth

from arena.cards import Card
from arena.rules import Action, Variant
from arena.rules.skat_values import CARD_POINTS, TRUMP


def candidates(known: SkatKnowledge, legal: Sequence[Action]) -> list[Action]:
    """The card plays worth comparing, cheapest first (side cards, fewest points, lowest):
    of cards that cannot differ, the lowest."""
    game = known.game or "grand"
    policy = SkatRollout(game)
    suits, strength = policy.suits, policy.strength
    plays = [a for a in legal if a.kind == "play"]
    hand = {int(a.cards[0]) for a in plays} | {int(c) for c in known.hand()}
    finished = len(known.plays) - len(known.plays) % 3
    gone = {int(c) for _, c in known.plays[:finished]}  # the trick on the table still counts
    live = [c for c in range(52) if strength[c] and c not in hand and c not in gone]
    kept: list[Action] = []
    by_height = sorted(plays, key=lambda a: (suits[a.cards[0]], strength[a.cards[0]]))
    for action in by_height:
        card = int(action.cards[0])
        if kept:
            lower = int(kept[-1].cards[0])
            same = suits[lower] == suits[card] and (game == "null" or CARD_POINTS[lower] == CARD_POINTS[card])
            between = any(suits[c] == suits[card] and strength[lower] < strength[c] < strength[card] for c in live)
            if same and not between:
                continue
        kept.append(action)
    return sorted(kept, key=lambda a: (suits[a.cards[0]] == TRUMP, CARD_POINTS[a.cards[0]], strength[a.cards[0]]))


def sample_deal(known: SkatKnowledge, rng: random.Random, best: list[float]
                ) -> tuple[dict[int, list[Card]], list[Card]] | None:
    """A deal drawn with probability its weight (:meth:`SkatKnowledge.weight`) relative to the
    heaviest drawn so far (``best[0]``, updated), at least :data:`infoset.MIN_ACCEPT`."""
    for _ in range(MAX_TRIES):
        dealt = known.sample(rng)
        if dealt is None:
            return None
        weight = known.weight(*dealt)
        if weight >= best[0]:
            best[0] = weight
            return dealt
        if rng.random() < max(weight / best[0], MIN_ACCEPT):
            return dealt
    return None


def search(
    variant: Variant,
    options: Mapping[str, Any],
    known: SkatKnowledge,
    moves: Sequence[Action],
    budget: Budget,
    rng: random.Random,
) -> tuple[list[Tally], Any, list[list[bool]]]:
    """Evaluate the card plays ``moves`` while ``budget`` allows.

    Returns one :class:`pimc.Tally` per move, all with the same number of results; the
    first deal's state (None if no deal was found): with no result, the rollout policy's
    card on it is a better fallback than none; and for each move, whether the declarer won
    each deal (what kontra and re are decided on)."""
    tallies = [Tally(a.text, a) for a in moves]
    declarer_won: list[list[bool]] = [[] for _ in moves]
    best = [0.0]
    first = sample_deal(known, rng, best)
    template = replay(variant, options, known, *first) if first is not None else None
    if template is None:
        return tallies, None, declarer_won
    policy = SkatRollout(str(known.game))
    me = known.me
    for deal in deals_while(budget, lambda: clear_leader(tallies)):
        dealt = first if deal == 0 else sample_deal(known, rng, best)
        if dealt is None:
            break
        state = redeal(template, known, *dealt)
        for tally, won in zip(tallies, declarer_won):  # every card on a copy of the same deal
            played = state.clone()
            played.apply(tally.action)
            result = policy.finish(played)
            tally.results.append(deal_worth(result, me))
            won.append(bool(result and result.get("won")))
    return tallies, template, declarer_won


def choose(tallies: Sequence[Tally]) -> Tally:
    """The move with the best mean; on equal means the first (the cheapest card)."""
    best = tallies[0]
    for tally in tallies[1:]:
        if tally.mean > best.mean:
            best = tally
    return best
