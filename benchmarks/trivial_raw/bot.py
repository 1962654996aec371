"""A protocol speaker with no SDK and no JSON library: the cheapest possible bot.

It plays the first legal action, finding the request id and that action by position in
the referee's line (``"id"`` leads a ``decide`` request; the legal actions follow the
observation), so the benchmark's figures are the referee's cost, not a bot's.
"""

import os
import sys

HELLO = b'{"type":"hello","name":"trivial-raw","version":"1.0.0","protocol":1}\n'
for line in sys.stdin.buffer:
    if line.startswith(b'{"type":"decide","id":'):
        request = line[22 : line.index(b",", 22)]
        start = line.index(b'"legal":["') + 9
        action = line[start : line.index(b'"', start + 1) + 1]
        os.write(1, b'{"type":"action","id":%s,"action":%s}\n' % (request, action))
    elif line.startswith(b'{"type":"hello"'):
        os.write(1, HELLO)
    elif line.startswith(b'{"type":"bye"'):
        break
