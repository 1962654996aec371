"""Determinized Monte Carlo search: sample a deal, try every candidate action on it, roll out.

Each iteration samples one deal consistent with the seat's information set
(:func:`infoset.sample_state`: opponents keep their best cards, and deals are weighed by
how likely each opponent was to play on rather than knock with what the deal gives it),
and on a copy of that same deal plays each candidate action followed by a rollout of the
round with the cheap policy (:mod:`playout`).  In the widow family deals after the first
are redrawn from a copy of the first rather than replayed (:mod:`redeal`).  Comparing
the candidates on the same deals (common random numbers) cancels most of the luck of the
deal, so a few dozen deals separate them.  The search stops at its deadline, or earlier once the leader's paired
advantage over every other candidate is clear.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from budget import Budget, deals_while
from infoset import Knowledge, sample_state
from playout import Playout
from redeal import Redealer

from arena.rules import Action, Variant

CLEAR_LEAD = 3.0
"""The leader stops the search when its mean paired advantage over each other candidate
exceeds this many standard errors."""
OVERRIDE_Z = 1.5
"""Standard errors by which the search's choice must beat the bot's default choice (in Scat
against the baselines, 1.5 did better than 0.5, 1, 2 or 3 over the same 100 matches)."""

Utility = Callable[[Mapping[str, Any] | None], float]


@dataclass
class Tally:
    """One candidate action and its rollout results, one per sampled deal."""

    text: str
    action: Action
    results: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return sum(self.results) / len(self.results) if self.results else -math.inf


def z_score(a: Tally, b: Tally) -> float:
    """How many standard errors ``a``'s mean paired advantage over ``b`` is (same deals)."""
    diffs = [x - y for x, y in zip(a.results, b.results)]
    k = len(diffs)
    if k < 2:
        return 0.0
    mean = sum(diffs) / k
    var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
    if var == 0:
        return math.copysign(math.inf, mean) if mean else 0.0
    return mean / math.sqrt(var / k)


def clear_leader(tallies: Sequence[Tally]) -> bool:
    """Whether the leader beats every other candidate by :data:`CLEAR_LEAD` standard errors."""
    leader = max(tallies, key=lambda t: t.mean)
    return all(other is leader or z_score(leader, other) > CLEAR_LEAD for other in tallies)


def pick(tallies: Sequence[Tally], default: str) -> str:
    """The best candidate if it beats ``default`` (the bot's choice before search) by
    :data:`OVERRIDE_Z` standard errors, else ``default``: a few noisy deals should not
    overturn a sound rule of thumb."""
    leader = max(tallies, key=lambda t: t.mean)
    base = next((t for t in tallies if t.text == default), None)
    if base is None or leader is base or z_score(leader, base) >= OVERRIDE_Z:
        return leader.text
    return default


def search(
    variant: Variant,
    options: Mapping[str, Any],
    knowledge: Knowledge,
    candidates: Sequence[str],
    policy: Playout,
    utility: Utility,
    budget: Budget,
    rng: random.Random,
) -> list[Tally]:
    """Evaluate ``candidates`` (action texts) while ``budget`` allows.

    Returns one :class:`Tally` per candidate, all with the same number of results (zero if
    not even one deal fitted in the time).
    """
    tallies = [Tally(text, Action.parse(text)) for text in candidates]
    declines: list[int] = []
    first = sample_state(variant, options, knowledge, rng, policy.value, policy.declined, declines, budget)
    if first is None:
        return tallies
    redealer = None
    if Redealer.serves(variant.family.name, knowledge):
        redealer = Redealer(knowledge, first[1], declines, policy, options)
    for deal in deals_while(budget, lambda: clear_leader(tallies)):
        if deal == 0:
            state = first[1]
        elif redealer is not None:
            redealt = redealer.sample(rng)
            if redealt is None:
                break
            state = redealt
        else:
            sampled = sample_state(variant, options, knowledge, rng, policy.value, policy.declined, budget=budget)
            if sampled is None:
                break
            state = sampled[1]
        keep = redealer is not None and deal == 0  # the template is never played on
        last = len(tallies) - 1
        for i, tally in enumerate(tallies):  # every candidate on a copy of the same deal
            played = state if i == last and not keep else state.clone()
            played.apply(tally.action)
            tally.results.append(utility(policy.finish_round(played)))
    return tallies
