"""Never answers its first decision: blocks on an event nobody sets."""

import json
import sys
import threading

from arena.sdk import hookimpl


@hookimpl
def choose(legal: list[str]) -> str:
    print("REPORT " + json.dumps({"blocking": True}), file=sys.stderr, flush=True)
    threading.Event().wait()
    return legal[0]
