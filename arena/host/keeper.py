"""The host's ladder, kept running: ``arena host --ladder FILE`` plays the ladder in a
child process (:func:`arena.tournament.ladder.run_ladder`, waiting for bots while too few
can fill a table) and starts it again whenever it stops.

A child process, as the validator is: the ladder's referee workers are CPU work that would
slow the host's answers, and a ladder that dies (a bug, a damaged database page) must not
take the door down with it.  It dies with the host, so a host killed with kill -9 leaves
no ladder holding the lock its restart needs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Final

import trio

from arena.host.children import die_with_parent
from arena.tournament.ladder import run_ladder
from arena.tournament.spec import load_spec
from arena.tournament.store import MatchRecord, Store

__all__ = ["keep_ladder"]

RESTART_S: Final = 5.0
"""How long a stopped ladder waits before it is started again."""


async def keep_ladder(file: Path, db: Path, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Run the ladder of ``file`` over ``db`` until cancelled, restarting it when it stops."""
    task_status.started()
    command = [sys.executable, "-m", "arena.host.keeper", str(file), str(db), "--parent", str(os.getpid())]
    while True:
        done = await trio.run_process(command, check=False, stdin=b"", stdout=sys.stderr.fileno(),
                                      stderr=sys.stderr.fileno())
        print(f"arena host: the ladder stopped (exit status {done.returncode}); starting it again in "
              f"{RESTART_S:g} s", file=sys.stderr, flush=True)
        await trio.sleep(RESTART_S)


class _Told:
    """A ladder's observer that only passes its notices on (to the host's log)."""

    def started(self, total: int, done: int, workers: int, sandbox: list[str]) -> None:
        print(f"ladder: playing on {workers} workers; sandbox: {', '.join(sandbox) or '-'}", file=sys.stderr,
              flush=True)

    def played(self, match: MatchRecord) -> None:
        """Every match is in the store; nothing to tell."""

    def notice(self, message: str) -> None:
        print(f"ladder: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Play the ladder: ``FILE DB --parent PID``."""
    parser = argparse.ArgumentParser(prog="python -m arena.host.keeper")
    parser.add_argument("file", type=Path)
    parser.add_argument("db", type=Path)
    parser.add_argument("--parent", type=int, required=True, help="the host's pid: this process dies with it")
    args = parser.parse_args(argv)
    die_with_parent(args.parent)
    with Store(args.db) as store:
        run_ladder(load_spec(args.file), store, _Told(), wait=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
