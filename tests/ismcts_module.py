"""The search bot's entry module loaded afresh in the test process, for the tests that drive
it without the referee: each caller gets its own module, so its own player."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent.parent / "bots" / "ismcts"
"""The bot's folder, on the import path so that its entry module finds its own modules."""
sys.path.insert(0, str(FOLDER))


def load_bot(name: str, deals: int | None = None) -> Any:
    """The entry module loaded anew as ``name``, STRICT (an error fails the test instead of
    falling back to a legal action), with ``deals`` as FIXED_DEALS when given."""
    spec = importlib.util.spec_from_file_location(name, FOLDER / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.STRICT = True
    if deals is not None:
        module.FIXED_DEALS = deals
    return module
