"""No memory across process generations through the page cache.

A bot's next process generation (the next seat rotation of a duplicate deal) shares no
writable place with it, but both read the same files: pages a generation brought into the
page cache answer the next one's reads in about a microsecond instead of a hundred, so a
generation could leave a message in which pages it read (a deck is about 226 bits).  The
file pages a bot's processes read first are charged to its memory group, and dropping the
group drops them from the cache: what the next generation finds is what was there before.
"""

from __future__ import annotations

import ctypes
import mmap
import os

from hostile import assert_clean, assert_nothing_left, bot_copy, needs, play, random_bot

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
    needs(box, "cgroup")
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
