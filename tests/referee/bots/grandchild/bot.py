"""On its 3rd decision: starts `sleep` in a NEW process group of its own (same session,
not setsid), reports the child's pid on stderr, then crashes.

A sandbox that kills only the bot's process group leaves this child running.
"""

import subprocess
import sys

from arena.sdk import MatchInfo, hookimpl

BAD_DECISION = 3
decisions = 0


@hookimpl
def match_start(match: MatchInfo) -> None:
    global decisions
    decisions = 0


@hookimpl
def choose(legal: list[str]) -> str:
    global decisions
    decisions += 1
    if decisions == BAD_DECISION:
        child = subprocess.Popen(["sleep", "600"], process_group=0)
        print(f"grandchild: started pid {child.pid}", file=sys.stderr, flush=True)
        raise RuntimeError("grandchild: crashing with a child left behind")
    return legal[0]
