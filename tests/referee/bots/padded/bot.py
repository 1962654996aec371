"""Raw protocol speaker: plays legal[0], each reply padded with spaces (valid JSON) to exactly
LENGTH bytes before the newline: 65,536 (MAX_LINE) unless argv[1] says otherwise."""

import json
import os
import sys

LENGTH = int(sys.argv[1]) if len(sys.argv) > 1 else 64 * 1024


def write(data: bytes) -> None:
    while data:
        data = data[os.write(1, data):]


def send(message: dict, length: int | None = None) -> None:
    line = json.dumps(message).encode()
    if length is not None:
        line += b" " * (length - len(line))
    write(line + b"\n")


for raw in sys.stdin.buffer:
    message = json.loads(raw)
    kind = message["type"]
    if kind == "hello":
        send({"type": "hello", "name": "padded", "version": "1.0.0", "protocol": 1})
    elif kind == "decide":
        send({"type": "action", "id": message["id"], "action": message["legal"][0]}, LENGTH)
    elif kind == "bye":
        break
