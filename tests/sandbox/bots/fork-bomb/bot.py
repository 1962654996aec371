"""On its first decision: ``os.fork()`` in a loop (up to 1000 times) until the kernel
refuses; every child parks itself for good.  Reports how many forks succeeded and how
the last one failed, then keeps playing legally with its children still around."""

import errno
import json
import os
import random
import signal
import sys

from arena.sdk import hookimpl

ATTEMPTS = 1000
rng = random.Random(6)
attacked = False


def attack() -> dict[str, object]:
    forked = 0
    failure = "none"
    for _ in range(ATTEMPTS):
        try:
            pid = os.fork()
        except OSError as error:
            failure = errno.errorcode.get(error.errno or 0, str(error))
            break
        if pid == 0:  # the child: park forever
            try:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                while True:
                    signal.pause()
            finally:
                os._exit(0)
        forked += 1
    return {"forked": forked, "failure": failure}


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(attack()), file=sys.stderr, flush=True)
    return rng.choice(legal)
