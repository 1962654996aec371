"""The seccomp filter bots run under: system calls a card-game bot never needs fail with EPERM.

The filter is compiled once with libseccomp (through ``pyseccomp``) into a BPF program
that bubblewrap installs inside the bot's namespaces (``bwrap --seccomp FD``), after it
has set them up: installed earlier, it would forbid bubblewrap's own ``unshare`` and
``mount``.
"""

from __future__ import annotations

import errno
import functools
import os

__all__ = ["DENIED", "available", "bpf_program", "memfd"]

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
)
"""System calls refused with EPERM."""


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
    for name in DENIED:
        try:
            rules.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
        except (RuntimeError, ValueError, OSError):  # a call this architecture does not have
            continue
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
