"""Dies while the bot host imports it, before it can answer the referee's hello."""

import sys

print("crash-at-start: about to raise", file=sys.stderr, flush=True)
raise RuntimeError("crash-at-start: boom before hello")
