"""On its first decision: tries to write marker files outside its scratch folder (its
own folder, /usr, /tmp, /dev/shm, the referee's folder), a file inside its scratch
folder (allowed), and a file over the file-size limit there.  Names carry the token
from ``targets.json`` ({"token": ..., "referee_dir": ...}).  Reports each outcome, then
keeps playing legally."""

import errno
import json
import os
import random
import sys

from arena.sdk import hookimpl

HERE = os.path.dirname(os.path.abspath(__file__))
MB = 1024 * 1024
rng = random.Random(11)
attacked = False


def outcome(action) -> str:  # type: ignore[no-untyped-def]
    try:
        value = action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, f"{type(error).__name__}: {error}")
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"
    return "ok" if value is None else f"ok: {value}"


def write(path: str, size: int = 0) -> int:
    with open(path, "wb") as handle:
        handle.write(b"written by a sandboxed bot\n")
        chunk = b"z" * MB
        written = 0
        while written < size:
            handle.write(chunk)
            written += len(chunk)
    return os.path.getsize(path)


def attack() -> dict[str, object]:
    with open(os.path.join(HERE, "targets.json")) as handle:
        targets = json.load(handle)
    marker = f"arena-marker-{targets['token']}"
    result: dict[str, object] = {
        "cwd": os.getcwd(),
        "home": os.environ.get("HOME"),
        "tmpdir": os.environ.get("TMPDIR"),
        "own_folder": outcome(lambda: write(os.path.join(HERE, marker))),
        "own_folder_chmod": outcome(lambda: os.chmod(HERE, 0o777)),
        "usr": outcome(lambda: write(f"/usr/{marker}")),
        "tmp": outcome(lambda: write(f"/tmp/{marker}")),
        "dev_shm": outcome(lambda: write(f"/dev/shm/{marker}")),
        "referee_dir": outcome(lambda: write(os.path.join(targets["referee_dir"], marker))),
        "scratch": outcome(lambda: write(os.path.join(os.getcwd(), "notes.txt"))),
        "scratch_32mb": outcome(lambda: write(os.path.join(os.getcwd(), "big.bin"), 32 * MB)),
    }
    result["scratch_32mb_size_mb"] = outcome(lambda: os.path.getsize(os.path.join(os.getcwd(), "big.bin")) // MB)
    return result


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        print("REPORT " + json.dumps(attack()), file=sys.stderr, flush=True)
    return rng.choice(legal)
