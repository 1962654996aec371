"""The rules engine: pure game logic, no I/O, no clocks, no global state.

Public API:

>>> from arena.rules import get_variant
>>> state = get_variant("scat").new_match(4, seed=7)
>>> while not state.is_over:
...     state.apply(state.legal_actions()[0])
>>> state.outcome.placements, state.outcome.reason
((2, 2, 2, 1), 'last player in')
>>> from arena.cards import parse_cards
>>> get_variant("stop-the-bus").evaluate(parse_cards("Qs Ks As")).label
'running flush Q-K-A'
"""

from arena.rules.game import Action, Event, Family, IllegalActionError, MatchState, Outcome, RulesError, Variant
from arena.rules.hands import HandValue
from arena.rules.hookmarks import hookimpl
from arena.rules.options import OptionError, OptionSpec, parse_option_pairs
from arena.rules.registry import UnknownVariantError, get_variant, variants

__all__ = [
    "Action",
    "Event",
    "Family",
    "HandValue",
    "IllegalActionError",
    "MatchState",
    "OptionError",
    "OptionSpec",
    "Outcome",
    "RulesError",
    "UnknownVariantError",
    "Variant",
    "get_variant",
    "hookimpl",
    "parse_option_pairs",
    "variants",
]
