"""Starting bot processes behind every isolation layer available, and killing them completely.

The package's names load on first use: a bot process imports :mod:`arena.sandbox.confine`
(its first code, standard library only) and must not pay for the launcher's imports.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing would cost every bot ~10 ms
if TYPE_CHECKING:
    from typing import Any

    from arena.sandbox.launcher import Sandbox
    from arena.sandbox.layers import LAYERS, Layer, LayerStatus, Limits, SandboxError
    from arena.sandbox.probe import report_rows
    from arena.sandbox.process import BotProcess
    from arena.sandbox.reach import closed_to_others
    from arena.sandbox.sandboxed import Sandboxed
    from arena.sandbox.scratch import PREFIX
    from arena.sandbox.uids import UidPool

__all__ = ["LAYERS", "PREFIX", "Layer", "BotProcess", "LayerStatus", "Limits", "Sandbox", "SandboxError", "Sandboxed",
           "UidPool", "closed_to_others", "report_rows"]

_HOMES = {
    "LAYERS": "layers", "Layer": "layers", "LayerStatus": "layers", "Limits": "layers", "Sandbox": "launcher",
    "Sandboxed": "sandboxed", "SandboxError": "layers", "report_rows": "probe", "BotProcess": "process",
    "closed_to_others": "reach", "PREFIX": "scratch", "UidPool": "uids",
}


def __getattr__(name: str) -> Any:
    import importlib

    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'arena.sandbox' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"arena.sandbox.{home}"), name)
    globals()[name] = value
    return value
