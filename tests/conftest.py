"""Fixtures shared by the whole test suite.

The public conformance vectors live next to the repository, in ``<repo>/../shared/vectors``
(the repository's parent directory holds ``shared/``).  The path is computed from this
file's location, never hard-coded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VECTORS_DIR = Path(__file__).resolve().parents[2] / "shared" / "vectors"


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    """The directory holding ``hands.json`` and ``rounds.json``."""
    return VECTORS_DIR
