"""A protocol speaker with no SDK: decodes only a request's id and legal actions."""

import os
import sys

import msgspec


class Message(msgspec.Struct):
    type: str
    id: int = 0
    legal: list[str] = []


decode = msgspec.json.Decoder(Message).decode
encode = msgspec.json.encode
for line in sys.stdin.buffer:
    message = decode(line)
    if message.type == "decide":
        os.write(1, b'{"type":"action","id":%d,"action":%s}\n' % (message.id, encode(message.legal[0])))
    elif message.type == "hello":
        os.write(1, b'{"type":"hello","name":"trivial-raw","version":"1.0.0","protocol":1}\n')
    elif message.type == "bye":
        break
