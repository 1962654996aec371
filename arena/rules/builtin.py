"""The built-in variants, registered through the ``arena.variants`` plugin hook."""

from __future__ import annotations

from arena.rules.empat_satu import EMPAT_SATU
from arena.rules.fifty_one import FIFTY_ONE
from arena.rules.fifty_one_chinese import CHINESE_FIFTY_ONE
from arena.rules.game import Variant
from arena.rules.hookmarks import hookimpl
from arena.rules.skat import SKAT
from arena.rules.thirty_one import THIRTY_ONE
from arena.rules.widow import WIDOW


@hookimpl
def arena_variants() -> list[Variant]:
    """The built-in presets: the draw-and-discard family (docs/RULES.md 3.7), the widow family (4.2) and the
    four- and five-card relatives (5), and Skat (6)."""
    return [
        Variant("scat", THIRTY_ONE, "Thirty-One / Scat / Blitz: knock, blitz on 31, three lives with a free ride"),
        Variant("scat-trips", THIRTY_ONE, "Scat where three of a rank count 30", {"trips": "30"}),
        Variant("dollar-bill", THIRTY_ONE, "Scat with four lives (the corners of a bill)", {"lives": 4}),
        Variant("eenendertigen", THIRTY_ONE, "Dutch Scat with the 32-card deck", {"deck": 32}),
        Variant(
            "california-quick",
            THIRTY_ONE,
            "Scat where a knocker tied for lowest loses too, knocker losses cost 2, and the first "
            "player may knock out of the gate",
            {"knocker_tie": "loses", "knocker_blitz_penalty": 2, "out_of_the_gate": True},
        ),
        Variant(
            "west-lansing",
            THIRTY_ONE,
            "Cut-throat Scat: no free ride, trips 30.5 (all tie), a knocker who beats nobody loses 2",
            {"free_ride": False, "trips": "30.5", "tiebreak": "none", "knocker_must_beat": True},
        ),
        Variant(
            "no-elimination",
            THIRTY_ONE,
            "Scat scored in points per round (blitz 6; high 3/4, middle 2/1, low 1/0 for knockers)",
            {"scoring": "points"},
        ),
        Variant(
            "banking",
            THIRTY_ONE,
            "Scat for chips: antes, a face-down widow to exchange with, the highest hand takes the pot",
            {"scoring": "chips", "widow": True},
        ),
        Variant("schwimmen", WIDOW, "Schwimmen / 31: 32 cards, trade with a face-up widow, 31 and Feuer end "
                "the round, the lowest hand loses a life, swim at zero"),
        Variant(
            "stop-the-bus",
            WIDOW,
            "Stop the Bus: Schwimmen on 52 cards with three-card brag ranks; players tied for lowest escape",
            {"deck": 52, "ranking": "brag", "special_hands": "none", "tied_lowest": "escape"},
        ),
        Variant(
            "switch",
            WIDOW,
            "Switch: Scat played with two table hands (face up and face down) to exchange with, swap or renew",
            {"deck": 52, "table": "switch", "trips": "none", "three_aces": "none", "tiebreak": "none",
             "special_hands": "blitz", "knocker_penalty": 2, "knocker_tie": "safe"},
        ),
        Variant("fifty-one", FIFTY_ONE, "Japanese Fifty-One (Goju Ichi): five cards, swap with five on the "
                "table, clear it, stop; net suit scores, most hands won"),
        Variant("fifty-one-chinese", CHINESE_FIFTY_ONE, "Chinese Fifty-One: counter-clockwise draw, trade, "
                "swap or knock and be challenged; a clear count (51 in one suit) scores 102; game to 500"),
        Variant("empat-satu", EMPAT_SATU, "Empat Satu (41): four cards, draw or take, stop with four of a "
                "suit; net suit scores, wins minus losses", max_players=8),
        Variant("skat", SKAT, "Skat (ISkO rules): bid, take the skat or play hand, declare a suit, grand or "
                "null game; three play each deal, at a table of four the dealer sits out", min_players=3,
                max_players=4),
    ]
