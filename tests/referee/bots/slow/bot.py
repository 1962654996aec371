"""Plays legal[0]; on its 3rd decision of a match it answers LATE_S after its time ran out.

``time_left_ms`` is not passed to hooks, so the bot reads it from the time control in
``match_start``: after two quick decisions the bank is untouched, so the 3rd decision may
take ``move_ms + bank_ms``.  The late reply still goes out (then the bot plays on): under
the ``substitute`` policy the referee must skip it rather than take it for the next answer.
"""

import sys
import time

from arena.sdk import MatchInfo, hookimpl

BAD_DECISION = 3
LATE_S = 0.25
decisions = 0
allowed_s = 0.0


@hookimpl
def match_start(match: MatchInfo) -> None:
    global decisions, allowed_s
    decisions = 0
    allowed_s = (match.time["move_ms"] + match.time["bank_ms"]) / 1000


@hookimpl
def choose(legal: list[str]) -> str:
    global decisions
    decisions += 1
    if decisions == BAD_DECISION:
        time.sleep(allowed_s + LATE_S)
        print(f"slow: late reply to decision {decisions}", file=sys.stderr, flush=True)
    return legal[0]
