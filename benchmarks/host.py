"""The host's door under load: how fast its API answers while many authors submit at once,
and how long one upload takes to be accepted.

A real ``arena host`` (its own process, on a free loopback port) over a temporary database,
with accounts made by the real ledger:

* **latency under load**: N authors (20), each in a thread of its own with its own
  connection, ask ``GET /api/me``, upload one bot archive at the same moment as the
  others (``POST /api/submissions``, a barrier), follow it with ``GET
  /api/submissions/N`` every 0.5 s until it is decided (the queue validates one at a
  time, in the sandbox, so the last author follows for the whole run), then ask ``GET
  /api/me`` again.  Every request's latency is recorded by endpoint: count, median,
  quartiles and 95th percentile, per endpoint and overall.  Each author's first request
  pays the token's scrypt check (tens of ms of CPU, the point of it; all N at once here),
  so it has a row of its own; the host then remembers the token for a minute.  The
  validations' sandboxed smoke matches share the machine with the door, as they do on a
  real host.
* **upload to accepted**: on the same host once its queue is empty, one author uploads
  one bot at a time and follows it every 0.1 s: the seconds from the upload's first byte
  to the answer that says ``accepted`` (validation included: unpacking, the name checks,
  two smoke matches of scat in the sandbox), the median of ``--repeats``.

The bots are copies of the bundled ``random`` claiming scat alone (as the host's tests
submit them).

    python benchmarks/host.py [--authors 20] [--repeats 3] [--quick]

Target: the 95th percentile of every request's latency under load stays under 200 ms.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402
from tabulate import tabulate  # noqa: E402

from arena.botspec import BOTS_DIR  # noqa: E402
from arena.host.archive import pack  # noqa: E402
from arena.host.ledger import Ledger  # noqa: E402
from arena.tournament.store import Store  # noqa: E402

TARGET_P95_MS: Final = 200.0
POLL_S: Final = 0.5
"""How often an author under load asks how its submission is doing."""
IDLE_POLL_S: Final = 0.1
"""How often the lone author asks: fine enough to time a validation of seconds."""
FINAL_S: Final = 1800.0
"""The longest a submission may take to be decided before the benchmark gives up."""

FIRST, SUBMIT, FOLLOW, ME = ("GET /api/me, first (the token's scrypt)", "POST /api/submissions",
                             "GET /api/submissions/N", "GET /api/me, at the end")
ENDPOINTS: Final = (FIRST, SUBMIT, FOLLOW, ME)


@dataclass
class Host:
    """A running ``arena host`` and where its messages go."""

    url: str
    process: subprocess.Popen[str]
    log: Path

    def stop(self) -> None:
        """Stop it as Ctrl+C would (killed if it does not stop)."""
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextmanager
def running_host(db: Path) -> Iterator[Host]:
    """``arena host --port 0`` over ``db``, with the daily limits lifted: every author of
    the benchmark sends from this machine's one address."""
    log = db.parent / "host.log"
    with log.open("w") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "host", "--db", str(db), "--port", "0", "--per-address-day", "100000",
             "--per-account-day", "100000"],
            stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://\S+", line)
    if found is None:
        process.kill()
        process.wait()
        raise SystemExit(f"arena host did not start: {line}{log.read_text()[-3000:]}")
    host = Host(found.group().rstrip("/"), process, log)
    try:
        yield host
    finally:
        host.stop()


def bot_archive(parent: Path, name: str) -> bytes:
    """A copy of the bundled random bot named ``name``, claiming scat alone, packed."""
    folder = parent / name
    folder.mkdir(parents=True)
    shutil.copy(BOTS_DIR / "random" / "bot.py", folder / "bot.py")
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1.0.0"\nauthor = "benchmark"\ndescription = "a benchmark entry"\n'
        'variants = ["scat"]\nentry = "bot.py"\n', encoding="utf-8")
    return pack(folder)


@dataclass
class Timings:
    """Every request's latency (seconds) by endpoint, and the answers that were not 2xx."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    failures: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def timed(self, endpoint: str, client: httpx.Client, method: str, url: str, **kwargs: Any) -> httpx.Response:
        start = time.perf_counter()
        answer = client.request(method, url, **kwargs)
        took = time.perf_counter() - start
        with self.lock:
            self.latencies[endpoint].append(took)
            if not answer.is_success:
                self.failures[endpoint].append(f"{answer.status_code} {answer.text[:200]}")
        return answer


def author(url: str, token: str, archive: bytes, timings: Timings, barrier: threading.Barrier,
           outcomes: list[str]) -> None:
    """One author: who am I, upload at the others' moment, follow to the end, who am I."""
    with httpx.Client(base_url=url, headers={"authorization": f"Bearer {token}"}, timeout=120) as client:
        timings.timed(FIRST, client, "GET", "/api/me")
        barrier.wait()
        answer = timings.timed(SUBMIT, client, "POST", "/api/submissions", content=archive,
                               headers={"content-type": "application/octet-stream"})
        if answer.status_code != 202:
            outcomes.append(f"upload refused: {answer.status_code}")
            return
        number = answer.json()["id"]
        deadline = time.monotonic() + FINAL_S
        state: dict[str, Any] = {}
        while not state.get("final") and time.monotonic() < deadline:
            time.sleep(POLL_S)
            state = timings.timed(FOLLOW, client, "GET", f"/api/submissions/{number}").json()
        timings.timed(ME, client, "GET", "/api/me")
        outcomes.append(str(state.get("status", "not decided")))


def under_load(url: str, tokens: Sequence[str], archives: Sequence[bytes]) -> tuple[Timings, list[str], float]:
    """(the timings, each author's outcome, the seconds until every submission was decided)."""
    timings, outcomes = Timings(), list[str]()
    barrier = threading.Barrier(len(tokens))
    threads = [threading.Thread(target=author, args=(url, t, a, timings, barrier, outcomes))
               for t, a in zip(tokens, archives)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return timings, outcomes, time.perf_counter() - start


def upload_to_accepted(url: str, token: str, archive: bytes) -> tuple[float, str]:
    """(seconds from the upload to the answer saying it is decided, its status)."""
    with httpx.Client(base_url=url, headers={"authorization": f"Bearer {token}"}, timeout=120) as client:
        client.get("/api/me")  # the token's scrypt check, outside the measurement
        start = time.perf_counter()
        answer = client.post("/api/submissions", content=archive, headers={"content-type": "application/octet-stream"})
        if answer.status_code != 202:
            return time.perf_counter() - start, f"upload refused: {answer.status_code}"
        number = answer.json()["id"]
        deadline = time.monotonic() + FINAL_S
        while time.monotonic() < deadline:
            state = client.get(f"/api/submissions/{number}").json()
            if state.get("final"):
                return time.perf_counter() - start, str(state["status"])
            time.sleep(IDLE_POLL_S)
        return time.perf_counter() - start, "not decided"


def summary(name: str, values: Sequence[float]) -> list[str]:
    """A table row: count, median, quartiles, p95 and max, in ms."""
    ms = sorted(v * 1000 for v in values)
    if len(ms) < 2:
        return [name, str(len(ms)), *([f"{ms[0]:.1f}"] * 5 if ms else ["-"] * 5)]
    q1, _, q3 = statistics.quantiles(ms, n=4, method="inclusive")
    p95 = statistics.quantiles(ms, n=100, method="inclusive")[94]
    return [name, str(len(ms)), f"{statistics.median(ms):.1f}", f"{q1:.1f}-{q3:.1f}", f"{p95:.1f}", f"{ms[-1]:.1f}"]


def p95(values: Sequence[float]) -> float:
    """The 95th percentile, in ms."""
    ms = [v * 1000 for v in values]
    return statistics.quantiles(ms, n=100, method="inclusive")[94] if len(ms) > 1 else ms[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--authors", type=int, default=None, help="authors submitting at once (default 20)")
    parser.add_argument("--repeats", type=int, default=None, help="lone uploads timed on the idle host (default 3)")
    parser.add_argument("--quick", action="store_true", help="5 authors and 1 lone upload: a check that it runs")
    args = parser.parse_args()
    authors = args.authors or (5 if args.quick else 20)
    repeats = args.repeats or (1 if args.quick else 3)
    if authors < 1 or repeats < 1:
        parser.error("--authors and --repeats are at least 1")

    with tempfile.TemporaryDirectory(prefix="arena-bench-host-") as name:
        folder = Path(name)
        os.chmod(folder, 0o755)  # bots run as other users: they must reach the registry beside the database
        db = folder / "arena.db"
        Store(db).close()
        with Ledger(db) as ledger:
            tokens = [ledger.add_account(f"author-{i:02d}", actor="benchmark")[1] for i in range(authors)]
            lone = ledger.add_account("lone-author", actor="benchmark")[1]
        archives = [bot_archive(folder / "bots", f"entry-{i:02d}") for i in range(authors)]
        solo = [bot_archive(folder / "bots", f"solo-{i:02d}") for i in range(repeats)]
        with running_host(db) as host:
            timings, outcomes, wall = under_load(host.url, tokens, archives)
            alone = [upload_to_accepted(host.url, lone, archive) for archive in solo]
            log = host.log.read_text(errors="replace")

    every = [v for values in timings.latencies.values() for v in values]
    rows = [summary(endpoint, timings.latencies[endpoint]) for endpoint in ENDPOINTS]
    rows.append(summary("every request", every))
    accepted = outcomes.count("accepted")
    print(f"arena host under load: {authors} authors upload at once, then follow every {POLL_S:g} s; "
          f"{accepted} of {authors} accepted, all decided in {wall:.1f} s "
          f"({authors / wall * 60:.1f} validations a minute, one at a time); latency in ms")
    print(tabulate(rows, headers=["endpoint", "requests", "median", "quartiles", "p95", "max"], tablefmt="github"))
    for endpoint, failed in timings.failures.items():
        if failed:
            print(f"{endpoint}: {len(failed)} answers not 2xx, e.g. {failed[0]}")
    seconds = [s for s, _ in alone]
    states = [status for _, status in alone]
    print(f"\nupload to accepted on the idle host (polled every {IDLE_POLL_S:g} s): median "
          f"{statistics.median(seconds):.2f} s of {repeats} (runs: {' '.join(f'{s:.2f}' for s in seconds)}; "
          f"{', '.join(states)})")

    checks = [
        (f"p95 of every request under load < {TARGET_P95_MS:g} ms", p95(every) < TARGET_P95_MS, f"{p95(every):.1f} ms"),
        (f"every upload under load accepted ({authors})", accepted == authors, f"{accepted}"),
        (f"every lone upload accepted ({repeats})", states.count("accepted") == repeats,
         f"{states.count('accepted')}"),
    ]
    over = [f"{e} ({p95(timings.latencies[e]):.0f} ms)" for e in ENDPOINTS
            if timings.latencies[e] and p95(timings.latencies[e]) >= TARGET_P95_MS]
    if over:
        print(f"requests whose own p95 is over {TARGET_P95_MS:g} ms: {', '.join(over)}")
    missed = 0
    for what, met, shown in checks:
        missed += not met
        print(f"{what}: {shown} ({'MET' if met else 'NOT MET'})")
    if accepted != authors or states.count("accepted") != repeats:
        print(f"\nthe host's log ends:\n{log[-3000:]}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
