"""The root of the arena's own errors.

Every error the arena raises on purpose (a bad card, an unknown variant, a manifest to fix,
a tournament file with a mistake, a database that cannot be used ...) is an
:class:`ArenaError`, and also a ``ValueError`` where it describes bad input, as
python-chess's errors are.  The command line reports these as one line and exit status 2;
anything else is a bug and shows its traceback.
"""

from __future__ import annotations

__all__ = ["ArenaError"]


class ArenaError(Exception):
    """A mistake in what was asked, or a condition the user can act on; its message says what."""
