"""A scripted protocol peer in the style of python-chess's mock engine.

Raw protocol speaker (standard library only).  argv[1] names a JSON script: a list of
steps, each ``{"expect": PATTERN, "reply": [MESSAGE, ...], "repeat": bool}``.  Every line
the referee sends must match the current step's PATTERN; then the step's replies are
sent.  A ``repeat`` step matches ``min`` (default 1) or more messages in a row.  When the script is done
the bot exits 0; a line that does not match (or input ending early) is written to stderr
as ``SCRIPT FAIL: ...`` and the bot exits 7 (the referee sees a crash).

Patterns: a dict matches a JSON object with exactly its keys (a ``"..."`` key allows
others); ``"<int>"``, ``"<str>"``, ``"<bool>"``, ``"<number>"``, ``"<dict>"``, ``"<list>"``,
``"<any>"``, ``"<list[str]>"``, ``"<list[int]>"``, ``"<list[number]>"``,
``"<list[event]>"`` (objects with a string ``event``) match by type; anything else must
be equal (``true`` is not ``1``).  In replies, ``"$id"`` becomes the message's ``id`` and
``"$legal[0]"`` its first legal action.

Beyond the patterns the bot checks what no single line shows: ``decide`` ids strictly
increase within a match, every ``legal`` is non-empty, the last event of ``match_end`` is the outcome.
At each ``match_end`` it writes ``MATCH OK {summary}`` to stderr (that match's decide ids,
first ``time_left_ms``, number of events seen) for the test to compare with the match record.
"""

import json
import os
import sys

TYPES = {
    "<int>": lambda v: type(v) is int,
    "<str>": lambda v: type(v) is str,
    "<bool>": lambda v: type(v) is bool,
    "<number>": lambda v: type(v) in (int, float),
    "<dict>": lambda v: type(v) is dict,
    "<list>": lambda v: type(v) is list,
    "<any>": lambda v: True,
    "<list[str]>": lambda v: type(v) is list and all(type(x) is str for x in v),
    "<list[int]>": lambda v: type(v) is list and all(type(x) is int for x in v),
    "<list[number]>": lambda v: type(v) is list and all(type(x) in (int, float) for x in v),
    "<list[event]>": lambda v: type(v) is list
    and all(type(x) is dict and type(x.get("event")) is str for x in v),
}


def fail(reason: str) -> None:
    sys.stderr.write(f"SCRIPT FAIL: {reason}\n")
    sys.stderr.flush()
    os._exit(7)


def mismatch(pattern, value, path="$"):
    """None if ``value`` matches ``pattern``, else where and why not."""
    if isinstance(pattern, str) and pattern in TYPES:
        return None if TYPES[pattern](value) else f"{path}: {value!r} is not {pattern}"
    if isinstance(pattern, dict):
        if type(value) is not dict:
            return f"{path}: {value!r} is not an object"
        keys = set(pattern) - {"..."}
        if "..." not in pattern and set(value) != keys:
            return f"{path}: keys {sorted(value)} are not exactly {sorted(keys)}"
        missing = keys - set(value)
        if missing:
            return f"{path}: missing {sorted(missing)}"
        for key in sorted(keys):
            why = mismatch(pattern[key], value[key], f"{path}.{key}")
            if why:
                return why
        return None
    if isinstance(pattern, list):
        if type(value) is not list or len(value) != len(pattern):
            return f"{path}: {value!r} is not a list of {len(pattern)}"
        for i, (p, v) in enumerate(zip(pattern, value)):
            why = mismatch(p, v, f"{path}[{i}]")
            if why:
                return why
        return None
    if type(pattern) is not type(value) or pattern != value:
        return f"{path}: {value!r} is not {pattern!r}"
    return None


def fill(template, message):
    if template == "$id":
        return message["id"]
    if template == "$legal[0]":
        return message["legal"][0]
    if isinstance(template, dict):
        return {k: fill(v, message) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, message) for v in template]
    return template


def write(data: bytes) -> None:
    while data:
        data = data[os.write(1, data):]


def main() -> None:
    script_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "script.json")
    with open(script_path, encoding="utf-8") as file:
        script = json.load(file)
    step = 0
    matched = 0  # messages the current (repeat) step has matched
    ids: list[int] = []
    first_time_left = None
    events_seen = 0
    for number, raw in enumerate(sys.stdin.buffer, 1):
        if not raw.endswith(b"\n"):
            fail(f"message {number} does not end in a newline: {raw[:200]!r}")
        try:
            message = json.loads(raw)
        except ValueError as error:
            fail(f"message {number} is not JSON ({error}): {raw[:200]!r}")
        while True:
            if step >= len(script):
                fail(f"message {number} after the end of the script: {raw[:300]!r}")
            current = script[step]
            why = mismatch(current["expect"], message)
            if why and current.get("repeat") and matched >= current.get("min", 1):
                step, matched = step + 1, 0  # the repeat is over: try the next step
                continue
            if why:
                fail(f"message {number} does not match step {step + 1}: {why}; got {raw[:300]!r}")
            break
        kind = message.get("type")
        if kind == "match_start":
            ids, first_time_left, events_seen = [], None, 0
        if kind == "decide":
            if ids and message["id"] <= ids[-1]:
                fail(f"decide id {message['id']} after {ids[-1]}: ids must increase")
            if not message["legal"]:
                fail(f"decide {message['id']} has no legal actions")
            if first_time_left is None:
                first_time_left = message["time_left_ms"]
            ids.append(message["id"])
        if isinstance(message.get("events"), list):
            events_seen += len(message["events"])
        for reply in current.get("reply", []):
            write(json.dumps(fill(reply, message)).encode() + b"\n")
        if kind == "match_end":
            last = message["events"][-1] if message["events"] else {}
            if last.get("event") != "match_end" or last.get("placements") != message["outcome"]["placements"]:
                fail(f"the last event of match_end is not the outcome: {last!r}")
            summary = {"ids": ids, "first_time_left_ms": first_time_left, "events": events_seen}
            sys.stderr.write(f"MATCH OK {json.dumps(summary)}\n")
            sys.stderr.flush()
        if current.get("repeat"):
            matched += 1
        else:
            step += 1
        if step >= len(script):
            sys.exit(0)
    fail(f"input ended at step {step + 1} of {len(script)}")


main()
