"""A raw protocol speaker (standard library only) that closes its stdout when asked for
its first decision, then stays alive (sleeping) without ever answering."""

import json
import os
import sys
import time


def send(message: dict[str, object]) -> None:
    os.write(1, json.dumps(message).encode() + b"\n")


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        send({"type": "hello", "name": "close-stdout", "version": "1.0.0", "protocol": 1})
    elif message["type"] == "decide":
        sys.stdout = None  # type: ignore[assignment]
        os.close(1)
        print("REPORT " + json.dumps({"closed_stdout": True}), file=sys.stderr, flush=True)
        while True:
            time.sleep(60)
    elif message["type"] == "bye":
        break
