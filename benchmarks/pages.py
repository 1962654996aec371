"""Pages while a tournament plays, and the static report: does every page answer within
300 ms (p95) and the live status within 100 ms while a tournament plays on every core?

One temporary database: the demo tournament (``tournaments/demo.toml``) is played into it
first, so that the pages have something to show; then ``arena serve`` runs over it.  In
``--rounds`` paired rounds:

* **idle**: a visitor requests the overview, the demo's ranking, one variant's ranking, a
  bot's page, the match list, a match's page and the live status in turn, one at a time,
  for ``--seconds``;
* **loaded**: the same while ``arena run`` plays another tournament (the demo's entrants
  and variants, one worker per core) into the same database, stopped (Ctrl+C, as a person
  would) at the end of the phase.

Reported per page: the median, quartiles and 95th percentile of its answers, idle and
loaded; per round, loaded p95 over idle p95 for the pages together.  Then ``arena report``
of the database: its seconds and pages, and whether any page names the database's folder
(no page may show where things lie on the operator's machine).

    python benchmarks/pages.py [--rounds 3] [--seconds 20]

Targets (issue "fast when it counts"): every page p95 under 300 ms and the status under
100 ms while loaded.  Measure with nothing else running.
"""

from __future__ import annotations

import argparse
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402
from tabulate import tabulate  # noqa: E402

from arena.tournament.store import Store  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena.cli"]
STATUS = "/api/status.json"


def pages(db: Path) -> list[str]:
    """The pages a visitor opens, one of each kind."""
    with Store(db) as store:
        match = next(iter(store.matches("demo"))).id
    return ["/", "/t/demo/", "/t/demo/v/scat/", "/b/heuristic/", "/matches/", f"/m/{match}/", STATUS]


def serve(db: Path) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen([*ARENA, "serve", "--db", str(db), "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, cwd=REPO)
    assert server.stdout is not None
    line = server.stdout.readline()
    found = re.search(r"http://\S+", line)
    if found is None:
        server.kill()
        raise SystemExit(f"arena serve did not start: {line}")
    return server, found.group().rstrip("/")


def visit(url: str, paths: list[str], seconds: float) -> dict[str, list[float]]:
    """Each path in turn, one request at a time, for ``seconds``: its answers' times (s)."""
    times: dict[str, list[float]] = {path: [] for path in paths}
    end = time.monotonic() + seconds
    with httpx.Client(base_url=url, timeout=60) as client:
        while time.monotonic() < end:
            for path in paths:
                begun = time.perf_counter()
                answer = client.get(path)
                times[path].append(time.perf_counter() - begun)
                if answer.status_code != 200:
                    raise SystemExit(f"{path}: {answer.status_code}")
    return times


def load_file(folder: Path, name: str) -> Path:
    """The demo's entrants and variants (one worker per core, its default), deals enough to
    outlast a phase."""
    text = (REPO / "tournaments" / "demo.toml").read_text(encoding="utf-8")
    text = text.replace('name = "demo"', f'name = "{name}"', 1).replace("deals = 2 ", "deals = 200 ", 1)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def spread(values: list[float]) -> str:
    """Median (quartiles) and p95, in ms."""
    if len(values) < 2:
        return f"{1000 * values[0]:.0f}"
    q = statistics.quantiles(values, n=4, method="inclusive")
    return f"{1000 * statistics.median(values):.0f} ({1000 * q[0]:.0f}-{1000 * q[2]:.0f}), p95 {1000 * p95(values):.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="pairs of phases (idle, loaded)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-pages-bench-") as name:
        folder = Path(name)
        db = folder / "arena.db"
        began = time.perf_counter()
        subprocess.run([*ARENA, "run", str(REPO / "tournaments" / "demo.toml"), "--db", str(db), "-q"], check=True,
                       cwd=REPO, stdout=subprocess.DEVNULL)
        print(f"demo played in {time.perf_counter() - began:.0f} s", flush=True)
        paths = pages(db)
        server, url = serve(db)
        idle: dict[str, list[float]] = {p: [] for p in paths}
        loaded: dict[str, list[float]] = {p: [] for p in paths}
        ratios = []
        try:
            for round_ in range(args.rounds):
                quiet = visit(url, paths, args.seconds)
                run = subprocess.Popen([*ARENA, "run", str(load_file(folder, f"load-{round_}")), "--db", str(db), "-q"],
                                       cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    time.sleep(3)  # its workers started and playing
                    busy = visit(url, paths, args.seconds)
                finally:
                    run.send_signal(signal.SIGINT)
                    run.wait(timeout=120)
                for path in paths:
                    idle[path] += quiet[path]
                    loaded[path] += busy[path]
                ratios.append(p95([t for v in busy.values() for t in v]) / p95([t for v in quiet.values() for t in v]))
                print(f"round {round_ + 1}: loaded p95 / idle p95 {ratios[-1]:.2f}", flush=True)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)
        rows = [[path, spread(idle[path]), spread(loaded[path]), len(loaded[path])] for path in paths]
        print(tabulate(rows, headers=["page", "idle ms: median (quartiles), p95", "loaded", "loaded views"]))
        worst = max(p95(loaded[p]) for p in paths if p != STATUS)
        print(f"pages: loaded p95 at most {1000 * worst:.0f} ms ({'MET' if worst < 0.3 else 'NOT MET'}: under 300 ms);"
              f" status p95 {1000 * p95(loaded[STATUS]):.0f} ms"
              f" ({'MET' if p95(loaded[STATUS]) < 0.1 else 'NOT MET'}: under 100 ms)")
        q = statistics.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 else ratios * 3
        print(f"loaded p95 / idle p95, per round: median {statistics.median(ratios):.2f}"
              f" (quartiles {q[0]:.2f}-{q[2]:.2f})")
        began = time.perf_counter()
        out = folder / "report"
        subprocess.run([*ARENA, "report", "--db", str(db), "--out", str(out)], check=True, cwd=REPO,
                       stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - began
        written = list(out.rglob("*.html"))
        leaking = [p for p in written if str(folder) in p.read_text(encoding="utf-8")]
        with Store(db) as store:
            stored = store.count()
        print(f"arena report: {len(written)} pages ({stored} matches stored) in {seconds:.1f} s;"
              f" pages naming the database's folder: {len(leaking)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
