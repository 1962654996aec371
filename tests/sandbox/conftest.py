"""Fixtures of the hostile-bot tests; the machinery is in ``hostile.py``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import trio
from hostile import remove_base

from arena.sandbox import Sandbox


@pytest.fixture(scope="session")
def box() -> Sandbox:
    """Every isolation layer this machine offers, as ``arena`` itself would use them (probed once)."""
    return trio.run(Sandbox.probe)


@pytest.fixture(scope="session", autouse=True)
def _clean_bot_copies() -> Iterator[None]:
    yield
    remove_base()
