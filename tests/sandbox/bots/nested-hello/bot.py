"""A raw protocol speaker whose hello carries, before its type, an unknown field holding
arrays nested 5,000 deep: skipping that value recursed past Python's limit in the
referee's decoder, and the RecursionError escaped it (``arena match``, the tournament
worker and ``arena submit`` all died, and every resume died again)."""

import os
import sys

DEPTH = 5000
for line in sys.stdin:
    if '"hello"' in line:
        os.write(1, b'{"x":' + b"[" * DEPTH + b"]" * DEPTH + b',"type":"hello","name":"nested-hello",'
                 b'"version":"1.0.0","protocol":1}\n')
    elif '"bye"' in line:
        break
