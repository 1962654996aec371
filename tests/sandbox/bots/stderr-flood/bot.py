"""On its first decision: writes 200 MB to stderr (1 MB writes, straight to the fd),
then reports and keeps playing legally."""

import json
import os
import random
import sys
import time

from arena.sdk import hookimpl

MB = 1024 * 1024
SIZE_MB = 200
rng = random.Random(8)
attacked = False


def flood() -> dict[str, object]:
    chunk = (b"flood " * (MB // 6 + 1))[: MB - 1] + b"\n"
    start = time.monotonic()
    for _ in range(SIZE_MB):
        view = memoryview(chunk)
        while view:
            view = view[os.write(2, view):]
    return {"flooded_mb": SIZE_MB, "seconds": round(time.monotonic() - start, 3)}


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(flood()), file=sys.stderr, flush=True)
    return rng.choice(legal)
