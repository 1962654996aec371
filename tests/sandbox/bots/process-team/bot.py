"""An honest bot that thinks with a process of its own, and waits for it on a semaphore
the two processes share (``sem_init`` with ``pshared`` set, in shared memory): a futex
that is not private, as every lock shared between processes uses.

At every decision a forked child writes its choice into the shared memory and posts the
semaphore; the parent waits on it, reads the choice and reaps the child.  Its report
(``REPORT``) counts the decisions made this way."""

import ctypes
import json
import mmap
import os
import sys

from arena.sdk import hookimpl

libc = ctypes.CDLL(None, use_errno=True)
SEM_BYTES = 32  # sizeof(sem_t) on 64-bit Linux
shared = mmap.mmap(-1, 4096, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
semaphore = ctypes.addressof(ctypes.c_char.from_buffer(shared))
if libc.sem_init(ctypes.c_void_p(semaphore), 1, 0) != 0:
    raise OSError(ctypes.get_errno(), "sem_init")
report = {"decisions": 0}


@hookimpl
def choose(observation: dict, legal: list[str]) -> str:
    pid = os.fork()
    if pid == 0:  # the child: think, answer, wake the parent
        choice = sorted(legal)[0].encode()
        shared[SEM_BYTES:SEM_BYTES + 1] = bytes([len(choice)])
        shared[SEM_BYTES + 1:SEM_BYTES + 1 + len(choice)] = choice
        libc.sem_post(ctypes.c_void_p(semaphore))
        os._exit(0)
    while libc.sem_wait(ctypes.c_void_p(semaphore)) != 0:  # interrupted: wait again
        pass
    os.waitpid(pid, 0)
    size = shared[SEM_BYTES]
    report["decisions"] += 1
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    return shared[SEM_BYTES + 1:SEM_BYTES + 1 + size].decode()
