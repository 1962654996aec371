"""At every decision: looks for the secret another bot at the table left in /dev/shm,
/tmp or a System V shared memory segment (the token is in ``token.txt`` in the bot's
folder), and lists /dev/shm and /tmp.  Reports what it has found so far each time
(the test reads the last report), and plays legally."""

import ctypes
import errno
import json
import os
import random
import sys

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "token.txt")) as handle:
    TOKEN = handle.read().strip()
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
rng = random.Random(13)
found: dict[str, str] = {}
decisions = 0


def outcome(action) -> str:  # type: ignore[no-untyped-def]
    try:
        value = action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, f"{type(error).__name__}: {error}")
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"
    return "ok" if value is None else f"ok: {value}"


def read(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read(100).decode(errors="replace")


def sysv() -> str:
    shmid = libc.shmget(int(TOKEN[:7], 16), 0, 0)
    if shmid < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    address = libc.shmat(shmid, None, 0o10000)  # SHM_RDONLY
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "shmat")
    return ctypes.string_at(address, 60).rstrip(b"\0").decode(errors="replace")


def look() -> None:
    for label, action in (
        ("dev_shm", lambda: read(f"/dev/shm/arena-secret-{TOKEN}")),
        ("tmp", lambda: read(f"/tmp/arena-secret-{TOKEN}")),
        ("sysv_shm", sysv),
        ("list_dev_shm", lambda: sorted(os.listdir("/dev/shm"))),
        ("list_tmp", lambda: sorted(os.listdir("/tmp"))),
    ):
        result = outcome(action)
        if label not in found or (result.startswith("ok") and TOKEN in result):
            found[label] = result


@hookimpl
def choose(legal: list[str]) -> str:
    global decisions
    decisions += 1
    look()
    print("REPORT " + json.dumps({"decisions": decisions, **found}), file=sys.stderr, flush=True)
    return rng.choice(legal)
