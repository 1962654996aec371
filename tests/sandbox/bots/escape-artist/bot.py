"""On its first decision: writes to stderr a window title (OSC 0), a clipboard write
(OSC 52), a screen clear, a C1 control sequence and a bidirectional override, then
crashes, so that they reach the operator in the crash's fault detail."""

import sys

from arena.sdk import hookimpl

PAYLOAD = ("\x1b]0;owned by a bot\x07" "\x1b]52;c;cHduZWQ=\x07" "\x1b[2J\x1b[H" "\x9b31m" "\u202eevil\u202c"
           "\x00\x7f the end")


@hookimpl
def choose(legal: list[str]) -> str:
    print(PAYLOAD, file=sys.stderr, flush=True)
    raise SystemExit(1)
