"""Raw protocol speaker: plays legal[0], but answers its 3rd decision with valid JSON of the
wrong shape (an unknown field)."""

import json
import os
import sys

NAME = "unknown-field"
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
        send({"type": "action", "id": message["id"], "action": message["legal"][0], "comment": "hi"})
    elif kind == "bye":
        break
