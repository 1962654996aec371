"""The ``arena`` command line: one module per group of commands, all on one typer app.

``rules`` (variants, hand), ``play`` (match, doctor), ``human`` (play), ``tournament``
(submit, bots, withdraw, run, league, demo) and ``results`` (table, crosstable, show,
export, rerate).
"""

from arena.cli import human, play, results, rules, strength, tournament  # noqa: F401  (each module registers its commands)
from arena.cli._app import app

__all__ = ["app"]
