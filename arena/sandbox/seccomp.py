"""The seccomp filter bots run under: system calls a card-game bot never needs fail with EPERM.

The filter is compiled once with libseccomp (through ``pyseccomp``) into a BPF program
that bubblewrap installs inside the bot's namespaces (``bwrap --seccomp FD``), after it
has set them up: installed earlier, it would forbid bubblewrap's own ``unshare`` and
``mount``.

Besides the kernel interfaces a bot never needs, it closes the channels two bots could
signal each other through although they share no writable file: file locks (``flock`` and
the ``fcntl`` lock commands need only read access, so two bots could talk by locking a
file under ``/usr``), change notifications (inotify, ``F_NOTIFY``, fanotify see other
processes open shared files), the page cache of shared files (residency probes:
``mincore``, ``cachestat``, ``preadv2``/``pwritev2`` with ``RWF_NOWAIT``; eviction and
load hints: ``fadvise64``, ``readahead``, the ``madvise`` advice of
:data:`MADVISE_DENIED`, ``process_madvise``), the machine's counters (``sysinfo``: load,
processes, free and shared memory; ``statfs``: the host disk's free space), futexes shared
with another process (a futex on a page of a shared file, even one mapped read-only, is
keyed by the file and offset, so a wake told one bot whether another waited there, and a
thread's exit woke another bot's waiter: no wait that is not private sleeps, and no such
wake wakes anyone, :data:`FUTEX_SHARED_WAITS`; runtimes' own locks are private), new
namespaces (a raw ``clone`` with namespace flags; ``clone3``, whose flags a filter cannot
read, answers ENOSYS so the C library falls back to ``clone``), and widening the CPUs a
bot was pinned to (``sched_setaffinity``).  Machine-wide counts a bot could move and
another read are closed too: the kernel's asynchronous I/O events (:data:`AIO_CALLS`),
socket cookies (:data:`SOCKET_COOKIES`), the count of processes in pidfds' inode numbers
(:data:`CLONE_PIDFD`) and same-page merging (``MADV_MERGEABLE``, :data:`PRCTL_DENIED`);
mount ids and secret memory are absent (:data:`ABSENT`, :data:`UNIQUE_MOUNT_IDS`).

The calls refused here are hints and probes: no runtime needs them to start or play
(bots in Python, C, JavaScript and Rust are tested to), and allocators' own ``madvise``
advice (``MADV_DONTNEED``, ``MADV_FREE``, huge pages) stays allowed.
"""

from __future__ import annotations

import errno
import functools
import os
import platform
from typing import Any, Final

__all__ = ["ABSENT", "AIO_CALLS", "CLONE_NAMESPACES", "CLONE_PIDFD", "DENIED", "FCNTL_DENIED", "FUTEX_REFUSED",
           "FUTEX_SHARED_WAITS", "FUTEX_SHARED_WAKES", "MADVISE_DENIED", "PRCTL_DENIED", "RWF_NOWAIT",
           "SOCKET_COOKIES", "UNIQUE_MOUNT_IDS", "available", "bpf_program", "memfd"]

DENIED = (
    # the network and other processes' sockets
    "socket", "connect", "bind", "listen", "accept", "accept4", "sendto", "sendmsg", "sendmmsg",
    # other processes, the kernel, namespaces and mounts
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "fsopen", "fsmount", "move_mount",
    "open_tree", "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "quotactl", "syslog", "personality",
    # covert channels between bots: locks, notifications, CPU affinity
    "flock", "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
    "sched_setaffinity",
    # the page cache of shared files: residency probes, eviction and load hints
    "mincore", "cachestat", "fadvise64", "fadvise64_64", "arm_fadvise64_64", "readahead",
    "process_madvise",  # the madvise advice refused below, through the process's own pidfd
    # the machine's counters outside /proc
    "sysinfo", "statfs", "fstatfs", "statfs64", "fstatfs64", "ustat",
)
"""System calls refused with EPERM."""

FCNTL_DENIED: Final = {
    "F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024, "F_GETLEASE": 1025, "F_NOTIFY": 1026,
}
"""``fcntl`` commands refused with EPERM: record locks, leases and directory notifications."""

MADVISE_DENIED: Final = {
    "MADV_WILLNEED": 3, "MADV_REMOVE": 9, "MADV_MERGEABLE": 12, "MADV_COLD": 20, "MADV_PAGEOUT": 21,
    "MADV_POPULATE_READ": 22, "MADV_POPULATE_WRITE": 23,
}
"""``madvise`` advice refused with EPERM: it loads file pages ahead or pushes them out of
memory, which another bot could see in the page cache, or offers pages for merging with
other processes' equal pages (where the machine runs same-page merging, a bot would see
another's pages merge with its own)."""
PRCTL_DENIED: Final = {"PR_SET_MEMORY_MERGE": 67}
"""``prctl`` options refused with EPERM: every page of the process offered for merging."""
SOCKET_COOKIES: Final = {"SO_COOKIE": 57, "SO_NETNS_COOKIE": 71}
"""``getsockopt`` options of ``SOL_SOCKET`` refused with EPERM: numbers from one counter of
the whole machine, which a bot moves by making sockets (``socketpair`` is allowed): a
process could leave a card there for a later one to read, across a rotation gap."""
SOL_SOCKET: Final = 1
CLONE_PIDFD: Final = 0x00001000
"""``clone`` flag refused with EPERM, as ``pidfd_open`` is (ENOSYS: runtimes then wait for
their children as before): a pidfd's inode number counts every process and thread the
machine has started (Linux 6.9 and later), a counter one bot moves by starting threads
and another, or a later process of the same bot, reads."""
AIO_CALLS: Final = ("io_setup", "io_destroy", "io_getevents", "io_pgetevents", "io_submit", "io_cancel")
"""The kernel's asynchronous I/O, which answers ENOSYS: ``io_setup`` reserves events of the
machine's one limit (``fs.aio-max-nr``), so a bot could read how many others hold, or take
them all from every process of the machine.  No runtime offered needs it (the C library's
POSIX AIO uses threads)."""

ABSENT: Final = ("memfd_secret", "statmount", "listmount")
"""Calls that answer ENOSYS as on an older kernel: memory taken out of the kernel's own map
(splitting it can slow the whole machine), and mount ids, numbered by one counter for the
machine (how many sandboxes started before this one)."""
UNIQUE_MOUNT_IDS: Final = {"statx": (3, 0x4000), "name_to_handle_at": (4, 0x001)}
"""The same unique mount ids asked of ``statx`` (``STATX_MNT_ID_UNIQUE`` in its mask) and of
``name_to_handle_at`` (``AT_HANDLE_MNT_ID_UNIQUE``): (the argument, its bit), refused."""
RWF_NOWAIT: Final = 0x00000008
"""``preadv2``/``pwritev2`` flag that fails with EAGAIN unless the data is cached: a
residency probe, refused with EPERM (the same calls without it are plain reads and writes)."""

FUTEX_SHARED_WAKES: Final = {"FUTEX_WAKE": 1, "FUTEX_REQUEUE": 3, "FUTEX_CMP_REQUEUE": 4, "FUTEX_WAKE_BITSET": 10}
"""``futex`` operations that wake or move waiters: unless private (``FUTEX_PRIVATE_FLAG``,
128, keys the futex by the process's own memory) they answer 0, having woken no one, which
is true, since no shared wait sleeps (:data:`FUTEX_SHARED_WAITS`).  A futex on a page of
a shared file, even one mapped read-only, is keyed by the file and offset, so the number
a wake reported read whether another bot waited there."""
FUTEX_SHARED_WAITS: Final = {"FUTEX_WAIT": 0, "FUTEX_WAIT_BITSET": 9}
"""``futex`` waits that answer EAGAIN unless private, as if the word had changed: the
caller looks again and waits again, so a shared wait spins instead of sleeping.  Where
one could sleep, a wake no system call sends would reach it: at a thread's exit the
kernel wakes the address the thread gave ``set_tid_address`` or ``clone`` (the C library
needs both), shared, so a bot ending threads pointed at a shared file's page woke another
bot's waiters there.  Runtimes wait privately on their own locks; the C library's thread
join (the kernel's wake at the thread's exit ends it) and locks or semaphores a bot shares
between its own processes spin, on the bot's own clock."""
FUTEX_REFUSED: Final = {
    "FUTEX_WAKE_OP": 5, "FUTEX_LOCK_PI": 6, "FUTEX_UNLOCK_PI": 7, "FUTEX_TRYLOCK_PI": 8,
    "FUTEX_WAIT_REQUEUE_PI": 11, "FUTEX_CMP_REQUEUE_PI": 12, "FUTEX_LOCK_PI2": 13,
}
"""``futex`` operations refused with EPERM unless private: a wake that must also change a
word, and the priority-inheritance locks, whose owner the kernel keeps by the futex's key.
The newer ``futex_wake``, ``futex_wait``, ``futex_waitv`` and ``futex_requeue`` calls
answer ENOSYS (the C library uses ``futex``), and so does ``set_robust_list`` (at a
thread's exit the kernel wakes the futexes its robust list names, shared ones too; the C
library then does without robust mutexes)."""
FUTEX_PRIVATE_FLAG: Final = 128
FUTEX_COMMAND: Final = 127
INT_BITS: Final = 0xFFFF_FFFF
"""The bits of a system call's ``int`` argument the kernel reads."""
NEWER_CALLS: Final = {"cachestat": 451, "process_madvise": 440, "futex_waitv": 449, "futex_wake": 454,
                      "futex_wait": 455, "futex_requeue": 456, "memfd_secret": 447, "statmount": 457,
                      "listmount": 458}
"""x86-64 numbers of calls newer than some distributions' libseccomp: a filter built there
refuses them by number rather than leaving them open."""

CLONE_NAMESPACES: Final = {
    "CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
"""``clone`` flags refused with EPERM: every new namespace (``unshare`` and ``setns`` are denied)."""


def available() -> tuple[bool, str]:
    """Whether a filter can be built here, and if not, why."""
    try:
        bpf_program()
    except Exception as error:  # noqa: BLE001 - any failure means the layer is off
        return False, f"cannot build a seccomp filter: {error}"
    return True, ""


@functools.cache
def bpf_program() -> bytes:
    """The compiled filter (built once per process)."""
    import pyseccomp

    rules = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    deny, absent = pyseccomp.ERRNO(errno.EPERM), pyseccomp.ERRNO(errno.ENOSYS)
    wanted: list[tuple[int, str, tuple[Any, ...]]] = [(deny, name, ()) for name in DENIED]
    # an int argument compared as the kernel reads it: its low 32 bits (EQ would compare all
    # 64, and the same command with a high bit set would pass)
    wanted += [(deny, call, (pyseccomp.Arg(1, pyseccomp.MASKED_EQ, INT_BITS, command),))
               for call in ("fcntl", "fcntl64") for command in FCNTL_DENIED.values()]
    wanted += [(deny, "clone", (pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag),))
               for flag in (*CLONE_NAMESPACES.values(), CLONE_PIDFD)]
    wanted += [(deny, "madvise", (pyseccomp.Arg(2, pyseccomp.MASKED_EQ, INT_BITS, advice),))
               for advice in MADVISE_DENIED.values()]
    wanted += [(deny, "prctl", (pyseccomp.Arg(0, pyseccomp.MASKED_EQ, INT_BITS, option),))
               for option in PRCTL_DENIED.values()]
    wanted += [(deny, "getsockopt", (pyseccomp.Arg(1, pyseccomp.MASKED_EQ, INT_BITS, SOL_SOCKET),
                                     pyseccomp.Arg(2, pyseccomp.MASKED_EQ, INT_BITS, option)))
               for option in SOCKET_COOKIES.values()]
    wanted += [(deny, call, (pyseccomp.Arg(5, pyseccomp.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT),))
               for call in ("preadv2", "pwritev2")]
    wanted += [(deny, call, (pyseccomp.Arg(arg, pyseccomp.MASKED_EQ, bit, bit),))
               for call, (arg, bit) in UNIQUE_MOUNT_IDS.items()]
    futex_answers = ((pyseccomp.ERRNO(0), FUTEX_SHARED_WAKES), (pyseccomp.ERRNO(errno.EAGAIN), FUTEX_SHARED_WAITS),
                     (deny, FUTEX_REFUSED))
    wanted += [(action, "futex", (pyseccomp.Arg(1, pyseccomp.MASKED_EQ, FUTEX_PRIVATE_FLAG | FUTEX_COMMAND, command),))
               for action, commands in futex_answers for command in commands.values()]
    wanted.append((absent, "clone3", ()))  # the C library then falls back to clone, which is filtered
    wanted += [(absent, name, ()) for name in ("futex_wake", "futex_wait", "futex_waitv", "futex_requeue",
                                               "set_robust_list", "pidfd_open", *AIO_CALLS, *ABSENT)]
    for action, name, args in wanted:
        try:
            rules.add_rule(action, name, *args)
        except (RuntimeError, ValueError, OSError):  # a name this libseccomp does not know, or a call
            number = NEWER_CALLS.get(name) if platform.machine() == "x86_64" else None
            if number is not None:  # this architecture does not have
                rules.add_rule(action, number, *args)
    fd = os.memfd_create("arena-seccomp")
    try:
        with os.fdopen(os.dup(fd), "wb") as out:
            rules.export_bpf(out)
        os.lseek(fd, 0, os.SEEK_SET)
        return os.read(fd, 1 << 20)
    finally:
        os.close(fd)


def memfd() -> int:
    """A fresh file descriptor holding the program, for one bubblewrap to read."""
    fd = os.memfd_create("arena-seccomp")
    os.write(fd, bpf_program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
