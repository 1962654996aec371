"""Spins the CPU forever on its first decision (a pure-Python busy loop)."""

import json
import sys

from arena.sdk import hookimpl


@hookimpl
def choose(legal: list[str]) -> str:
    print("REPORT " + json.dumps({"spinning": True}), file=sys.stderr, flush=True)
    n = 0
    while True:
        n += 1
