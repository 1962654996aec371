"""On its first decision: asks for 4 GiB in one allocation (a bytearray, which Python
fills, so it would really be resident), then maps 64 MiB blocks of anonymous memory
towards 4 GiB (reserved, not written: the address-space limit is what stops them; the
memory-team bot tests resident memory).  Reports how far it got, frees everything and
keeps playing legally."""

import json
import mmap
import random
import sys

from arena.sdk import hookimpl

MB = 1024 * 1024
GOAL = 4096 * MB
CHUNK = 64 * MB
rng = random.Random(4)
attacked = False


def attack() -> dict[str, object]:
    result: dict[str, object] = {}
    try:
        block = bytearray(GOAL)
        result["one_4gib_block"] = f"ok: {len(block) // MB} MiB"
        del block
    except MemoryError:
        result["one_4gib_block"] = "MemoryError"
    held: list[mmap.mmap] = []
    try:
        while len(held) * CHUNK < GOAL:
            held.append(mmap.mmap(-1, CHUNK))
        result["grow"] = "ok"
    except (MemoryError, OSError) as error:
        result["grow"] = type(error).__name__ + (f" errno {error.errno}" if isinstance(error, OSError) else "")
    result["grown_mb"] = len(held) * CHUNK // MB
    for block in held:
        block.close()
    return result


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(attack()), file=sys.stderr, flush=True)
    return rng.choice(legal)
