"""Running a tournament: resume from the store, play the rest on referee workers, commit
each finished match, rate at the end.

The scheduler never sees processes: it hands :class:`~arena.tournament.worker.TableJob`
objects to an :class:`Executor` and receives finished matches.  :class:`LocalExecutor`
runs one referee worker process per core on this machine;
:class:`arena.tournament.cluster.DaskExecutor` plays tables on a Dask cluster (imported
only when a run is given one).

Nothing is lost or counted twice: a match is stored in one transaction when it ends, a
resumed run skips the stored ids, and ratings are computed in schedule order.  A
lock file keeps a second run of the same tournament out.

Longer than most modules: resuming, the worker pool (start, feed, replace a dead worker,
retry its tables) and storing are one protocol with one shared state, kept together so
that what happens to a match when a worker dies can be read in one place.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import weakref
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

import msgspec
import trio

from arena.botspec import BotManifest
from arena.deals import new_key
from arena.errors import ArenaError
from arena.referee import TimeControl
from arena.sandbox import LAYERS, UidPool, closed_to_others
from arena.text import counted
from arena.tournament.jobs import BotRef, FromWorker, Played, Ready, TableJob
from arena.tournament.ratings import ratings
from arena.tournament.registry import content_hash, find, install
from arena.tournament.scheduler import Table, authors_apart, schedule
from arena.tournament.spec import EntrantProblem, TournamentSpec
from arena.tournament.store import HeldError, MatchRecord, SeatRecord, Store, StoreError, VersionRow

__all__ = [
    "Executor",
    "Informed",
    "LocalExecutor",
    "Observer",
    "RunError",
    "RunSummary",
    "cluster_executor",
    "entrants",
    "lock",
    "make_executor",
    "play",
    "run_tables",
    "run_tournament",
    "tournament_key",
]

STDERR_KEEP: Final = 4000
"""Characters of a worker's stderr kept to explain its death."""


class RunError(ArenaError, RuntimeError):
    """The run cannot go on (a worker died, a required sandbox layer is missing, the
    tournament is already running); finished matches are kept."""


class Observer(Protocol):
    """What a run reports as it goes (the CLI draws a progress bar from it)."""

    def started(self, total: int, done: int, workers: int, sandbox: list[str]) -> None:
        """``total`` matches in the schedule, ``done`` of them already stored."""

    def played(self, match: MatchRecord) -> None:
        """A match was stored."""

    def notice(self, message: str) -> None:
        """Something the user should know (a missing optional sandbox layer ...)."""


@runtime_checkable
class Informed(Protocol):
    """An observer that also shows plain information (where a cluster's dashboard is),
    which other observers get as a notice."""

    def info(self, message: str) -> None:
        """Information for the user, not a warning."""


@dataclass
class RunSummary:
    """What a run did."""

    tournament: str
    total: int
    already: int
    played: int = 0
    faults: int = 0
    decisions: int = 0
    sandbox: list[str] = field(default_factory=list)
    given_up: dict[str, int] = field(default_factory=dict)
    """Tables whose workers kept dying, with how many of their matches were not played."""
    stored: int = 0
    """Scheduled matches the store holds once the run is over (counted there, not added up)."""
    settled: bool = False
    """A league run stopped early because its ranking's order was settled."""

    @property
    def complete(self) -> bool:
        """Every scheduled match is stored."""
        return self.stored >= self.total


class Executor(ABC):
    """Plays tables somewhere and reports each finished match."""

    local_paths: bool = True
    """Bots run from their registry copies' own paths (on a cluster, from each worker's cache)."""

    @abstractmethod
    def capacity(self) -> int:
        """Tables it plays at once."""

    @abstractmethod
    def close(self) -> None:
        """Let go of what it holds between runs (a cluster connection)."""

    @abstractmethod
    async def run(
        self,
        tables: Sequence[TableJob],
        ready: Callable[[Ready], None],
        played: Callable[[Played], Awaitable[None]],
        failed: Callable[[TableJob, str], None],
    ) -> None:
        """Play every table; call ``ready`` once per worker as it comes up (it may raise
        to refuse the worker's sandbox), ``played`` for each finished match, and ``failed``
        with the matches of a table that could not be played, and why."""


ATTEMPTS: Final = 3
"""Workers a table may see die under it before it is given up."""


@dataclass
class _Pending:
    """A table not yet finished: what is left of it, and how many workers died playing it."""

    job: TableJob
    attempts: int = 0

    def without(self, done: set[str]) -> TableJob:
        """The job without the matches in ``done``."""
        return msgspec.structs.replace(self.job, matches=[m for m in self.job.matches if m.id not in done])


class LocalExecutor(Executor):
    """One referee worker process per core, each pinned to its core with its bots, each
    playing up to ``concurrency`` tables at once.  A worker that dies is replaced, and its
    tables are played again from their first unfinished match, up to :data:`ATTEMPTS`
    times."""

    def __init__(self, workers: int = 0, concurrency: int = 4) -> None:
        self.workers = workers or len(os.sched_getaffinity(0))
        self.concurrency = concurrency

    def capacity(self) -> int:
        return self.workers * self.concurrency

    def close(self) -> None:
        """Nothing to let go: its worker processes live only while a run plays."""

    async def run(
        self,
        tables: Sequence[TableJob],
        ready: Callable[[Ready], None],
        played: Callable[[Played], Awaitable[None]],
        failed: Callable[[TableJob, str], None],
    ) -> None:
        queue = deque(_Pending(job) for job in tables)
        workers = min(self.workers, len(queue))
        async with trio.open_nursery() as nursery:
            for core in range(workers):
                nursery.start_soon(self._slot, core, queue, ready, played, failed)

    async def _slot(
        self,
        core: int,
        queue: deque[_Pending],
        ready: Callable[[Ready], None],
        played: Callable[[Played], Awaitable[None]],
        failed: Callable[[TableJob, str], None],
    ) -> None:
        """Keep a worker process running on ``core`` while tables are waiting."""
        stillborn = 0
        while queue:
            lost, why = await self._worker(core, queue, ready, played)
            if why.startswith("never ready:"):
                stillborn += 1
                if stillborn >= ATTEMPTS:
                    raise RunError(f"referee worker {core} {why[len('never ready: '):]} before it was ready")
                continue
            stillborn = 0
            for pending in lost:
                pending.attempts += 1
                if pending.attempts >= ATTEMPTS:
                    failed(pending.job, f"{ATTEMPTS} referee workers died playing it; the last {why}")
                else:
                    queue.append(pending)

    async def _worker(
        self,
        core: int,
        queue: deque[_Pending],
        ready: Callable[[Ready], None],
        played: Callable[[Played], Awaitable[None]],
    ) -> tuple[list[_Pending], str]:
        """Run one worker process until the queue is empty; the tables it was playing
        when it died (what is left of each), and how it died ("never ready: ..." if it
        died before it could play)."""
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "arena.tournament.worker", "--core", str(core)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        stderr = bytearray()
        encoder = msgspec.json.Encoder()
        decoder = msgspec.json.Decoder(FromWorker)
        playing: dict[str, _Pending] = {}
        done: dict[str, set[str]] = {}
        was_ready = False
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_drain, process.stderr, stderr)
                buffer = b""
                while True:
                    data = await process.stdout.receive_some(1 << 20)
                    if not data:
                        break
                    buffer += data
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        message = decoder.decode(line)
                        if isinstance(message, Played):
                            done[message.table].add(message.id)
                            await played(message)
                            continue
                        if isinstance(message, Ready):
                            ready(message)
                            was_ready = True
                        else:
                            del playing[message.table]
                        while queue and len(playing) < self.concurrency:
                            pending = queue.popleft()
                            playing[pending.job.id], done[pending.job.id] = pending, set()
                            await process.stdin.send_all(encoder.encode(pending.job) + b"\n")
                        if not playing and not queue:
                            await process.stdin.aclose()
                nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await _stop(process)
        tail = stderr.decode("utf-8", "replace")[-STDERR_KEEP:].strip()
        why = _ended(process.returncode or 0) + (f":\n{tail}" if tail else "")
        if not was_ready:
            return [], f"never ready: {why}"
        if not playing:
            return [], ""
        lost = []
        for table, pending in playing.items():
            pending.job = pending.without(done.get(table, set()))
            lost.append(pending)
        return lost, why


def _ended(status: int) -> str:
    """How a process ended, from its exit status."""
    try:
        return f"was killed by {signal.Signals(-status).name}" if status < 0 else f"exited with status {status}"
    except ValueError:
        return f"was killed by signal {-status}"


async def _drain(stream: trio.abc.ReceiveStream, keep: bytearray) -> None:
    while data := await stream.receive_some(1 << 16):
        keep += data
        del keep[:-STDERR_KEEP]


async def _stop(process: trio.Process) -> None:
    """SIGTERM the worker (it kills its bots), then SIGKILL if it lingers."""
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        with trio.move_on_after(3):
            await process.wait()
    if process.returncode is None:
        process.kill()
        await process.wait()


@contextmanager
def lock(store: Store, name: str) -> Iterator[None]:
    """Hold tournament ``name``'s lock for the run (on the database file itself, whatever
    path leads to it); RunError if another run holds it."""
    try:
        with store.hold(name):
            yield
    except HeldError:
        raise RunError(f"tournament {name!r} is already running on {store.path.resolve()}; wait for that run or "
                       "stop it with Ctrl+C") from None


def _check_same_play(spec: TournamentSpec, before: dict[str, Any], played: int) -> None:
    """RunError if the time control, fault policy or limits changed since matches were stored:
    a resumed run would rank matches played under different conditions together."""
    now = spec.to_dict()
    old_own, new_own = before.get("entrant_time", {}), now["entrant_time"]
    if set(old_own) != set(new_own) or any(_changes(old_own[ref], new_own[ref]) for ref in new_own):
        raise RunError(f"the entrants' own time controls changed since {counted(played, 'match')} of {spec.name!r} "
                       f"were played (were {old_own}, are {new_own}), and rankings would mix the two. Restore them, "
                       "or give it a new name (or another --db) to start afresh")
    for table in ("time", "faults", "limits"):
        changes = _changes(before.get(table, now[table]), now[table])
        if changes:
            raise RunError(
                f"{spec.locate(table)}: [{table}] changed since {counted(played, 'match')} of {spec.name!r} "
                "were played "
                f"({'; '.join(changes)}), and rankings would mix the two. Restore it, or give the tournament "
                "a new name (or another --db) to start afresh")


def _changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two stored settings tables; a setting the old one lacks (an
    arena from before it existed) had its value now."""
    return [f"{key} was {old[key]}, is {value}" for key, value in new.items() if old.get(key, value) != value]


def _find(store: Store, spec: TournamentSpec, ref: str, *where: str | int) -> VersionRow | BotManifest:
    try:
        return find(store, ref, spec.source.parent if spec.source else None)
    except ValueError as error:
        raise RunError(f"{spec.locate(*where)}: {error}") from None


def entrant_problem(db: Path) -> EntrantProblem:
    """What is wrong with an entrant's name, looked up as a run looks it up (in ``db``'s
    registry, if there is one; registering nothing), for :func:`load_spec` to report with
    the file's other problems.  A name the tournament's first run pinned to a version is
    fine wherever it points now (a folder moved, a bot withdrawn): the run plays that version."""

    def problem(tournament: str, ref: str, base: Path | None) -> str | None:
        try:
            with Store(db, read_only=True) if db.is_file() else Store(":memory:") as store:
                pinned = (store.tournament_spec(tournament) or {}).get("pinned", {})
                if f"entrant:{ref}" in pinned or f"challenger:{ref}" in pinned:
                    return None
                find(store, ref, base)
        except StoreError:
            return None  # the run says what is wrong with the database
        except ValueError as error:
            return str(error)
        return None

    return problem


def _registered(store: Store, found: VersionRow | BotManifest) -> VersionRow:
    return found if isinstance(found, VersionRow) else install(store, found)


@dataclass
class Entrants:
    """The versions a tournament plays, and which version each of its names is pinned to."""

    versions: list[VersionRow]
    challenger: VersionRow | None
    pinned: dict[str, int]
    """``entrant:REF``, ``entry:BOT`` or ``challenger:REF`` -> version id, fixed at the first
    run that met them: later runs play the same programs whatever was registered since."""


def entrants(spec: TournamentSpec, store: Store, notice: Callable[[str], None] = lambda _: None) -> Entrants:
    """The versions playing: the file's entrants, then (if open) those entered with
    ``arena submit``; and the gauntlet's challenger; each name pinned to the version it had
    at the tournament's first run that met it.  Every new name is looked up before any bot
    is registered, so a file naming an unknown bot changes nothing."""
    pinned: dict[str, int] = dict((store.tournament_spec(spec.name) or {}).get("pinned", {}))
    refs: list[tuple[str, str, tuple[str | int, ...]]] = [
        (f"entrant:{ref}", ref, ("entrants", i)) for i, ref in enumerate(spec.entrants)]
    if spec.challenger:
        refs.append((f"challenger:{spec.challenger}", spec.challenger, ("challenger",)))
    looked_up: dict[str, VersionRow | BotManifest] = {}
    unknown: list[str] = []
    for key, ref, where in refs:
        if key not in pinned:
            try:
                looked_up[key] = _find(store, spec, ref, *where)
            except RunError as error:  # every unknown name at once
                unknown.append(str(error))
    if unknown:
        raise RunError("\n".join(unknown))
    chosen: dict[str, VersionRow] = {}
    for key, ref, _ in refs:
        if key in pinned:
            chosen[key] = _pinned(store, spec, key, ref, pinned[key], notice)
        else:
            chosen[key] = _registered(store, looked_up[key])
    if spec.open:
        for name in store.entries(spec.name):
            key = f"entry:{name}"
            if key in pinned:
                chosen[key] = _pinned(store, spec, key, name, pinned[key], notice)
            elif (latest := store.latest(name)) is not None:
                chosen[key] = latest
    found = {version.id: version for version in chosen.values()}
    challenger = chosen.get(f"challenger:{spec.challenger}")
    if len(found) < 2:
        raise RunError(f"{spec.locate('entrants')}: a tournament needs at least two bots, it has {len(found)}")
    return Entrants(list(found.values()), challenger, {key: version.id for key, version in chosen.items()})


def _pinned(store: Store, spec: TournamentSpec, key: str, ref: str, version_id: int,
            notice: Callable[[str], None]) -> VersionRow:
    """The version ``key`` was pinned to, saying so if ``ref`` now means another."""
    version = store.version(version_id)
    now: VersionRow | BotManifest | None
    try:
        now = find(store, ref, spec.source.parent if spec.source else None)
    except ValueError:
        now = None
    changed = (isinstance(now, VersionRow) and now.id != version.id) or (
        isinstance(now, BotManifest) and now.folder is not None and content_hash(now.folder) != version.hash)
    if changed:
        notice(f"{ref} plays as {version.label} ({version.short}), the version this tournament first met; "
               "it has changed since, and a tournament keeps its entrants: give it a new name to play the new one")
    return version


def _job(spec: TournamentSpec, table: Table, own_time: Mapping[int, TimeControl]) -> TableJob:
    return TableJob(
        id=table.id, variant=table.variant, options=table.options,
        bots=[BotRef(v.bot, v.path, own_time.get(v.id)) for v in table.versions],
        matches=list(table.matches),
        time=spec.time, policy=spec.policy, limits=spec.limits,
    )


def _record(spec: TournamentSpec, table: Table, played: Played) -> MatchRecord:
    match = next(m for m in table.matches if m.id == played.id)
    faults = [0] * len(match.seats)
    for fault in played.faults:
        faults[fault["seat"]] += 1
    seats = tuple(
        SeatRecord(table.versions[index].id, played.outcome.placements[seat], played.outcome.scores[seat], faults[seat],
                   played.seat_decisions[seat], played.seat_think_s[seat])
        for seat, index in enumerate(match.seats)
    )
    return MatchRecord(
        id=played.id, tournament=spec.name, seq=match.seq, variant=table.variant, options=table.options,
        seed=0, seats=seats, reason=played.outcome.reason, rounds=played.outcome.rounds, decisions=played.decisions,
        faults=played.faults, sandbox=played.sandbox, duration_s=played.duration_s, log=played.log, deal=match.deal,
    )


def _check_reachable(tables: Sequence[Table]) -> None:
    """RunError unless the bots' users (the sandbox's ``uid`` layer) can reach every bot copy:
    otherwise every match would record start-up faults that are no bot's fault."""
    for path in sorted({v.path for t in tables for v in t.versions if v.path}):
        closed = closed_to_others(Path(path))
        if closed is not None:
            raise RunError(
                f"bots run as unprivileged users (sandbox layer uid), who cannot enter {closed} to reach the bot "
                f"copy {path}; keep the database in a folder every user can enter (`chmod o+x {closed}`, or "
                "--db elsewhere)")


async def run_tables(
    spec: TournamentSpec, store: Store, tables: Sequence[Table], executor: Executor, observer: Observer,
    summary: RunSummary, own_time: Mapping[int, TimeControl] | None = None,
) -> None:
    """Play ``tables`` on ``executor``, storing each match as it ends; the versions in
    ``own_time`` play under their own time control."""
    by_id = {t.id: t for t in tables}
    warned: set[str] = set()

    def ready(message: Ready) -> None:
        missing = [layer for layer in spec.require if layer not in message.sandbox]
        if missing:
            reasons = "; ".join(f"{layer}: {message.why_not.get(layer, 'inactive')}" for layer in missing)
            raise RunError(f"refusing to run bots without the required sandbox layer(s) ({reasons}); "
                           "`arena doctor` explains")
        # a cluster worker checks its own bot cache; bubblewrap reaches any folder
        if executor.local_paths and "uid" in message.sandbox and "bwrap" not in message.sandbox:
            _check_reachable(tables)
        summary.sandbox = message.sandbox
        optional = [layer for layer in LAYERS if layer not in message.sandbox and layer not in warned]
        if optional:
            warned.update(optional)
            observer.notice(f"bots run without sandbox layer(s) {', '.join(optional)}; `arena doctor` says why")

    async def played(message: Played) -> None:
        record = _record(spec, by_id[message.table], message)
        if store.record(record):
            summary.played += 1
            summary.faults += len(record.faults)
            summary.decisions += record.decisions
            observer.played(record)

    def failed(job: TableJob, why: str) -> None:
        summary.given_up[job.id] = len(job.matches)
        observer.notice(f"table {job.id}: {counted(len(job.matches), 'match')} not played: {why}")

    await executor.run([_job(spec, t, own_time or {}) for t in tables], ready, played, failed)


def play(function: Callable[..., Awaitable[None]], *args: object) -> None:
    """``trio.run(function, *args)``, with the one error that stopped it unwrapped from
    trio's exception groups (Ctrl+C stays KeyboardInterrupt)."""
    try:
        trio.run(function, *args)
    except BaseExceptionGroup as group:
        interrupted, rest = group.split(KeyboardInterrupt)
        if interrupted is not None:
            raise KeyboardInterrupt from None
        ours, _ = group.split((RunError, StoreError))
        if ours is None:
            raise
        first: BaseException = ours
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


_TOLD_APART: weakref.WeakValueDictionary[int, Observer] = weakref.WeakValueDictionary()
"""Observers already told that authors are kept apart, by id (while they live)."""


def _tell_apart(observer: Observer) -> None:
    """Say once per observer that authors are kept apart: a run that grows (``[settle]``,
    ``arena test``) calls :func:`run_tournament` once a round with the same observer."""
    try:
        if _TOLD_APART.get(id(observer)) is observer:
            return
        _TOLD_APART[id(observer)] = observer
    except TypeError:  # an observer that cannot be referred to weakly is told every round
        pass
    (observer.info if isinstance(observer, Informed) else observer.notice)(
        "authors apart: no table seats two bots of one author (authors_apart, docs/TOURNAMENTS.md)")


def _check_filled(spec: TournamentSpec, tables: Sequence[Table], bots: int, observer: Observer) -> None:
    """Say which tables of the file no group of entrants fills; RunError if none is filled
    (a tournament of no matches would look complete)."""
    filled = {(t.variant, len(t.versions)) for t in tables}
    empty = [f"{p.variant.name} for {n}" for p in spec.variants for n in p.tables if (p.variant.name, n) not in filled]
    if not tables:
        raise RunError(f"{spec.locate('variant')}: no table can be filled by these {bots} bots (tables of "
                       f"{', '.join(empty)}); add entrants, or check the variants their bot.toml lists")
    if empty:
        observer.notice(f"no tables of {', '.join(empty)}: too few of the entrants play them")


def _fit_concurrency(spec: TournamentSpec, workers: int, concurrency: int, observer: Observer) -> int:
    """Fewer tables at once if the sandbox's bot users would run out."""
    users = len(UidPool()) if os.geteuid() == 0 else 0
    seats = max(max(p.tables) for p in spec.variants)
    if users and workers * concurrency * seats > users:
        fitted = max(1, users // (workers * seats))
        observer.notice(f"{users} sandbox users allow {fitted} table(s) at once per worker, not {concurrency}; "
                        "create more with ARENA_BOT_USERS=N scripts/setup-sandbox")
        return fitted
    return concurrency


def make_executor(spec: TournamentSpec, observer: Observer, *, workers: int | None = None,
                  concurrency: int | None = None) -> Executor:
    """Where ``spec`` plays: on its Dask cluster if it names one (``cluster``), else on local
    referee workers (``workers``/``concurrency`` override the file's).  Dask is imported
    only for a cluster."""
    if spec.cluster:
        return cluster_executor(spec.cluster, spec.require, observer)
    local = LocalExecutor(workers if workers is not None else spec.workers, concurrency or spec.concurrency)
    local.concurrency = _fit_concurrency(spec, local.workers, local.concurrency, observer)
    return local


def cluster_executor(address: str, require: Sequence[str], observer: Observer) -> Executor:
    """An executor for the Dask cluster whose scheduler is at ``address`` (not connected
    yet), telling ``observer`` where the cluster's dashboard is."""
    from arena.tournament.cluster import DaskExecutor

    return DaskExecutor(address, require, observer.info if isinstance(observer, Informed) else observer.notice)


def tournament_key(store: Store, name: str, given: bytes | None = None) -> bytes:
    """The secret key tournament ``name`` deals from: the one stored at its first run, else
    ``given`` (to deal a tournament again elsewhere) or a fresh one, stored now."""
    stored = store.deal_key(name)
    if stored is not None:
        if given is not None and given != stored:
            raise RunError(f"tournament {name!r} already deals from its own key in {store.path}; the key given "
                           "differs (`arena key` shows the stored one; give the other to a new tournament or --db)")
        return stored
    if store.count(name):
        raise RunError(f"tournament {name!r} in {store.path} was started by an older arena whose deals came from "
                       "a public seed; give the tournament a new name (or another --db) to play it afresh")
    key = given if given is not None else new_key()
    store.save_deal_key(name, key)
    return key


def run_tournament(
    spec: TournamentSpec,
    store: Store,
    observer: Observer,
    *,
    workers: int | None = None,
    concurrency: int | None = None,
    executor: Executor | None = None,
    key: bytes | None = None,
) -> RunSummary:
    """Run (or resume) ``spec``: play every scheduled match not yet stored, then rate.
    Deals come from the tournament's secret key (``key`` at its first run, if given)."""
    if spec.mode == "ladder":
        raise RunError(f"{spec.locate('mode')}: {spec.name!r} is a ladder, played without end: `arena ladder "
                       f"{spec.source or spec.name}` plays it")
    with lock(store, spec.name):
        playing = entrants(spec, store, observer.notice)
        versions, challenger = playing.versions, playing.challenger
        if spec.seed is not None:
            observer.notice(f"{spec.locate('seed')}: `seed` is ignored: deals come from the tournament's secret "
                            "key, kept in the results database (`arena key --help`)")
        tables = schedule(spec, versions, tournament_key(store, spec.name, key), challenger)
        _check_filled(spec, tables, len(versions), observer)
        if authors_apart(spec, versions):
            _tell_apart(observer)
        total = sum(len(t.matches) for t in tables)
        store.check()  # a damaged page is found now, not after the run has claimed anything
        finished = store.finished_ids(spec.name)
        if finished:
            _check_same_play(spec, store.tournament_spec(spec.name) or {}, len(finished))
        todo = [rest for t in tables if (rest := t.remaining(finished)).matches]
        summary = RunSummary(spec.name, total, total - sum(len(t.matches) for t in todo))
        store.save_tournament(spec.name, {**spec.to_dict(), "versions": [v.id for v in versions],
                                          "pinned": playing.pinned})
        owned = executor is None
        if executor is None:
            executor = make_executor(spec, observer, workers=workers, concurrency=concurrency)
        observer.started(total, summary.already, getattr(executor, "workers", 1), summary.sandbox)
        try:
            if todo:
                own_time = {playing.pinned[f"entrant:{ref}"]: control for ref, control in spec.entrant_time.items()}
                play(run_tables, spec, store, todo, executor, observer, summary, own_time)
        finally:
            if owned:
                executor.close()
        ratings(store, spec.name)
        for plan in spec.variants:
            ratings(store, spec.name, plan.variant.name)
        summary.stored = len({m.id for t in tables for m in t.matches} & store.finished_ids(spec.name))
        return summary
