"""Before its hello (while its module loads): leaves a secret where another bot at the
table might find it -- /dev/shm, /tmp and a System V shared memory segment keyed by the
token in ``token.txt`` in the bot's folder.  Reports what it managed to leave on its
first decision, then keeps playing legally."""

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
SECRET = f"the secret of {TOKEN}".encode()
IPC_CREAT = 0o1000
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
rng = random.Random(12)


def outcome(action) -> str:  # type: ignore[no-untyped-def]
    try:
        value = action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, f"{type(error).__name__}: {error}")
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"
    return "ok" if value is None else f"ok: {value}"


def leave(path: str) -> None:
    with open(path, "wb") as handle:
        handle.write(SECRET)
    os.chmod(path, 0o666)


def sysv() -> int:
    key = int(TOKEN[:7], 16)
    shmid = libc.shmget(key, 4096, IPC_CREAT | 0o666)
    if shmid < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    address = libc.shmat(shmid, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "shmat")
    ctypes.memmove(address, SECRET, len(SECRET))
    return key


LEFT = {
    "dev_shm": outcome(lambda: leave(f"/dev/shm/arena-secret-{TOKEN}")),
    "tmp": outcome(lambda: leave(f"/tmp/arena-secret-{TOKEN}")),
    "sysv_shm": outcome(sysv),
}
reported = False


@hookimpl
def choose(legal: list[str]) -> str:
    global reported
    if not reported:
        reported = True
        print("REPORT " + json.dumps(LEFT), file=sys.stderr, flush=True)
    return rng.choice(legal)
