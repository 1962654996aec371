"""Tournaments on a Dask cluster: :class:`DaskExecutor` plays each table as a Dask task.

The coordinator (the machine that runs ``arena run --cluster``) keeps the results
database, as with local workers: it alone stores each match, in one transaction, as the
match's result arrives, so resuming works as it does locally.  Everything else goes
through the Dask scheduler:

* each bot travels by content hash: its registered copy is packed once per run into a
  scheduler variable named by the hash, and a worker fetches it only when its own cache
  lacks that hash (:mod:`arena.tournament.botcache`);
* each table is one task (:func:`arena.tournament.cluster_task.play_table`), which asks
  for the resources of the tournament's required sandbox layers, so that only workers
  with those layers get it; a worker plays one table per thread it offers;
* finished matches come back one by one through a Dask queue, and each table keeps a
  progress variable of the matches it played, so that when its worker dies and Dask runs
  the task again elsewhere, the new attempt plays only what is left.  A match is never
  stored twice: the store ignores one it holds already.

Dask is imported only by this module and its task module, which only runs given a cluster.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, Final, cast

import msgspec
import trio

from arena.sandbox import Layer
from arena.tournament.botcache import pack
from arena.tournament.cluster_task import (
    PLUGIN,
    Ending,
    Finished,
    Report,
    SandboxPlugin,
    TableTask,
    layer_resource,
    play_table,
    sandbox_report,
)
from arena.tournament.dask_api import ClientApi, FutureApi, VariableApi, connect, queue, variable
from arena.tournament.jobs import Played, Ready, TableJob
from arena.tournament.registry import content_hash
from arena.tournament.runner import ATTEMPTS, Executor, RunError

__all__ = ["DaskExecutor"]

ALWAYS_REQUIRED: Final = (Layer.BWRAP,)
"""Layers a worker needs whatever the tournament requires: bubblewrap's network namespace
keeps bots off the network, where they could reach the Dask scheduler, which trusts whoever
connects (submit tasks that run on every worker, read other bots' code, forge results)."""
CONNECT_S: Final = 10
"""Seconds to wait for the scheduler before giving up."""
POLL_S: Final = 0.1
"""How long to wait before looking at the queue again when it was empty."""


class DaskExecutor(Executor):
    """Plays tables as tasks on the Dask cluster whose scheduler is at ``address``.

    It connects at its first use and stays connected until :meth:`close`, so that a run
    that plays in several rounds (a league's waves, ``arena test``'s batches) connects once."""

    local_paths = False

    def __init__(self, address: str, require: Sequence[str] = (),
                 say: Callable[[str], None] = lambda _: None) -> None:
        self.address = address
        self.require = sorted({*require, *ALWAYS_REQUIRED})
        self.say = say
        self.workers = 0
        self._client: ClientApi | None = None

    def _connect(self) -> ClientApi:
        if self._client is not None:
            return self._client
        try:
            client = connect(self.address, CONNECT_S)
        except (OSError, TimeoutError) as error:
            raise RunError(f"cannot reach the Dask scheduler at {self.address}: {error}") from None
        try:
            client.register_plugin(SandboxPlugin(), name=PLUGIN)
            self._client = client
            threads = client.nthreads()
            self.workers = len(threads)
            self.say(f"Dask cluster {self.address}: {len(threads)} worker(s), {sum(threads.values())} "
                     f"thread(s); dashboard: {_dashboard(client)}")
            return client
        except BaseException:
            self._client = None
            client.close()
            raise

    def capacity(self) -> int:
        """Threads of the workers now connected (at least 1: tables wait for workers)."""
        return max(1, sum(self._connect().nthreads().values()))

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    async def run(
        self,
        tables: Sequence[TableJob],
        ready: Callable[[Ready], None],
        played: Callable[[Played], Awaitable[None]],
        failed: Callable[[TableJob, str], None],
    ) -> None:
        client = await trio.to_thread.run_sync(self._connect)
        try:
            run = await trio.to_thread.run_sync(_Run, client, self.require, f"arena-{uuid.uuid4().hex[:12]}")
            try:
                await trio.to_thread.run_sync(run.check_workers, ready, self.say)
                await trio.to_thread.run_sync(run.submit, tables)
                await run.collect(ready, played, failed)
            finally:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(run.clean_up)
        except OSError:  # Dask's lost connections are OSErrors, their text its internals
            self.close()
            raise RunError(f"lost the Dask scheduler at {self.address} (it stopped, or the network to it "
                           "failed)") from None


def _dashboard(client: ClientApi) -> str:
    try:
        return str(client.dashboard_link)
    except (KeyError, TypeError):
        return "none (the scheduler runs without one; `pip install bokeh` where it runs)"


class _Run:
    """One :meth:`DaskExecutor.run`: its queue, variables and futures on the cluster."""

    def __init__(self, client: ClientApi, require: list[str], name: str) -> None:
        self.client = client
        self.require = require
        self.name = name
        self.queue = queue(f"{name}-results", client)
        self.variables: list[VariableApi] = []
        self.futures: dict[str, tuple[TableJob, FutureApi]] = {}
        self.seen: set[str] = set()
        """Workers whose sandbox was reported to the run."""
        self.received: set[str] = set()
        """Matches whose result arrived."""

    def check_workers(self, ready: Callable[[Ready], None], say: Callable[[str], None]) -> None:
        """Report each connected worker's sandbox; RunError if workers are connected but
        none has the required layers (with no worker yet, the tables wait for one)."""
        reports = cast(dict[str, Ready], self.client.run(sandbox_report))
        able = {worker: report for worker, report in reports.items() if not self._lacks(report)}
        for worker, report in reports.items():
            if worker not in able:
                say(f"Dask worker {worker} plays no table of this run: {self._lacks(report)}")
        if reports and not able:
            raise RunError(f"no Dask worker at the scheduler has the required sandbox layer(s) "
                           f"{', '.join(self.require)}; `arena doctor` on a worker explains")
        if not reports:
            say("no Dask worker is connected yet: the tables wait for one")
        for worker, report in able.items():
            self.seen.add(worker)
            ready(report)

    def _lacks(self, report: Ready) -> str:
        missing = [layer for layer in self.require if layer not in report.sandbox]
        return "; ".join(f"it lacks {layer} ({report.why_not.get(layer, 'inactive')})" for layer in missing)

    def submit(self, tables: Sequence[TableJob]) -> None:
        """Publish the bots' files by hash, then submit one task per table."""
        hashes: dict[str, str] = {}
        for path in sorted({bot.path for job in tables for bot in job.bots if bot.path}):
            hashes[path] = digest = content_hash(Path(path))
            files = variable(f"{self.name}-bot-{digest}", self.client)
            files.set(pack(Path(path)))
            self.variables.append(files)
        resources = {layer_resource(layer): 1.0 for layer in self.require}
        for job in tables:
            progress = variable(f"{self.name}-progress-{job.id}", self.client)
            progress.set([])  # set before the task can ask: an empty variable makes the scheduler log a timeout
            self.variables.append(progress)
            task = TableTask(job, [hashes[b.path] if b.path else None for b in job.bots], self.require,
                             self.queue.name, progress.name, f"{self.name}-bot-")
            future = self.client.submit(play_table, msgspec.msgpack.encode(task),
                                        key=f"arena-table-{job.id}-{self.name}", pure=False,
                                        retries=ATTEMPTS - 1, resources=resources or None)
            self.futures[job.id] = (job, future)

    async def collect(self, ready: Callable[[Ready], None], played: Callable[[Played], Awaitable[None]],
                      failed: Callable[[TableJob, str], None]) -> None:
        """Store matches as they arrive until every task has ended, then report the tables
        that ended without all their matches."""
        endings: dict[str, str] = {}
        while len(endings) < len(self.futures):
            reports = await trio.to_thread.run_sync(self._take)
            for report in reports:
                await self._handle(report, ready, played)
            for table, (_, future) in self.futures.items():
                if table not in endings and future.done():
                    endings[table] = await trio.to_thread.run_sync(_ending, future)
            if not reports:
                await trio.sleep(POLL_S)
        for report in await trio.to_thread.run_sync(self._take):  # what was put before each task ended
            await self._handle(report, ready, played)
        for table, why in endings.items():
            job = self.futures[table][0]
            left = [m for m in job.matches if m.id not in self.received]
            if left:
                failed(msgspec.structs.replace(job, matches=left), why or "its task ended without playing them")

    def _take(self) -> list[Report]:
        """What the queue holds now (a look that does not wait: one that waits in vain makes
        the scheduler log a timeout)."""
        return [_report(item) for item in cast(list[bytes], self.queue.get(batch=True))]

    async def _handle(self, report: Report, ready: Callable[[Ready], None],
                      played: Callable[[Played], Awaitable[None]]) -> None:
        message = report.message
        if isinstance(message, Played):
            self.received.add(message.id)
            await played(message)
        elif isinstance(message, Ready) and report.worker not in self.seen:
            self.seen.add(report.worker)
            ready(message)

    def clean_up(self) -> None:
        """Cancel what is still running (its workers kill its bots), and drop the run's
        queue and variables from the scheduler."""
        with suppress(Exception):
            self.client.cancel([future for _, future in self.futures.values() if not future.done()], force=True)
        for held in self.variables:
            with suppress(Exception):
                held.delete()
        with suppress(Exception):
            self.queue.close()


def _report(item: Any) -> Report:
    return msgspec.msgpack.decode(cast(bytes, item), type=Report)


def _ending(future: FutureApi) -> str:
    """Why a task ended without finishing its table ("" if it finished it); RunError if its
    worker refused the table."""
    if future.status == "finished":
        ending = msgspec.msgpack.decode(cast(bytes, future.result()), type=Ending)
        if isinstance(ending, Finished):
            return ""
        raise RunError(f"Dask worker {ending.worker} refused table {future.key}: {ending.reason}")
    if future.status == "error":
        error = future.exception()
        return f"its task failed on the cluster ({type(error).__name__}: {error})"
    return f"its task was {future.status}"
