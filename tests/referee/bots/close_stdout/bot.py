"""Raw protocol speaker: plays legal[0], but closes its stdout on its 3rd decision and keeps running."""

import json
import os
import sys
import time

NAME = "close-stdout"
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
        os.close(1)
        while True:
            time.sleep(3600)
    elif kind == "bye":
        break
