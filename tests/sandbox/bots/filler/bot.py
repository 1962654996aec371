"""On its first decision: writes 8 MB files into its scratch folder until it is refused,
creates empty files until it is refused, then builds a chain of folders 3,000 deep
(``shutil.rmtree`` of its scratch folder used to raise RecursionError, and so did every
later run's sweep), makes one folder unreadable, and links out of the folder.  Reports
what it managed, then plays on legally."""

import errno
import json
import os
import random
import sys

from arena.sdk import hookimpl

MB = 1024 * 1024
rng = random.Random(17)
attacked = False


def error_name(error: OSError) -> str:
    return errno.errorcode.get(error.errno or 0, str(error))


def fill_bytes(home: str) -> dict[str, object]:
    written, chunk = 0, b"x" * MB
    try:
        for n in range(1024):  # up to 8 GB
            with open(os.path.join(home, f"big{n}"), "wb") as out:
                for _ in range(8):
                    out.write(chunk)
                    written += MB
    except OSError as error:
        return {"bytes_mb": written // MB, "bytes_stop": error_name(error)}
    return {"bytes_mb": written // MB, "bytes_stop": "none"}


def fill_files(home: str) -> dict[str, object]:
    folder = os.path.join(home, "many")
    made = 0
    try:
        os.mkdir(folder)
        for made in range(1_000_000):  # noqa: B007
            os.close(os.open(os.path.join(folder, str(made)), os.O_CREAT | os.O_WRONLY, 0o600))
    except OSError as error:
        return {"files": made, "files_stop": error_name(error)}
    return {"files": made, "files_stop": "none"}


def deep(home: str) -> dict[str, object]:
    many = os.path.join(home, "many")  # make room: the quota may be full
    for name in os.listdir(many) if os.path.isdir(many) else []:
        os.unlink(os.path.join(many, name))
    for name in os.listdir(home):
        if name.startswith("big"):
            os.unlink(os.path.join(home, name))
    fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
    depth = 0
    try:
        for depth in range(1, 3001):  # noqa: B007
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.symlink("/usr", "escape", dir_fd=fd)
        os.mkdir("locked", dir_fd=fd)
        os.chmod("locked", 0, dir_fd=fd)
    except OSError as error:
        return {"depth": depth, "deep_stop": error_name(error)}
    finally:
        os.close(fd)
    return {"depth": depth, "deep_stop": "none"}


@hookimpl
def choose(legal: list[str]) -> str:
    global attacked
    if not attacked:
        attacked = True
        home = os.environ.get("HOME", ".")
        report = {**fill_bytes(home), **fill_files(home), **deep(home)}
        print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    return rng.choice(legal)
