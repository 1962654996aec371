"""Fixtures shared by the whole test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VECTORS_DIR = Path(__file__).resolve().parent / "rules" / "vectors"


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    """The directory holding ``hands.json`` and ``rounds.json``."""
    return VECTORS_DIR
