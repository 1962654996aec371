"""The probe bot: started inside the sandbox at start-up, it reports what it can still do.

Standard library only; prints one JSON object and exits.  The launcher compares the
report with what each layer should stop, so a layer counts as active only when it
demonstrably works on this machine.
"""

import errno
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
    """/tmp is writable inside bubblewrap (a private tmpfs) but not under Landlock."""
    with open(f"/tmp/arena-probe-{os.getpid()}", "w") as handle:
        handle.write("x")


report = {
    "uid": os.getuid(),
    "pid": os.getpid(),
    "socket": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()),
    "passwd": attempt(read_passwd),
    "outside_write": attempt(write_outside),
    "namespaces": {ns: os.readlink(f"/proc/self/ns/{ns}") for ns in ("net", "pid", "mnt", "ipc")},
}
print(json.dumps(report), flush=True)
