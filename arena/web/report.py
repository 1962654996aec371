"""``arena report``: the server's pages written as static files.

Every page the server would show for the chosen competitions (all, or ``-t``) is rendered
once with relative links and its data embedded, and the static folder is copied beside
them: the folder opens from ``file://`` and from any static host, with no server.  Only
pages of what the report holds are written, so every link in it leads somewhere in it.
The match pages, most of a report (each plays its match again for the replay), are
written by a process per core, and by this one once the other pages are written.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.errors import ArenaError
from arena.tournament.views import pick_tournament, variants_played
from arena.web import pages
from arena.web.botpage import bot_names
from arena.web.readonly import ReadOnlyStore
from arena.web.render import render
from arena.web.site import STATIC_DIR

__all__ = ["ReportError", "Written", "write_report"]

POOLED: Final = 32
"""From this many match pages on, they are written by a process per core (a spawned process
takes about half a second to start)."""
CHUNKS: Final = 16
"""Chunks of match pages per process: small enough that this process, done with the other
pages, takes the ones no process has started, and one slow chunk holds up no one."""


class ReportError(ArenaError):
    """The report cannot be written where asked."""


@dataclass(frozen=True)
class Written:
    """What a report holds."""

    index: Path
    pages: int
    competitions: list[str]


def write_report(db: Path, out: Path, tournament: str | None = None,
                 progress: Callable[[str], None] = lambda _: None) -> Written:
    """Write the pages of every competition in ``db`` (or of ``tournament``) under ``out``."""
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out} is a file; --out names a folder (created if missing)")
    root = out.resolve()
    count = 0
    with ReadOnlyStore(db) as store, ExitStack() as stack:
        if tournament is None:
            chosen = sorted(set(store.played()) | {name for name, _, _ in store.tournaments()})
        else:
            chosen = [pick_tournament(store, tournament)]
        only = None if tournament is None else set(chosen)
        ids = [m.id for name in chosen for m in store.matches(name)]
        progress(f"{len(ids)} match pages")
        workers = os.cpu_count() or 1
        chunks: list[tuple[Future[int], Sequence[str]]] = []
        if len(ids) >= POOLED and workers > 1:
            pool = stack.enter_context(ProcessPoolExecutor(workers, mp_context=_start_method()))
            stack.callback(pool.shutdown, cancel_futures=True)  # a failure or Ctrl+C leaves the rest unwritten
            step = -(-len(ids) // (CHUNKS * workers))
            chunks = [(pool.submit(_write_matches, db, root, ids[k:k + step]), ids[k:k + step])
                      for k in range(0, len(ids), step)]
        for page in _pages(store, chosen, only, progress):  # while the pool starts and writes matches
            _write(root, page)
            count += 1
        if not chunks:
            count += _write_matches(db, root, ids)
        for chunk, part in reversed(chunks):  # the last chunks, which no process has started, are written here
            if not chunk.cancel():
                break  # a process has started this one, and so every one before it
            count += _write_matches(db, root, part)
        count += sum(chunk.result() for chunk, _ in chunks if not chunk.cancelled())
        known = set(ids)  # matches stored while the pages were written (a run beside) have links too
        count += _write_matches(db, root, [m.id for name in chosen for m in store.matches(name) if m.id not in known])
    shutil.copytree(STATIC_DIR, root / "static", dirs_exist_ok=True)
    return Written(root / "index.html", count, chosen)


def _start_method() -> multiprocessing.context.BaseContext:
    """Forked, which costs nothing, where this process runs no other thread (the command
    line); spawned otherwise, since a fork copies the locks other threads may hold."""
    return multiprocessing.get_context("fork" if threading.active_count() == 1 else "spawn")


def _write(root: Path, page: pages.Page) -> None:
    target = (root / page.path).resolve()
    if not target.is_relative_to(root):  # site paths are slugs: this cannot happen
        raise ReportError(f"page path {page.path!r} leads outside {root}")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(page, relative=True), encoding="utf-8")


def _write_matches(db: Path, root: Path, ids: Sequence[str]) -> int:
    """Write the pages of matches ``ids`` (in a worker process); how many."""
    with ReadOnlyStore(db) as store:
        for match_id in ids:
            _write(root, pages.match(store, match_id))
    return len(ids)


def _pages(store: ReadOnlyStore, chosen: list[str], only: set[str] | None,
           progress: Callable[[str], None]) -> Iterator[pages.Page]:
    yield pages.index(store, only)
    for name in chosen:
        progress(f"competition {name}")
        yield pages.tournament(store, name)
        for variant in variants_played(store, name):
            yield pages.tournament(store, name, variant)
    for bot in bot_names(store, only):
        yield pages.bot(store, bot, only)
    yield pages.matches(store, only)
