"""No signals and no memory through the page cache.

Bots share no writable place, but they read the same files: a page one bot brings into the
page cache answers another's read in about a microsecond instead of a hundred, so a bot
could tell its partner, or its own next process generation (the next seat rotation of a
duplicate deal: a deck is about 226 bits), which pages it read.  Two defences, each tested
alone: under the ``resident`` layer everything a bot reads is a copy in memory, always
cached; and the file pages a bot's processes read first are charged to its memory group,
whose removal drops them from the cache.
"""

from __future__ import annotations

import ctypes
import mmap
import os
from pathlib import Path

from hostile import assert_clean, assert_nothing_left, bot_copy, needs, only, play, random_bot

from arena.referee import Bot, BotFault
from arena.sandbox import Sandbox

PAGES = 256


def cached_pages(path: str) -> int:
    """How many pages of ``path`` are in the page cache, by ``mincore``, which loads nothing
    (a read that may not wait would start reading ahead)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    with open(path, "rb") as handle:
        view = mmap.mmap(handle.fileno(), PAGES * 4096, flags=mmap.MAP_PRIVATE,
                         prot=mmap.PROT_READ | mmap.PROT_WRITE)  # writable for ctypes; never written
        try:
            pages = (ctypes.c_char * (PAGES * 4096)).from_buffer(view)
            vector = ctypes.create_string_buffer(PAGES)
            try:
                if libc.mincore(ctypes.addressof(pages), PAGES * 4096, vector) != 0:
                    raise OSError(ctypes.get_errno(), "mincore")
            finally:
                del pages
            return sum(byte & 1 for byte in vector.raw)
        finally:
            view.close()


def test_pages_a_bot_brought_into_the_page_cache_leave_with_it(box: Sandbox) -> None:
    """Without the resident copies (the bot reads its folder on disk)."""
    needs(box, "cgroup")
    box = only(box, *(layer for layer in box.active if layer != "resident"))
    reader = bot_copy("page-reader", {"data.bin": ""})
    assert reader.folder is not None
    data = str(reader.folder / "data.bin")
    with open(data, "wb") as out:
        out.write(os.urandom(PAGES * 4096))
        out.flush()
        os.fsync(out.fileno())
        os.posix_fadvise(out.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    assert cached_pages(data) == 0, "the test could not start from a file out of the cache"
    played = play(box, [reader, random_bot()], reporters=[0])
    assert_clean(played)
    assert_nothing_left(played)
    assert played.report(0) == {"pages_read": PAGES}
    assert cached_pages(data) == 0, "the bot's reads outlived its processes in the page cache"


def _mounts_seen_by(bot: Bot | BotFault) -> dict[str, str]:
    """Mount point -> file system type, as the bot's own mount namespace has them."""
    assert isinstance(bot, Bot) and bot.sandboxed.cgroup is not None
    ours = os.readlink("/proc/self/ns/mnt")
    for pid in sorted(bot.sandboxed.cgroup.pids()):
        try:
            if os.readlink(f"/proc/{pid}/ns/mnt") == ours:
                continue
            lines = Path(f"/proc/{pid}/mountinfo").read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        mounts = {}
        for line in lines:
            fields, _, rest = line.partition(" - ")
            mounts[fields.split()[4]] = rest.split()[0]
        return mounts
    raise AssertionError("no process of the bot in a mount namespace of its own")


def test_everything_a_bot_reads_is_a_copy_in_memory(box: Sandbox) -> None:
    """``/usr``, the arena package and its libraries, and the bot's folder are bound from
    tmpfs copies (never evicted: nothing to load, evict or time), not from the disk."""
    needs(box, "resident", "cgroup")
    seen: dict[str, str] = {}
    played = play(box, [bot_copy("page-reader", {"data.bin": "x" * 8192}), random_bot()], reporters=[0],
                  before_match=lambda bots: seen.update(_mounts_seen_by(bots[0])))
    assert_clean(played)
    assert_nothing_left(played)
    read = {point: kind for point, kind in seen.items()
            if point in ("/usr", "/bot") or point.startswith("/run/arena/")}
    assert set(read) >= {"/usr", "/bot", "/run/arena/arena", "/run/arena/site-0"}, seen
    assert set(read.values()) == {"tmpfs"}, f"read from disk: {read}"


def test_the_copies_keep_their_files_times_so_that_bytecode_stays_current(box: Sandbox) -> None:
    """Bytecode records its source's time: copies with new times made every bot start
    compile the standard library and the arena again (13 ms more per start)."""
    needs(box, "resident")
    assert box.resident is not None
    module = Path("/usr/lib") / Path(box.python).resolve().name / "os.py"  # the bots' standard library
    copy = box.resident.usr / module.relative_to("/usr")
    assert copy.stat().st_mtime_ns == module.stat().st_mtime_ns
    package = Path(__file__).resolve().parents[2] / "arena" / "sdk.py"
    assert (box.resident.package / "sdk.py").stat().st_mtime_ns == package.stat().st_mtime_ns
