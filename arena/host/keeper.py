"""The host's ladder and competitions' finals, in processes of their own.

``arena host --ladder FILE`` plays the ladder in a
child process (:func:`arena.tournament.ladder.run_ladder`, waiting for bots while too few
can fill a table) and starts it again whenever it stops.

A child process, as the validator is: the ladder's referee workers are CPU work that would
slow the host's answers, and a ladder that dies (a bug, a damaged database page) must not
take the door down with it.  It dies with the host, so a host killed with kill -9 leaves
no ladder holding the lock its restart needs.

A competition (a tournament file with a ``deadline``, given to ``arena host --tournament``)
takes entries until its deadline; then, once the entries made in time are validated, its
final is played (the latest accepted version of each entrant, pinned at the final's first
run, as any tournament pins them), resumed after any stop until complete, and its key is
published with its results so that anyone can deal the final again.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Final

import trio

from arena.host.children import die_with_parent
from arena.host.ledger import Ledger
from arena.tournament.ladder import run_ladder
from arena.tournament.runner import run_tournament
from arena.tournament.settle import run_settled
from arena.tournament.spec import TournamentSpec, load_spec
from arena.tournament.store import MatchRecord, Store

__all__ = ["keep_final", "keep_ladder"]

RESTART_S: Final = 5.0
"""How long a stopped ladder or final waits before it is started again."""


async def keep_ladder(file: Path, db: Path, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Run the ladder of ``file`` over ``db`` until cancelled, restarting it when it stops."""
    task_status.started()
    await _keep([str(file), str(db)], f"the ladder {file}", until_done=False)


async def keep_final(file: Path, db: Path, deadline: float,
                     task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """At ``deadline``, play the competition of ``file`` as its final (again after a stop,
    until it is complete and its key published)."""
    task_status.started()
    await trio.sleep(max(0.0, deadline - time.time()))
    await _keep([str(file), str(db), "--final"], f"the final of {file}", until_done=True)


async def _keep(args: list[str], what: str, *, until_done: bool) -> None:
    """Run this module with ``args`` in a child that dies with the host, starting it again
    whenever it stops (``until_done``: until it ends with status 0)."""
    command = [sys.executable, "-m", "arena.host.keeper", *args, "--parent", str(os.getpid())]
    while True:
        done = await trio.run_process(command, check=False, stdin=b"", stdout=sys.stderr.fileno(),
                                      stderr=sys.stderr.fileno())
        if until_done and done.returncode == 0:
            return
        print(f"arena host: {what} stopped (exit status {done.returncode}); starting it again in {RESTART_S:g} s",
              file=sys.stderr, flush=True)
        await trio.sleep(RESTART_S)


def _final(spec: TournamentSpec, db: Path) -> int:
    """Play the competition's final once every entry made before its deadline is decided,
    then publish its key; 0 once complete."""
    with Ledger(db) as ledger:
        while any(s.tournament == spec.name and s.status in ("queued", "building", "testing")
                  for s in ledger.submissions(limit=1000)):
            time.sleep(1.0)  # entries made in time are still being validated
    with Store(db) as store:
        if spec.settle is not None:
            complete = run_settled(spec, store, _Told()).summary.complete
        else:
            complete = run_tournament(spec, store, _Told()).complete
        if not complete:
            return 1
        store.publish_key(spec.name)
    print(f"final: {spec.name} is complete; its key is published on its page", file=sys.stderr, flush=True)
    return 0


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
    parser.add_argument("--final", action="store_true", help="play FILE's competition as its final")
    parser.add_argument("--parent", type=int, required=True, help="the host's pid: this process dies with it")
    args = parser.parse_args(argv)
    die_with_parent(args.parent)
    if args.final:
        return _final(load_spec(args.file), args.db)
    with Store(args.db) as store:
        run_ladder(load_spec(args.file), store, _Told(), wait=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
