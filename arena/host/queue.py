"""The host's validation queue: one submission at a time, in a process of its own
(:mod:`arena.host.validate`), the oldest first but for an account's later uploads of a
day (:meth:`~arena.host.ledger.Ledger.claim_next`).

Submissions wait in the ledger, not in memory: the upload is committed before the author
hears "queued", so a host killed at any moment loses none, and its restart puts back in
the queue whatever was being validated (that validator died with it).  Validation takes
seconds of CPU per claimed variant and the sandbox's machine-wide resources; one at a
time keeps the host's pages and API answering while it works.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Final, TypeVar

import trio

from arena.host.config import HostConfig
from arena.host.ledger import Ledger
from arena.host.validate import command
from arena.tournament.store import StoreError

__all__ = ["Queue"]

T = TypeVar("T")

IDLE_S: Final = 2.0
"""How often an idle queue looks for work it was not woken for (another host process,
or a submission queued again by hand)."""


class Queue:
    """Runs validations until cancelled; :meth:`wake` says a submission was queued."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self._wake = trio.Event()

    def wake(self) -> None:
        """A submission was queued: look now (from the event loop's thread)."""
        self._wake.set()

    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Requeue what a previous host left half-validated, then validate forever."""
        self.config.work.mkdir(mode=0o711, parents=True, exist_ok=True)  # enterable by the bots' users, not listable
        for left in self.config.work.glob("submission-*"):  # what validators killed with the host unpacked
            shutil.rmtree(left, ignore_errors=True)
        await trio.to_thread.run_sync(self._requeue)
        task_status.started()
        while True:
            claimed = await self._persist("looking for a submission to validate", self._claim)
            if claimed is None:
                with trio.move_on_after(IDLE_S):
                    await self._wake.wait()
                self._wake = trio.Event()
                continue
            try:
                with trio.move_on_after(self.config.validate_seconds) as scope:
                    await trio.run_process(command(self.config, claimed), check=False, stdin=b"",
                                           stdout=sys.stderr.fileno(), stderr=sys.stderr.fileno())
            except OSError as error:  # no process could start (no file descriptor left ...): later
                _trouble(f"starting the validator of submission {claimed}", error)
                await self._persist("queueing it again", partial(self._queue_again, claimed))
                await trio.sleep(IDLE_S)
                continue
            await self._persist(f"ending submission {claimed}'s validation",
                                partial(self._ended, claimed, scope.cancelled_caught))

    async def _persist(self, what: str, step: Callable[[], T]) -> T:
        """``step`` in a worker thread, tried again every :data:`IDLE_S` while the machine
        refuses it (the database out of reach, no file descriptor left): a host under a
        flood of connections must not exit with its queue."""
        while True:
            try:
                return await trio.to_thread.run_sync(step)
            except (StoreError, OSError, sqlite3.OperationalError) as error:  # a bug's error still ends it
                _trouble(what, error)
                await trio.sleep(IDLE_S)

    def _requeue(self) -> None:
        """Put back what a host that died was validating."""
        with Ledger(self.config.db) as ledger:
            ledger.requeue_interrupted()

    def _ended(self, submission: int, too_long: bool) -> None:
        """After a validator: remove what it unpacked (a killed one could not) and refuse a
        submission it left undecided."""
        for folder in self.config.work.glob(f"submission-{submission}-*"):
            shutil.rmtree(folder, ignore_errors=True)
        with Ledger(self.config.db) as ledger:
            current = ledger.submission(submission)
            if current is None or current.status not in ("building", "testing"):
                return  # decided
            reason = (f"validation took longer than {self.config.validate_seconds:g} s (the build and the smoke "
                      "matches of every variant claimed): make the build quicker or claim fewer variants"
                      if too_long else "the validation stopped before its end (the operator can see why in the "
                      "host's log); submit it again")
            ledger.append_log(submission, f"refused: {reason}")
            ledger.set_status(submission, "refused", reason=reason)

    def _queue_again(self, submission: int) -> None:
        """Put back a submission whose validator could not start."""
        with Ledger(self.config.db) as ledger:
            ledger.append_log(submission, "queued again: its validator could not start (the host's log says why)")
            ledger.set_status(submission, "queued")

    def _claim(self) -> int | None:
        with Ledger(self.config.db) as ledger:
            submission = ledger.claim_next()
        return None if submission is None else submission.id


def work_folder(db: Path) -> Path:
    """Where a host over ``db`` unpacks and validates uploads by default."""
    return db.resolve().parent / "host-work"


def _trouble(what: str, error: BaseException) -> None:
    print(f"arena host: queue: {what} failed ({type(error).__name__}: {error}); trying again in {IDLE_S:g} s",
          file=sys.stderr, flush=True)
