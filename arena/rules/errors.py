"""The errors the rules engine raises (every module of the engine may raise them, so they
depend on no other module of it)."""

from __future__ import annotations

from arena.errors import ArenaError

__all__ = ["IllegalActionError", "RulesError"]


class RulesError(ArenaError, ValueError):
    """Base class of every error the rules engine raises."""


class IllegalActionError(RulesError):
    """An action that is not legal in the current state; the state is unchanged."""
