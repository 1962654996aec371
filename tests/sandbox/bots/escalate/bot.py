"""On its first decision: tries to lift its resource limits, become root, change its
scheduling priority, chroot, mount, ptrace, move itself out of its control groups, and
(last) create a new user namespace.  Reports each outcome and its limits afterwards, then keeps
playing legally."""

import ctypes
import errno
import json
import os
import random
import resource
import sys

from arena.sdk import hookimpl

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
PTRACE_ATTACH = 16
rng = random.Random(15)
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
    if result != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def unlimited(which: int) -> None:
    resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def join_root_cgroup() -> None:
    for path in ("/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/pids/cgroup.procs",
                 "/sys/fs/cgroup/unified/cgroup.procs"):
        with open(path, "w") as handle:
            handle.write(str(os.getpid()))


def limits() -> dict[str, list[int]]:
    return {name: list(resource.getrlimit(getattr(resource, name)))
            for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE")}


def attack() -> dict[str, object]:
    before = limits()
    result: dict[str, object] = {
        "uid": os.getuid(),
        "euid": os.geteuid(),
        "limits_before": before,
        "setrlimit_as": outcome(lambda: unlimited(resource.RLIMIT_AS)),
        "setrlimit_cpu": outcome(lambda: unlimited(resource.RLIMIT_CPU)),
        "setrlimit_nproc": outcome(lambda: unlimited(resource.RLIMIT_NPROC)),
        "setrlimit_nofile": outcome(lambda: unlimited(resource.RLIMIT_NOFILE)),
        "setuid_0": outcome(lambda: os.setuid(0)),
        "setgid_0": outcome(lambda: os.setgid(0)),
        "setgroups_0": outcome(lambda: os.setgroups([0])),
        "nice_minus_5": outcome(lambda: os.nice(-5)),
        "chroot": outcome(lambda: os.chroot("/")),
        "mount_tmpfs": outcome(lambda: check(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))),
        "ptrace_parent": outcome(lambda: check(libc.ptrace(PTRACE_ATTACH, os.getppid(), None, None))),
        "leave_cgroup": outcome(join_root_cgroup),
    }
    result["limits_after"] = limits()
    # last: where it works, the bot becomes root of a new user namespace, with every capability there
    result["unshare_user"] = outcome(lambda: check(libc.unshare(CLONE_NEWUSER)))
    return result


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(attack()), file=sys.stderr, flush=True)
    return rng.choice(legal)
