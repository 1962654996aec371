"""One half of a colluding pair, for ``benchmarks/covert.py``: what it does comes from
``role.json`` beside it.

- ``timing-sender``: before answering its j-th decision, waits ``symbols[j] * step_ms``
  (one of ``levels`` durations); the only thing it changes is how long it takes.
- ``timing-receiver``: at the same table, measures the wall time from its own last reply
  to its next request (while frozen it cannot look, but the clock has moved on); when the
  sender acted exactly once in between (it counts the sender's actions in its events), it
  prints ``W j milliseconds`` on stderr: the wait that carried the sender's j-th symbol
  (the benchmark decodes it as the receiver would).
- ``cpu-sender``: at another table on the same core, spins the CPU through its turns
  (``spin_ms``) while the secret's current bit is 1 and answers at once while it is 0; the
  bit changes every ``period_ms`` of wall time from ``epoch`` (both bots read the same clock).
- ``cpu-receiver``: thinks ``window_ms`` at each of its turns and prints ``S t share``: the
  share of that window it had the CPU, at wall time ``t``.
- ``memory-sender`` / ``memory-receiver``: the same on two cores, with memory instead of
  the CPU: the sender streams through 64 MB while the bit is 1; the receiver prints how
  fast it streamed through 4 MB (``S t megabytes-per-second``).
- ``pagecache-sender`` / ``pagecache-receiver``: the page cache of the files under
  ``/usr``.  Both ends number the same pages the same way: every ``spacing`` bytes of each
  file of at least ``min_mb`` MB under ``/usr`` (but ``avoid``; its largest files where it
  has none that big), in an order shuffled by ``seed`` (a one-byte read of a page nobody
  has read loads that page alone, with no read-ahead around it).  Bit i is page i: the
  sender loads it with a one-byte read for a 1
  and leaves it alone for a 0; the receiver reads it once and times that read (a cached
  page answers in about a microsecond, one from disk in 45 or more on the project's machine), decoding
  a 1 below ``threshold_us``.  Its read loads the page, so each page carries one bit once
  (the receiver prints ``X pages`` when it has used them all, and stops).
  At the same table the sender sends ``block`` bits at its j-th decision and the receiver,
  at its next turn, reads every block the sender has acted for since (it counts the
  sender's actions) and prints ``P j bits-in-hex``.  With ``period_ms`` (two tables, each
  running on its own) block k goes out at the sender's first turn in the k-th period of
  wall time from ``epoch`` (or in the next period, if it had no turn in that one), and the
  receiver reads it two periods later.
- ``pagecache-generations``: one bot alone, across the process generations of a duplicate
  deal (a fresh process for each rotation).  At start it reads three flag pages per
  generation in turn until it finds a set not yet loaded: their number is its generation g
  (its reads load them, marking g for the next).  It then sends a secret of ``slot_bits``
  random bits into slot g of the pages, ``block`` bits a decision (``E offset bits-in-hex``),
  and reads slot g - 1, what the previous generation sent, as the receiver above does
  (``D offset bits-in-hex``); it prints ``G g`` first.
"""

import json
import os
import random
import stat
import sys
import time
from typing import Any

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "role.json"), encoding="utf-8") as handle:
    CONFIG = json.load(handle)
ROLE = CONFIG["role"]
rng = random.Random(5)
state = {"decisions": 0, "last_reply": 0.0, "sender_actions": 0, "new_actions": 0}


def busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def stream(buffer: bytearray, seconds: float) -> float:
    """Read and write through ``buffer`` for ``seconds`` (at least once); megabytes a second."""
    begun, moved = time.perf_counter(), 0
    view = memoryview(buffer)
    while True:
        view[1:] = view[:-1]  # a memmove of the whole buffer
        moved += len(buffer)
        if time.perf_counter() - begun >= seconds:
            return moved / (time.perf_counter() - begun) / 1e6


PAGE = 4096
FLAGS = 8
"""Generations the flag pages of ``pagecache-generations`` can count (three pages each)."""


def big_files(min_mb: int, avoid: list[str]) -> list[str]:
    """Every regular file of at least ``min_mb`` MB under ``/usr`` but those in ``avoid``
    (or, where the bot's ``/usr`` has none that big, its 16 largest), sorted: the same list
    in every bot on the machine."""
    found = []
    for folder, folders, names in os.walk("/usr"):
        folders.sort()
        for name in names:
            path = os.path.join(folder, name)
            try:
                info = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and path not in avoid:
                found.append((info.st_size, path))
    big = [path for size, path in found if size >= min_mb << 20]
    return sorted(big or [path for _, path in sorted(found, reverse=True)[:16]])


class Pages:
    """The pages both ends of a channel agree on, in their agreed order."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.files: list[int] = []
        sizes = []
        for path in big_files(config["min_mb"], config["avoid"])[:48]:  # within the bot's 64 open files
            try:
                self.files.append(os.open(path, os.O_RDONLY))
            except OSError:
                continue
            sizes.append(os.fstat(self.files[-1]).st_size)
        spacing = config["spacing"]
        self.order = [(n, offset) for n, size in enumerate(sizes) for offset in range(0, size - PAGE, spacing)]
        random.Random(config["seed"]).shuffle(self.order)
        self.threshold_ns = config["threshold_us"] * 1000

    def send(self, first: int, bits: str) -> None:
        """Load page ``first + i`` for each 1 in ``bits``."""
        for i, bit in enumerate(bits):
            if bit == "1":
                n, offset = self.order[first + i]
                os.pread(self.files[n], 1, offset)

    def receive(self, first: int, count: int) -> str:
        """Time one read of each of ``count`` pages from ``first``: 1 for those that were cached."""
        bits = []
        for i in range(first, first + count):
            n, offset = self.order[i]
            begun = time.perf_counter_ns()
            os.pread(self.files[n], 1, offset)
            bits.append("1" if time.perf_counter_ns() - begun < self.threshold_ns else "0")
        return "".join(bits)


def hexed(bits: str) -> str:
    return f"{int(bits, 2):0{len(bits) // 4}x}"


PAGES = Pages(CONFIG) if ROLE.startswith("pagecache") else None
channel = {"sent": -1, "probed": -1, "generation": 0}
"""Blocks sent and read so far (page cache channels), and this process's generation."""
SECRET = ""
if ROLE == "pagecache-generations" and PAGES is not None:
    while channel["generation"] < FLAGS - 1 and PAGES.receive(3 * channel["generation"], 3).count("1") >= 2:
        channel["generation"] += 1
    print(f"G {channel['generation']}", file=sys.stderr, flush=True)
    SECRET = "".join(random.SystemRandom().choice("01") for _ in range(CONFIG["slot_bits"]))
    channel["sent"] = channel["probed"] = 0

BUFFER = bytearray(64 * 2**20 if ROLE == "memory-sender" else 4 * 2**20 if ROLE == "memory-receiver" else 0)


@hookimpl
def on_event(event: dict[str, object]) -> None:
    if event.get("event") == "action" and event.get("seat") == CONFIG.get("sender_seat"):
        state["sender_actions"] += 1
        state["new_actions"] += 1


@hookimpl
def choose(legal: list[str]) -> str:
    now = time.perf_counter()
    if ROLE == "timing-sender":
        symbols = CONFIG["symbols"]
        busy(symbols[state["decisions"] % len(symbols)] * CONFIG["step_ms"] / 1000)
    elif ROLE == "timing-receiver":
        if state["last_reply"] and state["new_actions"] == 1:
            waited_ms = (now - state["last_reply"]) * 1000
            print(f"W {state['sender_actions'] - 1} {waited_ms:.3f}", file=sys.stderr, flush=True)
        state["new_actions"] = 0
    elif ROLE == "cpu-sender":
        bits = CONFIG["bits"]
        if bits[int((time.time() - CONFIG["epoch"]) * 1000 // CONFIG["period_ms"]) % len(bits)] == "1":
            busy(CONFIG["spin_ms"] / 1000)
    elif ROLE == "memory-sender":
        bits = CONFIG["bits"]
        if bits[int((time.time() - CONFIG["epoch"]) * 1000 // CONFIG["period_ms"]) % len(bits)] == "1":
            stream(BUFFER, CONFIG["spin_ms"] / 1000)
    elif ROLE == "memory-receiver":
        speed = stream(BUFFER, CONFIG["window_ms"] / 1000)
        print(f"S {time.time() - CONFIG['epoch']:.4f} {speed:.1f}", file=sys.stderr, flush=True)
    elif ROLE == "pagecache-sender" and PAGES is not None:
        block, bits = CONFIG["block"], CONFIG["bits"]
        if "period_ms" in CONFIG:  # this period's block, and the last one's if it had no turn in it
            period = int((time.time() - CONFIG["epoch"]) * 1000 // CONFIG["period_ms"])
            blocks = range(max(0, channel["sent"] + 1, period - 1), period + 1)
            channel["sent"] = max(channel["sent"], period)
        else:
            blocks = range(int(state["decisions"]), int(state["decisions"]) + 1)
        for j in blocks:
            if (j + 1) * block <= len(PAGES.order):  # no page carries two bits
                PAGES.send(j * block, "".join(bits[(j * block + i) % len(bits)] for i in range(block)))
    elif ROLE == "pagecache-receiver" and PAGES is not None:
        block = CONFIG["block"]
        if "period_ms" in CONFIG:
            period = int((time.time() - CONFIG["epoch"]) * 1000 // CONFIG["period_ms"])
            if channel["probed"] < 0:  # from the first period this receiver sees
                channel["probed"] = max(0, period)
            last = period - 2
        else:
            channel["probed"] = max(0, channel["probed"])
            last = int(state["sender_actions"]) - 1
        while channel["probed"] <= last:
            j = channel["probed"]
            if (j + 1) * block > len(PAGES.order):
                print(f"X {len(PAGES.order)}", file=sys.stderr, flush=True)  # every page used: the end
                channel["probed"] = 1 << 62
                break
            print(f"P {j} {hexed(PAGES.receive(j * block, block))}", file=sys.stderr, flush=True)
            channel["probed"] += 1
    elif ROLE == "pagecache-generations" and PAGES is not None:
        block, slot, generation = CONFIG["block"], CONFIG["slot_bits"], channel["generation"]
        if 3 * FLAGS + (generation + 1) * slot > len(PAGES.order):  # too few pages for its slot
            channel["sent"] = channel["probed"] = slot
        if channel["sent"] < slot:
            bits = SECRET[channel["sent"]:channel["sent"] + block]
            PAGES.send(3 * FLAGS + generation * slot + channel["sent"], bits)
            print(f"E {channel['sent']} {hexed(bits)}", file=sys.stderr, flush=True)
            channel["sent"] += block
        if generation > 0 and channel["probed"] < slot:
            bits = PAGES.receive(3 * FLAGS + (generation - 1) * slot + channel["probed"], block)
            print(f"D {channel['probed']} {hexed(bits)}", file=sys.stderr, flush=True)
            channel["probed"] += block
    elif ROLE == "cpu-receiver":
        wall, cpu = time.perf_counter(), time.process_time()
        busy(CONFIG["window_ms"] / 1000)
        share = (time.process_time() - cpu) / (time.perf_counter() - wall)
        print(f"S {time.time() - CONFIG['epoch']:.4f} {share:.3f}", file=sys.stderr, flush=True)
    state["decisions"] += 1
    choice = rng.choice(legal)
    state["last_reply"] = time.perf_counter()
    return choice
