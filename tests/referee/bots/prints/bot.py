"""Plays legal[0] and prints on every decision: print(), sys.stdout.write and a raw write
to fd 1.  The bot host sends all of it to stderr, so none of it may reach the protocol."""

import os
import sys

from arena.sdk import hookimpl


@hookimpl
def choose(observation: dict, legal: list[str]) -> str:
    print("prints: thinking about", legal)
    print('{"type": "action", "id": 0, "action": "fly"}')  # looks like a reply: must not count as one
    sys.stdout.write("prints: no newline here ")
    sys.stdout.flush()
    os.write(1, b"prints: raw fd 1 write\n")
    return legal[0]
