"""On its first decision: reads one byte of every page of ``data.bin`` in its own folder,
bringing the file into the page cache.  A process generation that chose which pages to
read could leave the next generation of the same deal a message there (the next one times
its own reads: a cached page answers in about a microsecond, a cold one in a hundred)."""

import json
import os
import random
import sys
from pathlib import Path

from arena.sdk import hookimpl

PAGE = 4096
rng = random.Random(5)
done = False


def read_every_page() -> int:
    fd = os.open(Path(__file__).with_name("data.bin"), os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        return sum(len(os.pread(fd, 1, offset)) for offset in range(0, size, PAGE))
    finally:
        os.close(fd)


@hookimpl
def choose(legal: list[str]) -> str:
    global done
    if not done:
        done = True
        print("REPORT " + json.dumps({"pages_read": read_every_page()}), file=sys.stderr, flush=True)
    return rng.choice(legal)
