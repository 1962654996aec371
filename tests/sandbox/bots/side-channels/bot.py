"""On its first decision: tries each way two bots at one table could signal each other
without a writable file they share, and each way of watching the machine's load, then
reports the outcomes and plays on legally.

- file locks on a file it can only read (``flock``, ``fcntl`` record locks, OFD locks,
  leases), change notifications (inotify, ``F_NOTIFY``), page-cache probing (``mincore``);
- futexes on a shared file's page: a wait that is not private (which must not sleep where
  a thread's exit could wake it), a private one (which sleeps), a shared wake, and the
  newer ``futex_wait`` and ``futex_waitv`` calls;
- memory hidden from the kernel (``memfd_secret``) and the machine's mount ids
  (``statmount``, ``listmount``, ``statx`` and ``name_to_handle_at`` asking for them);
- a new user namespace through a raw ``clone`` (``unshare`` is filtered by name), and a
  thread (which must keep working: the C library falls back from ``clone3`` to ``clone``);
- widening its CPU affinity to every core;
- the machine-wide ``/proc`` files: load, CPU and memory counters, pressure, interrupts;
- its own ``/proc`` files that count who else maps its pages (``smaps``, ``pagemap``...)
  or show machine-wide numbers (``fdinfo``), also through its thread's folder;
- the page cache of a shared file: evicting its pages (``posix_fadvise``, ``madvise``),
  loading them ahead (``readahead``, ``MADV_WILLNEED``, ``MADV_POPULATE_READ``) and probing
  residency (``cachestat``, ``preadv2``/``pwritev2`` with ``RWF_NOWAIT``), the ``madvise``
  advice also through ``process_madvise``;
- the machine's counters outside ``/proc``: ``sysinfo`` (load, processes, free and shared
  memory, uptime) and ``statfs`` (the host disk's free space);
- the command line of the namespace's first process, which must show no host path.
"""

import ctypes
import errno
import fcntl
import json
import mmap
import os
import random
import signal
import struct
import sys
import threading

from arena.sdk import hookimpl

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
SHARED = "/usr/bin/env"  # any file every bot can read
SYS_CLONE, SYS_CACHESTAT, SYS_PIDFD_OPEN, SYS_PROCESS_MADVISE = 56, 451, 434, 440  # x86_64
SYS_MADVISE, SYS_FCNTL, SYS_SET_ROBUST_LIST = 28, 72, 273
SYS_FUTEX, SYS_FUTEX_WAITV, SYS_FUTEX_WAIT = 202, 449, 455
SYS_MEMFD_SECRET, SYS_STATMOUNT, SYS_LISTMOUNT, SYS_STATX, SYS_NAME_TO_HANDLE_AT = 447, 457, 458, 332, 303
STATX_MNT_ID_UNIQUE, AT_HANDLE_MNT_ID_UNIQUE = 0x4000, 0x001
FUTEX_WAIT, FUTEX_WAKE, FUTEX_PRIVATE_FLAG = 0, 1, 128
HIGH = 1 << 32  # a high bit the kernel ignores in an int argument: a filter comparing 64 bits does not
MADV = {"cold": 20, "pageout": 21, "willneed": 3, "remove": 9, "populate_read": 22}
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
F_OFD_SETLK, F_SETLEASE, F_NOTIFY, DN_ACCESS = 37, 1024, 1026, 1
rng = random.Random(3)
attacked = False


def outcome(action) -> str:  # type: ignore[no-untyped-def]
    try:
        value = action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, f"{type(error).__name__}: {error}")
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"
    return "ok" if value is None else f"ok: {value}"


def check(result: int) -> int:
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def with_shared(action):  # type: ignore[no-untyped-def]
    def run() -> object:
        fd = os.open(SHARED, os.O_RDONLY)
        try:
            return action(fd)
        finally:
            os.close(fd)
    return run


def ofd_lock(fd: int) -> None:
    fcntl.fcntl(fd, F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 1, 0))


def ofd_lock_high(fd: int) -> int:
    lock = ctypes.create_string_buffer(struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 1, 0))
    return check(libc.syscall(SYS_FCNTL, fd, ctypes.c_long(HIGH | F_OFD_SETLK), lock))


def statx_mount_id() -> int:
    """The unique (machine-wide, counted) mount id of ``/`` through ``statx``."""
    buffer = ctypes.create_string_buffer(256)
    check(libc.syscall(SYS_STATX, -100, b"/", 0, STATX_MNT_ID_UNIQUE, buffer))
    return int.from_bytes(buffer.raw[144:152], "little")  # stx_mnt_id


def robust_list() -> int:
    head = (ctypes.c_void_p * 3)()
    head[0] = ctypes.addressof(head)  # an empty list: it points to itself
    return check(libc.syscall(SYS_SET_ROBUST_LIST, ctypes.byref(head), ctypes.sizeof(head)))


class Timespec(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_long), ("nanoseconds", ctypes.c_long)]


def futex(op: int):  # type: ignore[no-untyped-def]
    """``op`` at the first word of a shared file's page: a wait (its word's value, 1 ms at
    most) or a wake of one waiter (how many it woke)."""
    def run(fd: int) -> int:
        word = mapped(fd)
        value = ctypes.c_uint32.from_address(word).value
        timeout = Timespec(0, 1_000_000)
        return check(libc.syscall(SYS_FUTEX, ctypes.c_void_p(word), op, ctypes.c_uint32(value if op & 127 == FUTEX_WAIT
                                  else 1), ctypes.byref(timeout), None, 0))
    return with_shared(run)


def raw_clone_newuser() -> str:
    """A child in a new user namespace (it exits at once); the parent reaps it."""
    pid = check(libc.syscall(SYS_CLONE, CLONE_NEWUSER | signal.SIGCHLD, None, None, None, None))
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return "child in a new user namespace"


def raw_clone_newnet() -> str:
    pid = check(libc.syscall(SYS_CLONE, CLONE_NEWNET | signal.SIGCHLD, None, None, None, None))
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return "child in a new network namespace"


def thread_runs() -> str:
    done = []
    worker = threading.Thread(target=lambda: done.append(1))
    worker.start()
    worker.join()
    return f"{len(done)} thread ran"


def widen_affinity() -> str:
    before = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    return f"{before} -> {sorted(os.sched_getaffinity(0))}"


def inotify() -> None:
    fd = check(libc.inotify_init1(0))
    try:
        check(libc.inotify_add_watch(fd, b"/usr/bin", 0x20))  # IN_OPEN
    finally:
        os.close(fd)


def dnotify() -> None:
    fd = os.open("/usr/bin", os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.fcntl(fd, F_NOTIFY, DN_ACCESS)
    finally:
        os.close(fd)


def page_cache() -> None:
    """Whether the pages of a shared file are in the page cache (another bot may have read it)."""
    with open(SHARED, "rb") as handle:
        view = mmap.mmap(handle.fileno(), 4096, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        try:
            page = (ctypes.c_char * 4096).from_buffer(view)
            vector = ctypes.create_string_buffer(1)
            libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
            try:
                check(libc.mincore(ctypes.addressof(page), 4096, vector))
            finally:
                del page
        finally:
            view.close()


def fadvise(advice: int):  # type: ignore[no-untyped-def]
    return with_shared(lambda fd: os.posix_fadvise(fd, 0, 4096, advice))


def readahead(fd: int) -> None:
    check(libc.readahead(fd, ctypes.c_int64(0), ctypes.c_size_t(4096)))


def cachestat(fd: int) -> str:
    """Counts of the file's cached, dirty and evicted pages (Linux 6.5+)."""
    span, stats = (ctypes.c_uint64 * 2)(0, 0), (ctypes.c_uint64 * 5)()
    check(libc.syscall(SYS_CACHESTAT, fd, span, stats, 0))
    return f"{list(stats)}"


def nowait_read(fd: int) -> int:
    """Reads only if the page is cached (EAGAIN otherwise): a residency probe."""
    return os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)


def nowait_write() -> int:
    with open("nowait", "wb") as handle:
        return os.pwritev(handle.fileno(), [b"x"], 0, os.RWF_NOWAIT)


def madvise(advice: int):  # type: ignore[no-untyped-def]
    def run(fd: int) -> None:
        view = mmap.mmap(fd, 4096, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
        try:
            view.madvise(advice, 0, 4096)
        finally:
            view.close()
    return with_shared(run)


def mapped(fd: int) -> int:
    """The address of the file's first page, mapped read-only and shared by a raw ``mmap``."""
    return int(libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0))


def process_madvise(advice: int):  # type: ignore[no-untyped-def]
    """The same advice through ``process_madvise`` on its own pidfd (another way to it)."""
    def run(fd: int) -> int:
        pidfd = check(libc.syscall(SYS_PIDFD_OPEN, os.getpid(), 0))
        try:
            span = (ctypes.c_void_p * 2)(mapped(fd), 4096)  # one struct iovec
            return check(libc.syscall(SYS_PROCESS_MADVISE, pidfd, ctypes.byref(span), 1, advice, 0))
        finally:
            os.close(pidfd)
    return with_shared(run)


def madvise_high(advice: int):  # type: ignore[no-untyped-def]
    """``madvise`` by its raw call, the advice with a high bit set."""
    return with_shared(lambda fd: check(libc.syscall(SYS_MADVISE, ctypes.c_void_p(mapped(fd)), 4096,
                                                     ctypes.c_long(HIGH | advice))))


class SysInfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3), ("totalram", ctypes.c_ulong),
                ("freeram", ctypes.c_ulong), ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong), ("procs", ctypes.c_ushort),
                ("pad", ctypes.c_char * 256)]


def sysinfo() -> str:
    info = SysInfo()
    check(libc.sysinfo(ctypes.byref(info)))
    return f"load {info.loads[0] / 65536:.2f}, {info.procs} processes, uptime {info.uptime} s"


def read(path: str) -> str:
    with open(path) as handle:
        return handle.read(400)


def attack() -> dict[str, object]:
    return {
        "flock": outcome(with_shared(lambda fd: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))),
        "fcntl_lock": outcome(with_shared(lambda fd: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 0))),
        "ofd_lock": outcome(with_shared(ofd_lock)),
        "ofd_lock_high_bit": outcome(with_shared(ofd_lock_high)),
        "robust_list": outcome(robust_list),
        "futex_shared_wait": outcome(futex(FUTEX_WAIT)),
        "futex_private_wait": outcome(futex(FUTEX_WAIT | FUTEX_PRIVATE_FLAG)),
        "futex_shared_wake": outcome(futex(FUTEX_WAKE)),
        "futex_waitv": outcome(lambda: check(libc.syscall(SYS_FUTEX_WAITV, None, 0, 0, None, 0))),
        "futex_wait": outcome(lambda: check(libc.syscall(SYS_FUTEX_WAIT, None, 0, 0, 0, None, 0))),
        "memfd_secret": outcome(lambda: check(libc.syscall(SYS_MEMFD_SECRET, 0))),
        "statmount": outcome(lambda: check(libc.syscall(SYS_STATMOUNT, None, None, 0, 0))),
        "listmount": outcome(lambda: check(libc.syscall(SYS_LISTMOUNT, None, None, 0, 0))),
        "statx_mount_id": outcome(statx_mount_id),
        "handle_mount_id": outcome(lambda: check(libc.syscall(SYS_NAME_TO_HANDLE_AT, -100, b"/", None, None,
                                                              AT_HANDLE_MNT_ID_UNIQUE))),
        "lease": outcome(with_shared(lambda fd: fcntl.fcntl(fd, F_SETLEASE, fcntl.F_RDLCK))),
        "inotify": outcome(inotify),
        "dnotify": outcome(dnotify),
        "mincore": outcome(page_cache),
        "clone_newuser": outcome(raw_clone_newuser),
        "clone_newnet": outcome(raw_clone_newnet),
        "thread": outcome(thread_runs),
        "affinity": outcome(widen_affinity),
        "loadavg": outcome(lambda: read("/proc/loadavg")),
        "stat": outcome(lambda: read("/proc/stat")),
        "meminfo": outcome(lambda: read("/proc/meminfo")),
        "uptime": outcome(lambda: read("/proc/uptime")),
        "pressure": outcome(lambda: read("/proc/pressure/cpu")),
        "interrupts": outcome(lambda: read("/proc/interrupts")),
        "file_nr": outcome(lambda: read("/proc/sys/fs/file-nr")),
        "vmstat": outcome(lambda: read("/proc/vmstat")),
        "own_status": outcome(lambda: read("/proc/self/status")[:20]),
        "own_maps": outcome(lambda: read("/proc/self/maps")[:20]),
        **{f"own_{name}": outcome(lambda name=name: read(f"/proc/self/{name}")[:20])
           for name in ("smaps", "smaps_rollup", "numa_maps")},
        "own_pagemap": outcome(lambda: len(open("/proc/self/pagemap", "rb").read(8))),
        "own_fdinfo": outcome(lambda: os.listdir("/proc/self/fdinfo")),
        "thread_smaps": outcome(lambda: read("/proc/thread-self/smaps")[:20]),
        "task_smaps": outcome(lambda: read(f"/proc/self/task/{os.getpid()}/smaps")[:20]),
        "fadvise_dontneed": outcome(fadvise(os.POSIX_FADV_DONTNEED)),
        "fadvise_willneed": outcome(fadvise(os.POSIX_FADV_WILLNEED)),
        "readahead": outcome(with_shared(readahead)),
        "cachestat": outcome(with_shared(cachestat)),
        "preadv2_nowait": outcome(with_shared(nowait_read)),
        "pwritev2_nowait": outcome(nowait_write),
        "plain_read": outcome(with_shared(lambda fd: len(os.pread(fd, 1, 0)))),
        **{f"madvise_{name}": outcome(madvise(advice)) for name, advice in MADV.items()},
        "process_madvise_pageout": outcome(process_madvise(MADV["pageout"])),
        "madvise_pageout_high_bit": outcome(madvise_high(MADV["pageout"])),
        "madvise_willneed_high_bit": outcome(madvise_high(MADV["willneed"])),
        "process_madvise_willneed": outcome(process_madvise(MADV["willneed"])),
        "sysinfo": outcome(sysinfo),
        "statfs": outcome(lambda: os.statvfs("/usr").f_bfree),
        "fstatfs": outcome(with_shared(lambda fd: os.fstatvfs(fd).f_bfree)),
        "init_cmdline": outcome(lambda: open("/proc/1/cmdline", "rb").read().decode(errors="replace")),
        "environment": outcome(lambda: " ".join(f"{k}={v}" for k, v in sorted(os.environ.items()))),
    }


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(attack()), file=sys.stderr, flush=True)
    return rng.choice(legal)
