"""The probe bot: started inside the sandbox at start-up, it reports what it can still do.

Standard library only; prints one JSON object and exits.  The launcher compares the
report with what each layer should stop, so a layer counts as active only when it
demonstrably works on this machine.
"""

import errno
import fcntl
import json
import os
import socket
from collections.abc import Callable


def attempt(action: Callable[[], object]) -> str:
    try:
        action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, str(error))
    return "allowed"


def read_passwd() -> None:
    with open("/etc/passwd") as handle:
        handle.read(1)


def write_outside() -> None:
    """/dev/shm is writable inside bubblewrap (a private tmpfs) but not under Landlock."""
    path = f"/dev/shm/arena-probe-{os.getpid()}"
    with open(path, "w") as handle:
        handle.write("x")
    os.unlink(path)


def lock_shared_file() -> None:
    """Locking needs only read access: two bots could signal through any file they can read."""
    with open("/usr/bin/env", "rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)


report = {
    "uid": os.getuid(),
    "pid": os.getpid(),
    "socket": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()),
    "passwd": attempt(read_passwd),
    "outside_write": attempt(write_outside),
    "flock": attempt(lock_shared_file),
    "machine_usr": os.path.isdir("/usr/share"),  # in the machine's /usr, not in the bots' resident copy
    "namespaces": {ns: os.readlink(f"/proc/self/ns/{ns}") for ns in ("net", "pid", "mnt", "ipc")},
}
print(json.dumps(report), flush=True)
