"""The part of Dask distributed's API the arena uses, typed.

``distributed`` ships partial types: its client, futures, queues and variables have
unannotated methods, which ``mypy --strict`` refuses to call.  These protocols state what
the arena relies on, and the constructors below are the only casts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast

import distributed

__all__ = ["ClientApi", "FutureApi", "QueueApi", "VariableApi", "connect", "queue", "variable", "worker_client"]


class FutureApi(Protocol):
    """A submitted task's handle."""

    @property
    def key(self) -> str: ...

    @property
    def status(self) -> str: ...

    def done(self) -> bool: ...

    def result(self) -> Any: ...

    def exception(self) -> BaseException | None: ...


class ClientApi(Protocol):
    """A connection to a scheduler."""

    @property
    def dashboard_link(self) -> str: ...

    def submit(self, func: Callable[..., Any], *args: Any, key: str, pure: bool, retries: int,
               resources: dict[str, float] | None) -> FutureApi: ...

    def nthreads(self) -> dict[str, int]: ...

    def run(self, function: Callable[..., Any]) -> dict[str, Any]: ...

    def register_plugin(self, plugin: Any, name: str) -> Any: ...

    def cancel(self, futures: Sequence[FutureApi], force: bool = False) -> None: ...

    def close(self) -> None: ...


class QueueApi(Protocol):
    """A queue on the scheduler (items: msgpack-able values)."""

    @property
    def name(self) -> str: ...

    def put(self, value: bytes) -> None: ...

    def get(self, timeout: float | None = None, batch: bool = False) -> Any: ...

    def close(self) -> None: ...


class VariableApi(Protocol):
    """A named value on the scheduler."""

    @property
    def name(self) -> str: ...

    def set(self, value: Any) -> None: ...

    def get(self, timeout: float | None = None) -> Any: ...

    def delete(self) -> None: ...


CLIENT_LOGS = ("distributed", "distributed.client", "tornado", "tornado.application")
"""The loggers Dask sets up with handlers of their own (each child logs through one of them)."""


def connect(address: str, timeout_s: float) -> ClientApi:
    """A client of the scheduler at ``address`` (not the process's default client).  Dask's
    own log in this process is silenced: the coordinator says what went wrong in its own
    words.  A lost scheduler was a timestamped Dask line before the arena's, and under load
    the client's batched sender added an INFO line with a traceback."""
    for name in CLIENT_LOGS:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return cast(Callable[..., ClientApi], distributed.Client)(address, timeout=timeout_s, set_as_default=False)


def worker_client() -> ClientApi:
    """Inside a task: the worker's own client of the scheduler."""
    return cast(Callable[[], ClientApi], distributed.get_client)()


def queue(name: str, client: ClientApi) -> QueueApi:
    """The scheduler's queue ``name`` (created if new)."""
    return cast(Callable[..., QueueApi], distributed.Queue)(name, client=client)


def variable(name: str, client: ClientApi) -> VariableApi:
    """The scheduler's variable ``name``."""
    return cast(Callable[..., VariableApi], distributed.Variable)(name, client=client)
