"""On its first decision: tries to reach servers the test runs on the host -- TCP on
127.0.0.1 and ::1, UDP on 127.0.0.1, unix sockets by path, an abstract unix socket --
and to resolve host names.  What to reach comes from ``targets.json`` in the bot's
folder.  Reports each outcome ("ok..." or the error), then keeps playing legally."""

import errno
import json
import os
import random
import socket
import sys

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(9)
attacked = False


def outcome(action) -> str:  # type: ignore[no-untyped-def]
    try:
        value = action()
    except OSError as error:
        if isinstance(error, socket.gaierror):
            return f"gaierror: {error}"
        return errno.errorcode.get(error.errno or 0, f"{type(error).__name__}: {error}")
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"
    return "ok" if value is None else f"ok: {value}"


def tcp(host: str, port: int) -> object:
    with socket.create_connection((host, port), timeout=1) as conn:
        conn.sendall(b"leak from the sandbox\n")
        return conn.getpeername()


def udp(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as conn:
        conn.sendto(b"leak from the sandbox\n", ("127.0.0.1", port))


def unix(address: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(1)
        conn.connect(address)
        conn.sendall(b"leak from the sandbox\n")


def attack() -> dict[str, object]:
    with open(os.path.join(HERE, "targets.json")) as handle:
        targets = json.load(handle)
    result: dict[str, object] = {}
    result["tcp4"] = outcome(lambda: tcp("127.0.0.1", targets["tcp4"]))
    if targets.get("tcp6"):
        result["tcp6"] = outcome(lambda: tcp("::1", targets["tcp6"]))
    result["udp"] = outcome(lambda: udp(targets["udp"]))
    for label, path in targets["unix"].items():
        result[f"unix_{label}_visible"] = os.path.exists(path)
        result[f"unix_{label}"] = outcome(lambda path=path: unix(path))
    result["abstract"] = outcome(lambda: unix("\0" + targets["abstract"]))
    result["socket_inet"] = outcome(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
    for host in ("localhost", "example.com"):
        result[f"resolve_{host}"] = outcome(lambda host=host: sorted({a[4][0] for a in socket.getaddrinfo(host, 80)}))
    return result


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(attack()), file=sys.stderr, flush=True)
    return rng.choice(legal)
