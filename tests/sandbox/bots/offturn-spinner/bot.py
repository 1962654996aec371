"""Answers every decision at once, but from its first one keeps a thread spinning on the
CPU, so that on a shared core the bot whose turn it is gets less of it."""

import random
import threading

from arena.sdk import hookimpl

rng = random.Random(7)
started: list[threading.Thread] = []


def spin() -> None:
    while True:
        pass


@hookimpl
def choose(legal: list[str]) -> str:
    if not started:
        started.append(threading.Thread(target=spin, daemon=True))
        started[0].start()
    return rng.choice(legal)
