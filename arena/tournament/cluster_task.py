"""What runs on a Dask worker: the arena's worker plugin and the task that plays one table.

The plugin (:class:`SandboxPlugin`, registered by the coordinator, so that plain ``dask
worker`` processes need nothing more, and workers that join later get it too) probes the
sandbox once per worker process and advertises each active layer as a Dask resource
(``arena-layer-NAME``): a tournament's ``require`` list becomes resources its tables ask
for, and the scheduler sends them only to workers that have those layers.

:func:`play_table` is one table: it checks the layers again (a worker lacking one refuses
with the reason), fetches its bots by content hash into the worker's cache
(:mod:`arena.tournament.botcache`), and plays the table as a local referee worker does,
putting each finished match on the run's queue as it ends.  After each match it records
the matches played so far in the table's progress variable: when the worker dies, Dask
runs the task again elsewhere, and the new attempt starts from the first unfinished match
(as the local runner does with a dead worker's tables).  A task cancelled by the
coordinator (Ctrl+C) stops within a fraction of a second, killing its bots.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from typing import Final, cast

import msgspec
import trio
from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin
from distributed.worker import Worker

from arena.sandbox import Sandbox, closed_to_others
from arena.tournament.botcache import BotCache, default_cache
from arena.tournament.cores import claim_core
from arena.tournament.dask_api import VariableApi, queue, variable, worker_client
from arena.tournament.jobs import FromWorker, Played, Ready, TableJob
from arena.tournament.worker import _play_table  # the local referee worker's own table loop

__all__ = ["Finished", "Refused", "Report", "SandboxPlugin", "TableTask", "layer_resource", "play_table",
           "worker_sandbox"]

PLUGIN: Final = "thirty-one-arena"
"""The plugin's name on the scheduler (registering it again changes nothing)."""
FETCH_TIMEOUT_S: Final = 120
"""How long a worker waits for a bot's files from the scheduler."""
POLL_S: Final = 0.2
"""How often a playing task checks that it is still wanted."""


def layer_resource(layer: str) -> str:
    """The Dask resource a worker advertises for an active sandbox layer."""
    return f"arena-layer-{layer}"


class TableTask(msgspec.Struct, frozen=True):
    """One table as the coordinator sends it to a worker."""

    job: TableJob
    hashes: list[str | None]
    """For each bot, the hash of its registered copy's files (None: an installed package,
    which the worker must have installed itself)."""
    require: list[str]
    channel: str
    """The run's queue, where finished matches go."""
    progress: str
    """The variable holding the ids of this table's matches played so far."""
    bots: str
    """Prefix of the variables holding each bot's packed files, by hash."""


class Report(msgspec.Struct, frozen=True, array_like=True):
    """A message of a worker to the coordinator, through the run's queue."""

    worker: str
    message: FromWorker


class Finished(msgspec.Struct, frozen=True, tag="finished"):
    """The task played every match of its table it was given."""

    worker: str


class Refused(msgspec.Struct, frozen=True, tag="refused"):
    """The worker cannot play the table, and why."""

    worker: str
    reason: str


Ending = Finished | Refused

_probe_lock = threading.Lock()


@functools.cache
def _probe() -> Sandbox:
    return trio.run(Sandbox.probe)


def worker_sandbox() -> Sandbox:
    """This process's sandbox, probed once (by the plugin, or by the first task)."""
    with _probe_lock:
        return _probe()


@functools.cache
def _cache() -> BotCache:
    return BotCache(default_cache())


_PROFILER: Final = ("profile", "profile-cycle")
"""The periodic callbacks of Dask's statistical profiler in a worker."""


class SandboxPlugin(WorkerPlugin):
    """Probe the sandbox when the worker starts and advertise its active layers."""

    idempotent = True

    async def setup(self, worker: Worker) -> None:
        """Pin a single-thread worker to a core of its own (:mod:`arena.tournament.cores`),
        stop Dask's profiler, then probe in a thread (the probe runs trio, the worker's
        loop is asyncio).

        Dask's profiler reads every thread's stack each 10 ms, holding the interpreter's
        lock on the core the referee plays on: two pinned workers played at 0.86 of the
        local executor at equal table concurrency with it, 0.88 once this stops it, and 0.91
        with it off by the setting docs/CLUSTER.md's commands use (``benchmarks/cluster.py``).
        Its callbacks leave the worker's list, so a worker that registers (again) after this
        does not start them."""
        if worker.state.nthreads == 1:
            claim_core()
        for name in _PROFILER:
            callback = worker.periodic_callbacks.pop(name, None)
            if callback is not None:
                callback.stop()
        sandbox = await asyncio.to_thread(worker_sandbox)
        slots = float(worker.state.nthreads)
        await worker.set_resources(**{layer_resource(layer): slots for layer in sandbox.active})


async def sandbox_report() -> Ready:
    """What a worker's sandbox offers (``client.run`` calls it on every worker, in its
    event loop: a probe still to be made runs in a thread)."""
    sandbox = await asyncio.to_thread(worker_sandbox)
    return _ready(sandbox)


def _ready(sandbox: Sandbox) -> Ready:
    return Ready(sandbox.active, {s.name: s.why for s in sandbox.status.values() if not s.active})


def refusal(sandbox: Sandbox, require: list[str], cache: BotCache) -> str:
    """Why a worker with ``sandbox`` and ``cache`` cannot play a table ("" if it can)."""
    missing = sandbox.missing(require)
    if missing:
        return ("it lacks the required sandbox layer(s) " + "; ".join(f"{s.name}: {s.why or 'inactive'}"
                                                                      for s in missing))
    if "uid" in sandbox.active and "bwrap" not in sandbox.active:
        cache.folder.mkdir(parents=True, exist_ok=True)
        closed = closed_to_others(cache.folder)
        if closed is not None:
            return (f"the bots' users cannot enter {closed} to reach its bot cache {cache.folder}; set "
                    "ARENA_BOT_CACHE to a folder every user can enter")
    return ""


def _encode(message: Report | Ending) -> bytes:
    return msgspec.msgpack.encode(message)


def play_table(wire: bytes) -> bytes:
    """The Dask task: play the table in ``wire`` (a :class:`TableTask`) on this worker;
    an encoded :class:`Finished` or :class:`Refused`."""
    task = msgspec.msgpack.decode(wire, type=TableTask)
    worker = get_worker()
    sandbox, cache = worker_sandbox(), _cache()
    why = refusal(sandbox, task.require, cache)
    if why:
        return _encode(Refused(worker.address, why))
    client = worker_client()
    channel = queue(task.channel, client)
    try:
        channel.put(_encode(Report(worker.address, _ready(sandbox))))
        progress = variable(task.progress, client)
        played = _played(progress)

        def fetch(digest: str) -> Callable[[], bytes]:
            files = variable(task.bots + digest, client)
            return lambda: cast(bytes, files.get(timeout=FETCH_TIMEOUT_S))

        bots = [msgspec.structs.replace(bot, path=str(cache.path(digest, fetch(digest))) if digest else None)
                for bot, digest in zip(task.job.bots, task.hashes)]
        job = msgspec.structs.replace(task.job, bots=bots,
                                      matches=[m for m in task.job.matches if m.id not in set(played)])
        key = worker.get_current_task()

        def stopped() -> bool:
            state = worker.state.tasks.get(key)
            return state is None or state.state == "cancelled"

        async def send(message: FromWorker) -> None:
            if isinstance(message, Played) and not stopped():
                channel.put(_encode(Report(worker.address, message)))
                played.append(message.id)
                progress.set(played)

        trio.run(_play, job, sandbox, send, stopped)
    finally:
        channel.close()
    return _encode(Finished(worker.address))


def _played(progress: VariableApi) -> list[str]:
    """The matches an earlier attempt at the table played (none at the first; none if the
    run that set the variable is gone)."""
    try:
        return list(cast(list[str], progress.get(timeout=FETCH_TIMEOUT_S)))
    except TimeoutError:
        return []


async def _play(job: TableJob, sandbox: Sandbox, send: Callable[[FromWorker], object],
                stopped: Callable[[], bool]) -> None:
    """Play ``job``; stop (killing the bots) once the task is cancelled."""
    async with trio.open_nursery() as nursery:

        async def watch() -> None:
            while not stopped():
                await trio.sleep(POLL_S)
            nursery.cancel_scope.cancel()

        nursery.start_soon(watch)
        await _play_table(job, sandbox, send)
        nursery.cancel_scope.cancel()
