"""A fingerprint of the rules engine's behaviour: the hash of the full event logs and outcomes
of many seeded matches of every variant, played with seeded random legal actions.

A restructuring that must not change behaviour prints the same fingerprints before and
after::

    .venv/bin/python scripts/fingerprint.py --matches 300 > before.txt
    ... change the code ...
    .venv/bin/python scripts/fingerprint.py --matches 300 | diff before.txt -
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random

from arena.rules import get_variant, variants


def fingerprint(variant: str, players: int, matches: int) -> tuple[str, int]:
    """The hash of ``matches`` seeded matches at ``players`` seats, and their decisions."""
    digest = hashlib.sha256()
    decisions = 0
    game = get_variant(variant)
    for seed in range(matches):
        rng = random.Random(f"{variant}/{players}/{seed}")
        state = game.new_match(players, seed=seed)
        while not state.is_over:
            seat = state.to_move
            assert seat is not None
            state.observe(seat)  # observing must not change the state
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        for event in state.log:
            digest.update(json.dumps(event.full(), sort_keys=True).encode())
        assert state.outcome is not None
        digest.update(json.dumps(state.outcome.to_dict(), sort_keys=True).encode())
    return digest.hexdigest()[:16], decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=300, help="matches per variant and table size")
    args = parser.parse_args()
    total = 0
    for name, variant in sorted(variants().items()):
        for players in range(variant.min_players, min(variant.max_players, variant.min_players + 2) + 1):
            digest, decisions = fingerprint(name, players, args.matches)
            total += decisions
            print(f"{name:18} {players}p  {digest}  ({decisions} decisions)")
    print(f"{total} decisions in all")


if __name__ == "__main__":
    main()
