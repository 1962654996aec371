"""Innocent: on its first decision starts one worker thread (as numerical libraries do at
import) and reports whether it could; plays a random legal action every time."""

import json
import random
import sys
import threading

from arena.sdk import hookimpl

rng = random.Random(16)
reported = False


def start_thread() -> str:
    try:
        worker = threading.Thread(target=lambda: None)
        worker.start()
        worker.join()
    except RuntimeError as error:
        return f"RuntimeError: {error}"
    return "ok"


@hookimpl
def choose(legal: list[str]) -> str:
    global reported
    if not reported:
        reported = True
        print("REPORT " + json.dumps({"thread": start_thread()}), file=sys.stderr, flush=True)
    return rng.choice(legal)
