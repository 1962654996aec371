"""A raw protocol speaker that forgets the newline after its first reply (as a C bot that
forgets it, or forgets to flush, would): the referee never sees a whole line and waits."""

import json
import os
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.write(1, b'{"type":"hello","name":"no-newline","version":"1.0.0","protocol":1}\n')
    elif message["type"] == "decide":
        os.write(1, json.dumps({"type": "action", "id": message["id"], "action": message["legal"][0]}).encode())
    elif message["type"] == "bye":
        break
