"""Driving ``arena play`` in a real terminal (tmux), as a person would use it.

A session runs the command in a pane of a fixed size; the test reads the pane
(``capture-pane``), picks one of the numbered actions and types it (``send-keys``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHOICE = re.compile(r"(\d+)  (\S+(?: \S+)*)")
MOVE = re.compile(r"your move (\d+)")


def have_tmux() -> bool:
    return shutil.which("tmux") is not None


@dataclass
class Pane:
    """One tmux session running one command."""

    name: str

    @classmethod
    def start(cls, name: str, command: str, cwd: Path) -> Pane:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", str(cwd),
                        f"{command}; echo EXIT=$?; sleep 60"], check=True)
        return cls(name)

    def text(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True,
                              check=True).stdout

    def type(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def wait(self, ready: Callable[[str], bool], timeout_s: float = 30.0) -> str:
        """The pane's text once ``ready`` says so; AssertionError with the pane after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            text = self.text()
            if ready(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never got there:\n{text}")
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def choices(screen: str) -> dict[int, str]:
    """The numbered actions of a decision screen."""
    lines = screen.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("Your hand:"))
    end = max(i for i, line in enumerate(lines) if line.startswith("Type "))
    found = {}
    for line in lines[start + 2:end]:
        for number, action in CHOICE.findall(line):
            found[int(number)] = action
    return found


def move(screen: str) -> int | None:
    """The number of the decision on the screen (None when none is asked)."""
    if not screen.rstrip().endswith(">"):
        return None
    found = MOVE.findall(screen)
    return int(found[-1]) if found else None


def over(screen: str) -> bool:
    return "EXIT=" in screen
