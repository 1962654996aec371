"""A worker's cached bot copy runs only what was verified: bytecode forged behind a
source's checked hash, or a file added beside the sources, never runs in a fresh worker
process (each :class:`BotCache` here stands for one: a process checks a copy when it
first uses it)."""

from __future__ import annotations

import importlib.util
import marshal
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from tourney import copy_bot, scratch

from arena.botspec import BOTS_DIR
from arena.deals import deal_key
from arena.referee import FaultPolicy, TimeControl
from arena.sandbox import Sandbox
from arena.tournament.botcache import BotCache, BotCacheError, pack
from arena.tournament.jobs import BotRef, MatchSpec, Played, TableJob
from arena.tournament.registry import content_hash
from arena.tournament.worker import _play_table  # the table loop a cluster task plays

MARKER = "forged bytecode ran"
FORGED = f"import sys\nsys.stderr.write({MARKER!r} + '\\n')\nsys.stderr.flush()\nraise SystemExit(7)\n"
"""What the forged bytecode does: say so and stop the bot (its source plays a match)."""


@pytest.fixture
def folder() -> Iterator[Path]:
    yield from scratch()  # sandboxed bots run as other users: they must reach the cache


class Bot:
    """The threshold bot as a cluster run sends it: its files, their hash, a fetch counter."""

    def __init__(self, folder: Path) -> None:
        self.source = copy_bot(BOTS_DIR / "threshold", folder / "threshold")
        self.digest = content_hash(self.source)
        self.fetched = 0

    def fetch(self) -> bytes:
        self.fetched += 1
        return pack(self.source)


def forge(source: Path, pyc: Path) -> None:
    """Write at ``pyc`` other code behind the header of the .pyc compiled from ``source``
    (flags and the source's hash): Python's checked-hash test passes it."""
    header = importlib.util.MAGIC_NUMBER + (3).to_bytes(4, "little") + importlib.util.source_hash(source.read_bytes())
    assert pyc.read_bytes()[:16] == header, "the copy's bytecode is checked against its source's hash"
    pyc.parent.chmod(0o755)
    pyc.unlink()
    pyc.write_bytes(header + marshal.dumps(compile(FORGED, str(source), "exec")))


def play(copy: Path) -> list[dict[str, Any]]:
    """Play one scat match in this machine's sandbox, the copy against the random bot, as
    a cluster worker plays a table; the faults of the match."""
    job = TableJob(id="cached", variant="scat", options={}, bots=[BotRef("threshold", str(copy)),
                                                                   BotRef("random", None)],
                   matches=[MatchSpec("cached-0", 0, deal_key(b"c" * 32, 0), (0, 1), 0, 0, "m0")],
                   time=TimeControl(), policy=FaultPolicy())
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    trio.run(_play_table, job, trio.run(Sandbox.probe), send)
    played = [m for m in sent if isinstance(m, Played)]
    assert len(played) == 1
    return played[0].faults


def test_bytecode_forged_behind_its_sources_hash_is_never_run(folder: Path) -> None:
    bot = Bot(folder)
    copy = BotCache(folder / "cache").path(bot.digest, bot.fetch)
    pyc = Path(importlib.util.cache_from_source(str(copy / "bot.py")))
    forge(copy / "bot.py", pyc)
    forged = pyc.read_bytes()
    # the control: Python itself runs the forged bytecode, its header matching the source
    imported = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(copy)!r}); import bot"],
                              capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                              check=False)
    assert imported.returncode == 7 and MARKER in imported.stderr

    assert BotCache(folder / "cache").path(bot.digest, bot.fetch) == copy  # a fresh worker process
    faults = play(copy)
    assert not any(MARKER in str(fault) for fault in faults), faults
    assert faults == []
    assert pyc.read_bytes() != forged
    compiled = marshal.loads(pyc.read_bytes()[16:])
    assert compiled == compile((copy / "bot.py").read_bytes(), str(copy / "bot.py"), "exec", dont_inherit=True)
    assert content_hash(copy) == bot.digest and not os.stat(pyc.parent).st_mode & 0o222, "still read-only"


@pytest.mark.parametrize(("added", "replaced"), [
    ("random.pyc", True), (".git/config", True), ("sitecustomize.py", True), ("shadow.pth", True), ("lib/", True),
    ("__pycache__/json.cpython-311.pyc", False),
])
def test_a_file_added_to_a_cached_copy_is_caught(folder: Path, added: str, replaced: bool) -> None:
    """A sourceless ``random.pyc`` beside the bot would be imported in place of the
    standard library's (the bot's folder comes first on ``sys.path``), though the hash of
    the sources does not cover it: a copy that holds anything but its files and their
    bytecode folders is damaged, and fetched again.  What a bytecode folder holds is
    compiled afresh (its other files are removed)."""
    bot = Bot(folder)
    copy = BotCache(folder / "cache").path(bot.digest, bot.fetch)
    extra = copy / added
    for parent in [copy, *(p for p in extra.parents if p.is_relative_to(copy))]:
        if parent.is_dir():
            parent.chmod(0o755)
    if added.endswith("/"):
        extra.mkdir()
    else:
        extra.parent.mkdir(exist_ok=True)
        sourceless = importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(compile(FORGED, added, "exec"))
        extra.write_bytes(sourceless if added.endswith(".pyc") else b"import os\n")
    assert BotCache(folder / "cache").path(bot.digest, bot.fetch) == copy and bot.fetched == 1 + replaced
    assert not extra.exists() and content_hash(copy) == bot.digest


def test_a_damaged_copy_that_cannot_be_removed_is_refused_not_run(folder: Path) -> None:
    """Unpacking beside what is left would find the folder taken and take it for another
    process's fresh copy: the worker refuses the bot instead."""
    bot = Bot(folder)
    copy = BotCache(folder / "cache").path(bot.digest, bot.fetch)
    copy.chmod(0o755)
    stuck = copy / "random.pyc"
    stuck.write_bytes(b"")
    if subprocess.run(["chattr", "+i", stuck], capture_output=True, check=False).returncode != 0:
        pytest.skip("no immutable files here (chattr +i, as root on a filesystem that has them)")
    try:
        with pytest.raises(BotCacheError, match="cannot remove its damaged copy"):
            BotCache(folder / "cache").path(bot.digest, bot.fetch)
    finally:
        subprocess.run(["chattr", "-i", stuck], check=True)
