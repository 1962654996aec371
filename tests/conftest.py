"""Fixtures shared by the whole test suite."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

# A suite started in the background by a shell without job control inherits SIGINT ignored,
# and so would every process it starts: the tests of Ctrl+C need it delivered.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parents[1]
VECTORS_DIR = Path(__file__).resolve().parent / "rules" / "vectors"


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    """The directory holding ``hands.json`` and ``rounds.json``."""
    return VECTORS_DIR
