"""Japanese Fifty-One: hand arithmetic, the rule of thumb, and the rollout that uses it.

The net suit score of a hand is the best over the suits of (that suit's points) - (the
other cards' points), which is ``2 x suit points - all points``.  For one target suit a
swap changes that by a part that depends only on the card given and a part that depends
only on the card taken, so the best swap of a hand is found suit by suit from the best
give and the best take (:func:`best_swap`), eight cards looked at per suit rather than
twenty-five hands valued: rollouts and the opponent model call it in their inner loops.

The rule of thumb (:class:`RuleOfThumb`) is the heuristic bot's: make the swap that leaves
the best score plus a small bonus per card of the counted suit; clear a table that offers
no gain while the hand is too weak to stop; stop once the hand reaches a threshold that
rises with the table size.  It is the search's default choice, every seat's policy in a
rollout (:func:`finish_hand`) and the model the sampler weighs opponents' hidden cards by.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import POINTS, Card
from arena.rules import Action
from arena.rules.fifty_one import FiftyOneState

LENGTH_BONUS = 0.5
"""Added per card of the counted suit while the hand goes on: a long suit grows more easily
(the heuristic bot's bonus)."""
STOP_AT = 36.0
"""Stop with this net suit score at two players ..."""
STOP_PER_PLAYER = 1.0
"""... plus this for each further player (each has a last turn to pass the stopper)."""
CLEAR_BELOW = 1.0
"""Clear the table when no swap gains this much and the hand cannot stop yet."""
SUITS = (0, 1, 2, 3)
CLEAR = Action.of("clear")


def stop_threshold(players: int) -> float:
    """The rule of thumb's stop threshold at a table of ``players``."""
    return STOP_AT + STOP_PER_PLAYER * (players - 2)


def suit_points(cards: Sequence[Card]) -> list[int]:
    """Points held in each suit."""
    sums = [0, 0, 0, 0]
    for c in cards:
        sums[c & 3] += POINTS[c]
    return sums


def net_score(cards: Sequence[Card]) -> int:
    """The net suit score (docs/RULES.md, "Net suit score")."""
    sums = suit_points(cards)
    return 2 * max(sums) - sum(sums)


def take_gain(suit: int, card: Card, bonus: float) -> float:
    """What taking ``card`` adds to a hand counted in ``suit`` (with ``bonus`` per suit card)."""
    return POINTS[card] + bonus if card & 3 == suit else -POINTS[card]


def give_gain(suit: int, card: Card, bonus: float) -> float:
    """What giving ``card`` away adds to a hand counted in ``suit``."""
    return -POINTS[card] - bonus if card & 3 == suit else POINTS[card]


def suit_bases(cards: Sequence[Card], bonus: float) -> list[float]:
    """Each suit's score for the hand: ``2 x its points - all points + bonus x its cards``."""
    sums = [0, 0, 0, 0]
    counts = [0, 0, 0, 0]
    for c in cards:
        sums[c & 3] += POINTS[c]
        counts[c & 3] += 1
    total = sums[0] + sums[1] + sums[2] + sums[3]
    return [2 * sums[s] - total + bonus * counts[s] for s in SUITS]


def best_swap(hand: Sequence[Card], table: Sequence[Card], bonus: float = 0.0) -> tuple[float, Card, Card]:
    """(score after, card given, card taken) of the swap leaving the best score with ``bonus``
    per card of the counted suit; ties keep the first suit and cards met."""
    bases = suit_bases(hand, bonus)
    best = (-1e9, hand[0], table[0])
    for s in SUITS:
        give = max(hand, key=lambda c: give_gain(s, c, bonus))
        take = max(table, key=lambda c: take_gain(s, c, bonus))
        score = bases[s] + give_gain(s, give, bonus) + take_gain(s, take, bonus)
        if score > best[0]:
            best = (score, give, take)
    return best


def swap_score(hand: Sequence[Card], give: Card, take: Card, bonus: float = 0.0) -> float:
    """The score with ``bonus`` after giving ``give`` and taking ``take``."""
    bases = suit_bases(hand, bonus)
    return max(bases[s] + give_gain(s, give, bonus) + take_gain(s, take, bonus) for s in SUITS)


def swap_action(give: Card, take: Card, stop: bool) -> Action:
    """The engine's interned ``swap_one GIVE TAKE [stop]``."""
    return Action.of("swap_one", give, take, arg="stop" if stop else "")


class RuleOfThumb:
    """The heuristic bot's play; one stop threshold per seat of the (replayed) table."""

    def __init__(self, thresholds: Sequence[float]) -> None:
        self.thresholds = list(thresholds)

    def choose(self, seat: int, hand: Sequence[Card], table: Sequence[Card], may_clear: bool,
               may_stop: bool) -> Action:
        """The seat's action: the best swap with the length bonus (none on a last turn), or a
        clear when no swap gains :data:`CLEAR_BELOW` and the hand is below the threshold, with
        a stop once the hand after the swap reaches it."""
        going_on = may_stop
        bonus = LENGTH_BONUS if going_on else 0.0
        score, give, take = best_swap(hand, table, bonus)
        if not going_on:
            return swap_action(give, take, False)
        threshold = self.thresholds[seat]
        if may_clear and score - max(suit_bases(hand, bonus)) < CLEAR_BELOW and net_score(hand) < threshold:
            return CLEAR
        after = [c for c in hand if c != give] + [take]
        return swap_action(give, take, net_score(after) >= threshold)


def finish_hand(state: FiftyOneState, policy: RuleOfThumb) -> None:
    """Play the hand in ``state`` to its end (a replayed match of one hand: to the match's
    end) with ``policy`` for every seat."""
    while state.to_move is not None:
        seat = state.to_move
        may_clear = state.legal_actions()[-1] is CLEAR
        state.apply(policy.choose(seat, state.hands[seat], state.table, may_clear, state.stopper < 0))
