"""Raw protocol speaker: plays legal[0], but answers its 3rd decision with a valid reply
padded to one 100,000-byte line, then plays on normally."""

import json
import os
import sys

NAME = "oversized-line"
BAD_DECISION = 3


def write(data: bytes) -> None:
    while data:
        data = data[os.write(1, data):]


def send(message: dict) -> None:
    write(json.dumps(message).encode() + b"\n")


decisions = 0
for raw in sys.stdin.buffer:
    message = json.loads(raw)
    kind = message["type"]
    if kind == "hello":
        send({"type": "hello", "name": NAME, "version": "1.0.0", "protocol": 1})
    elif kind == "match_start":
        decisions = 0
    elif kind == "decide":
        decisions += 1
        if decisions != BAD_DECISION:
            send({"type": "action", "id": message["id"], "action": message["legal"][0]})
            continue
        print(f"{NAME}: misbehaving on decision {decisions} (request {message['id']})", file=sys.stderr, flush=True)
        line = json.dumps({"type": "action", "id": message["id"], "action": message["legal"][0]}).encode()
        write(line + b" " * (100_000 - len(line)) + b"\n")
    elif kind == "bye":
        break
