"""The person's seat as the referee sees it: a process that speaks the bot protocol.

    python -m arena.human.relay SOCKET

The referee launches it like any bot (its stdin and stdout are the protocol) and holds it
to the same rules: the same handshake, messages, clock and faults.  It passes every byte
from its stdin to the Unix socket ``SOCKET`` and every byte from the socket to its
stdout, unchanged; the program listening there (``arena play``, or a web page's bridge)
answers for the person (:mod:`arena.human.seat`).  It ends when either side closes.

Standard library only, and nothing imported but what it uses: its start-up counts
against the seat's start-up time like a bot's.
"""

from __future__ import annotations

import os
import select
import socket
import sys

__all__ = ["relay"]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def relay(path: str, stdin: int = 0, stdout: int = 1) -> None:
    """Pass bytes between ``stdin``/``stdout`` and the socket at ``path`` until either ends
    (or breaks: then the other side is gone, and so is the seat)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as peer:
        peer.connect(path)
        theirs = peer.fileno()
        while True:
            ready, _, _ = select.select([stdin, theirs], [], [])
            try:
                if stdin in ready:
                    data = os.read(stdin, 65536)
                    if not data:
                        return
                    peer.sendall(data)
                if theirs in ready:
                    data = peer.recv(65536)
                    if not data:
                        return
                    _write_all(stdout, data)
            except (BrokenPipeError, ConnectionError):
                return


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m arena.human.relay SOCKET")
    relay(sys.argv[1])
