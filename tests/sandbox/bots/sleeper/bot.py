"""Sleeps far past the time limit on its first decision, then would answer."""

import json
import sys
import time

from arena.sdk import hookimpl

SLEEP_S = 30


@hookimpl
def choose(legal: list[str]) -> str:
    print("REPORT " + json.dumps({"sleeping_s": SLEEP_S}), file=sys.stderr, flush=True)
    time.sleep(SLEEP_S)
    return legal[0]
