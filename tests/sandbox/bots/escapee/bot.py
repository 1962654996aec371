"""On its first decision: double-forks a grandchild that leaves the bot's session
(``os.setsid()``), ignores SIGTERM and SIGHUP, and execs a long sleep whose command line
carries a unique token (so the test can find it from outside).  Reports the token and
keeps playing legally -- or, if its folder holds a file ``exit-after``, exits with
status 3 on its second decision, leaving the grandchild behind."""

import json
import os
import random
import secrets
import signal
import sys

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
EXIT_AFTER = os.path.exists(os.path.join(HERE, "exit-after"))
rng = random.Random(7)
decisions = 0


def escape(token: str) -> dict[str, object]:
    sid = os.getsid(0)
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stays ignored across exec
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            if os.fork() == 0:
                os.write(ready_w, f"{os.getpid()} {os.getsid(0)}\n".encode())
                os.close(ready_w)
                os.execv(sys.executable, [sys.executable, "-c", "import time\nwhile True: time.sleep(60)", token])
        finally:
            os._exit(0)
    os.close(ready_w)
    os.waitpid(pid, 0)
    with os.fdopen(ready_r) as ready:
        line = ready.read().split()
    grandchild, grandchild_sid = (int(x) for x in line)
    return {"token": token, "bot_sid": sid, "grandchild": grandchild, "grandchild_sid": grandchild_sid,
            "exit_after": EXIT_AFTER}


@hookimpl
def choose(legal: list[str]) -> str:
    global decisions
    decisions += 1
    if decisions == 1:
        report = escape("arena-escapee-" + secrets.token_hex(8))
        print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    elif decisions == 2 and EXIT_AFTER:
        print("escapee: exiting with my grandchild left behind", file=sys.stderr, flush=True)
        os._exit(3)
    return rng.choice(legal)
