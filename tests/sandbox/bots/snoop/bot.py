"""On its first decision: tries to read files and list folders outside its own folder
(other bots' folders, /etc, /root, the referee's files) -- which ones comes from
``targets.json`` in the bot's folder: {"read": {label: path}, "list": {label: path}}.
Reports each outcome ("ok: <first bytes>" or the error), then keeps playing legally."""

import errno
import json
import os
import random
import sys

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(10)
attacked = False


def outcome(action) -> str:  # type: ignore[no-untyped-def]
    try:
        value = action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, f"{type(error).__name__}: {error}")
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"
    return f"ok: {value!r}"[:120]


def read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(40)


def attack() -> dict[str, object]:
    with open(os.path.join(HERE, "targets.json")) as handle:
        targets = json.load(handle)
    result: dict[str, object] = {"own_folder": outcome(lambda: sorted(os.listdir(HERE)))}
    for label, path in targets["read"].items():
        result[label] = outcome(lambda path=path: read(path))
    for label, path in targets["list"].items():
        result[label] = outcome(lambda path=path: sorted(os.listdir(path))[:12])
    return result


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(attack()), file=sys.stderr, flush=True)
    return rng.choice(legal)
