"""Fixtures shared by the whole test suite."""

from __future__ import annotations

import os
import signal
from itertools import islice
from pathlib import Path

import pytest

# A suite started in the background by a shell without job control inherits SIGINT ignored,
# and so would every process it starts: the tests of Ctrl+C need it delivered.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parents[1]
VECTORS_DIR = Path(__file__).resolve().parent / "rules" / "vectors"


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    """The directory holding ``hands.json`` and ``rounds.json``."""
    return VECTORS_DIR


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected what will not run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Start the tests marked ``long`` first, spread over the workers.

    ``pytest-xdist``'s work stealing (``--dist worksteal``, as ``make test`` runs it) gives
    each worker a run of the collected tests, in order, and lets idle workers take from
    the ends of others' runs.  A long test met late in its worker's run was left running
    alone at the end: one that waits on a host's ladder started after nine minutes of a
    ten-minute suite and held it four more.  So the long tests are shared out, longest
    first, to the worker with the least of them, and each worker's run opens with its
    share; the rest keep their order.  Every worker collects the same order, as the
    distribution requires.
    """
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2 or config.getoption("dist", None) != "worksteal":
        return
    long = sorted((item for item in items if item.get_closest_marker("long")), key=_seconds, reverse=True)
    if not long:
        return
    runs: list[int] = []  # the runs xdist hands out: what is left, split evenly
    for k in range(workers):
        runs.append((len(items) - sum(runs)) // (workers - k))
    shares: list[list[pytest.Item]] = [[] for _ in range(workers)]
    for item in long:  # to the least loaded run with room (a run opens with its share)
        room = [k for k in range(workers) if len(shares[k]) < runs[k]]
        shares[min(room, key=lambda k: sum(map(_seconds, shares[k])))].append(item)
    chosen = set(long)
    rest = iter([item for item in items if item not in chosen])
    items[:] = [item for k, share in enumerate(shares) for item in share + list(islice(rest, runs[k] - len(share)))]


def _seconds(item: pytest.Item) -> float:
    """How long a ``long`` test keeps its worker, as its marker says."""
    marker = item.get_closest_marker("long")
    return float(marker.args[0]) if marker else 0.0
