"""Starting bot processes behind an isolation boundary, and killing them completely."""

from arena.sandbox.launcher import Limits, Sandboxed, launch

__all__ = ["Limits", "Sandboxed", "launch"]
