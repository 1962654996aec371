"""The host's ladder for hours with visitors: does memory stay flat, and is anything left
behind?

A real ``arena host --ladder FILE`` over a temporary database plays a ladder of ``--bots``
copies of the bundled ``random`` (scat, tables of 2 and 4; two bots per author, so the
ladder keeps authors apart) on every core, while threads request ``--rate`` page views a
second through the host (the overview, the ladder's ranking, a bot's page, the match list).
Every ``--sample-s`` seconds it records:

* the resident memory (VmRSS) of the host, of the ladder's coordinator (the host's
  ``arena.host.keeper`` child) and of the coordinator's referee workers together;
* the open files of the host and of the coordinator;
* the matches stored so far.

Then it stops the host as an operator would (SIGTERM, as systemd does) and looks, after
a grace of ``--grace-s``, for what the run left: processes started meanwhile that name the
arena, bubblewrap or the run's folder; bot control groups (``arena-bot-*`` under
/sys/fs/cgroup); scratch folders (``arena-bot-*`` in the temporary folder); mounts that
were not there before.  Groups and folders are named after the process that made them
(``arena-bot-PID-...``), and every second the run notes the host's processes, so what
another arena on the machine left (a test suite run meanwhile) is told apart from the
run's own: only the run's own count.

Targets (issue "a ladder that never stops"): memory growth under 10% from minutes 10-15
to the last five minutes (medians of the samples), for the host and the coordinator;
nothing left behind.

    python benchmarks/soak.py [--minutes 120] [--bots 8] [--rate 50] [--sample-s 60]

Ctrl+C or SIGTERM ends it early, with the report so far and the look for leftovers.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder import bots, visitors  # noqa: E402
from tabulate import tabulate  # noqa: E402

from arena.tournament.store import Store  # noqa: E402

ARENA = [sys.executable, "-m", "arena.cli"]
PAGES = ("/", "/t/ladder/", "/b/bot-0/", "/matches/")
WARM_S = 600.0
"""Memory growth is measured from the samples at least this far into the run."""
WINDOW_S = 300.0
"""Growth compares the median of the samples in this long a window from :data:`WARM_S` with
the median of the last this long: a sample taken while a page renders holds its moment's
peak, which one sample alone would count as growth (the largest is reported beside)."""


def children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(parent, []).append(int(entry.name))
    return tree


def descendants(pid: int, tree: dict[int, list[int]]) -> list[int]:
    found, todo = [], list(tree.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(tree.get(child, []))
    return found


def command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def note_processes(host: int, ours: set[int], stop: threading.Event) -> None:
    """Every second until ``stop``, add the host's processes to ``ours``."""
    while not stop.wait(1.0):
        ours.update(descendants(host, children()))


def maker(name: str) -> int:
    """The process named in ``.../arena-bot-PID-...`` (0 for another name)."""
    found = re.search(r"arena-bot-(\d+)-", name)
    return int(found.group(1)) if found else 0


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def open_files(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def mounts() -> set[str]:
    return {" ".join(line.split()[3:5]) for line in Path("/proc/self/mountinfo").read_text().splitlines()}


def bot_groups() -> list[str]:
    found = []
    for root, folders, _ in os.walk("/sys/fs/cgroup"):
        for name in folders:
            if "arena-bot-" in name:
                found.append(os.path.join(root, name))
        folders[:] = [f for f in folders if "arena-bot-" not in f]
    return found


def scratch() -> list[str]:
    return sorted(str(p) for p in Path(tempfile.gettempdir()).glob("arena-bot-*"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=120.0)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--rate", type=float, default=50.0, help="page views a second")
    parser.add_argument("--sample-s", type=float, default=60.0)
    parser.add_argument("--grace-s", type=float, default=30.0, help="after the stop, before looking for leftovers")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # ended early (kill, or Ctrl+C): still reports
    work = Path(tempfile.mkdtemp(prefix="arena-soak-"))
    work.chmod(0o755)
    before_pids = {int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()}
    before_mounts, before_groups, before_scratch = mounts(), set(bot_groups()), set(scratch())
    db = work / "arena.db"
    Store(db).close()
    entrants = bots(work, args.bots)
    for i, bot in enumerate(entrants):  # two bots per author
        text = (bot / "bot.toml").read_text(encoding="utf-8")
        (bot / "bot.toml").write_text(re.sub(r'author = "[^"]*"', f'author = "author-{i // 2}"', text),
                                      encoding="utf-8")
    file = work / "ladder.toml"
    file.write_text('name = "ladder"\nmode = "ladder"\nopen = true\nentrants = ['
                    + ", ".join(f'"{b}"' for b in entrants) + ']\n[[variant]]\nname = "scat"\ntables = [2, 4]\n',
                    encoding="utf-8")
    log = (work / "host.log").open("w")
    host = subprocess.Popen([*ARENA, "host", "--db", str(db), "--port", "0", "--ladder", str(file)],
                            stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
    assert host.stdout is not None
    found = re.search(r"http://\S+", host.stdout.readline())
    if found is None:
        host.kill()
        raise SystemExit(f"arena host did not start: {(work / 'host.log').read_text()}")
    url = found.group().rstrip("/")
    while host.poll() is None:
        with Store(db) as store:
            if store.count("ladder"):
                break
        time.sleep(0.5)
    latencies: list[float] = []
    errors: list[str] = []
    stop = threading.Event()
    crowd = visitors(url, args.rate, stop, latencies, errors)
    samples: list[list[float]] = []  # minute, matches, MiB x 3, workers, files x 2, views, failed views
    ours: set[int] = {host.pid}  # every process seen under the host
    noting = threading.Thread(target=note_processes, args=(host.pid, ours, stop), daemon=True)
    noting.start()
    begun = time.monotonic()
    try:
        while True:
            elapsed = time.monotonic() - begun
            tree = children()
            keepers = [p for p in descendants(host.pid, tree) if "arena.host.keeper" in command(p)]
            keeper = keepers[0] if keepers else 0
            workers = [p for p in descendants(keeper, tree) if "arena.tournament.worker" in command(p)]
            with Store(db) as store:
                stored = store.count("ladder")
            samples.append([round(elapsed / 60, 1), stored, rss_kib(host.pid) // 1024, rss_kib(keeper) // 1024,
                            sum(rss_kib(p) for p in workers) // 1024, len(workers), open_files(host.pid),
                            open_files(keeper), len(latencies), len(errors)])
            print(tabulate([samples[-1]], tablefmt="plain"), flush=True)
            if elapsed >= args.minutes * 60 or host.poll() is not None:
                break
            time.sleep(min(args.sample_s, max(1.0, args.minutes * 60 - elapsed)))
    except KeyboardInterrupt:
        print(f"ended early, at minute {(time.monotonic() - begun) / 60:.1f}", flush=True)
    finally:
        stop.set()
        for thread in [*crowd, noting]:
            thread.join(timeout=60)
        host.send_signal(signal.SIGTERM)
        try:
            host.wait(timeout=120)
        except subprocess.TimeoutExpired:
            host.kill()
            print("the host did not stop on SIGTERM within 120 s: killed", flush=True)
        log.close()
    time.sleep(args.grace_s)
    new = sorted({int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()} - before_pids)
    named = [p for p in new if any(word in command(p) for word in ("arena", "bwrap", str(work)))]
    left = [f"{p}: {command(p)[:160]}" for p in named if p in ours or str(work) in command(p)]
    left_groups = [g for g in sorted(set(bot_groups()) - before_groups) if maker(g) in ours]
    left_scratch = [f for f in sorted(set(scratch()) - before_scratch) if maker(f) in ours]
    left_mounts = [m for m in sorted(mounts() - before_mounts) if maker(m) in ours or str(work) in m]
    others = len(named) - len(left)
    print()
    print(tabulate(samples, headers=["minute", "matches", "host MiB", "coordinator MiB", "workers MiB", "workers",
                                     "host files", "coordinator files", "views", "failed views"],
                   tablefmt="github"))
    warm = [s for s in samples if WARM_S <= s[0] * 60 < WARM_S + WINDOW_S] or samples[:1]
    late = [s for s in samples if s[0] * 60 >= samples[-1][0] * 60 - WINDOW_S]
    verdicts = []
    for column, name in ((2, "host"), (3, "coordinator"), (4, "workers")):
        start, end = statistics.median(s[column] for s in warm), statistics.median(s[column] for s in late)
        growth = (end - start) / start if start else 0.0
        most = max(s[column] for s in samples if s[0] * 60 >= WARM_S) if samples[-1][0] * 60 >= WARM_S else end
        verdicts.append(f"{name} memory {start:.0f} -> {end:.0f} MiB (medians of minutes {warm[0][0]}-{warm[-1][0]}"
                        f" and {late[0][0]}-{late[-1][0]}): {growth:+.1%}, at most {most:.0f} MiB after minute"
                        f" {WARM_S / 60:.0f}"
                        + ("" if name == "workers" else f" ({'MET' if growth < 0.10 else 'NOT MET'}: under +10%)"))
    print("\n".join(verdicts))
    print(f"host exit status {host.returncode}; failed views {len(errors)} of {len(latencies)}")
    leftovers = [*left, *left_groups, *left_scratch, *left_mounts]
    print(f"left behind: {len(left)} processes, {len(left_groups)} control groups, "
          f"{len(left_scratch)} scratch folders, {len(left_mounts)} mounts"
          + (f" (and {others} processes of another arena on this machine, not counted)" if others else ""))
    for line in leftovers:
        print(f"  {line}")
    if leftovers or host.returncode:
        print(f"the host's log: {work / 'host.log'} (the run's folder is kept for it)")
    else:
        print("nothing left behind")
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
