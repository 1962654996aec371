"""A raw protocol speaker (standard library only) whose first answer is one line of
100 MB: a well-formed action whose action text is 100 MB of "x"."""

import json
import os
import sys

MB = 1024 * 1024
SIZE_MB = 100


def send(message: dict[str, object]) -> None:
    os.write(1, json.dumps(message).encode() + b"\n")


def report(**fields: object) -> None:
    print("REPORT " + json.dumps(fields), file=sys.stderr, flush=True)


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        send({"type": "hello", "name": "stdout-flood", "version": "1.0.0", "protocol": 1})
    elif message["type"] == "decide":
        report(flooding_mb=SIZE_MB, finished=False)
        os.write(1, b'{"type":"action","id":%d,"action":"' % message["id"])
        chunk = b"x" * MB
        for _ in range(SIZE_MB):
            view = memoryview(chunk)
            while view:
                view = view[os.write(1, view):]
        os.write(1, b'"}\n')
        report(flooding_mb=SIZE_MB, finished=True)
    elif message["type"] == "bye":
        break
