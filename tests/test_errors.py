"""Every error the arena raises on purpose shares one root, and the command line reports
exactly those as user mistakes (anything else is a bug and keeps its traceback)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys

import arena
from arena.cli._app import USER_ERRORS
from arena.errors import ArenaError

INTERNAL = {"arena.referee.records.BotFault"}
"""Signals inside the referee, turned into recorded faults, never shown as errors."""


def test_every_arena_error_is_an_arena_error() -> None:
    found = []
    for module in pkgutil.walk_packages(arena.__path__, "arena."):
        if module.name.endswith("__main__"):
            continue
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == module.name:
                found.append(f"{module.name}.{name}")
                assert issubclass(value, ArenaError) or f"{module.name}.{name}" in INTERNAL, name
    assert len(found) >= 15 and (ArenaError,) == USER_ERRORS


def test_a_user_mistake_is_one_line_and_a_bug_is_a_traceback() -> None:
    mistake = subprocess.run([sys.executable, "-m", "arena.cli", "hand", "Zz"], capture_output=True, text=True)
    assert mistake.returncode == 2 and mistake.stderr.startswith("error: invalid card 'Zz'")
    assert "Traceback" not in mistake.stderr
    bug = subprocess.run([sys.executable, "-c", "from arena.cli._app import user_errors\n"
                          "@user_errors\ndef broken() -> None:\n    raise ValueError('a bug')\nbroken()"],
                         capture_output=True, text=True)
    assert bug.returncode == 1 and "Traceback" in bug.stderr and "ValueError: a bug" in bug.stderr
