"""Starting bot processes behind every isolation layer available, and killing them completely."""

from arena.sandbox.launcher import LAYERS, LayerStatus, Limits, Sandbox, Sandboxed, SandboxError, report_rows

__all__ = ["LAYERS", "LayerStatus", "Limits", "Sandbox", "SandboxError", "Sandboxed", "report_rows"]
