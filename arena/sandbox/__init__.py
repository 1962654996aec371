"""Starting bot processes behind every isolation layer available, and killing them completely."""

from arena.sandbox.launcher import LAYERS, LayerStatus, Limits, Sandbox, Sandboxed, SandboxError, report_rows
from arena.sandbox.reach import closed_to_others

__all__ = ["LAYERS", "LayerStatus", "Limits", "Sandbox", "SandboxError", "Sandboxed", "closed_to_others",
           "report_rows"]
