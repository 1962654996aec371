"""On its first decision: signals its parent, the referee and the other bots of the
table, whose (host) pids the test writes into ``victims.json`` in the bot's folder once
the bots have started: {"referee": pid, "bots": [pid, ...]}.  SIGTERM first; SIGKILL
only where SIGTERM could not be sent (so a hole shows as a recorded SIGTERM rather than a
dead referee).  Reports each outcome, then keeps playing legally."""

import errno
import json
import os
import random
import signal
import sys
import time

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(14)
attacked = False


def outcome(action) -> str:  # type: ignore[no-untyped-def]
    try:
        value = action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, f"{type(error).__name__}: {error}")
    return "ok" if value is None else f"ok: {value}"


def hit(pid: int) -> dict[str, str]:
    term = outcome(lambda: os.kill(pid, signal.SIGTERM))
    if term.startswith("ok"):
        return {"SIGTERM": term}
    return {"SIGTERM": term, "SIGKILL": outcome(lambda: os.kill(pid, signal.SIGKILL))}


def attack() -> dict[str, object]:
    path = os.path.join(HERE, "victims.json")
    deadline = time.monotonic() + 1.0
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    with open(path) as handle:
        victims = json.load(handle)
    result: dict[str, object] = {"my_pid": os.getpid(), "ppid": os.getppid()}
    result["referee"] = hit(victims["referee"])
    result["bots"] = {str(pid): hit(pid) for pid in victims["bots"]}
    result["everyone"] = outcome(lambda: os.kill(-1, signal.SIGTERM))
    result["parent"] = outcome(lambda: os.kill(os.getppid(), signal.SIGTERM))
    return result


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(attack()), file=sys.stderr, flush=True)
    return rng.choice(legal)
