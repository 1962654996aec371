"""The ``arena`` command line: one module per group of commands, all on one typer app.

``rules`` (variants, hand), ``play`` (match, doctor), ``human`` (play), ``tournament``
(submit, bots, withdraw, run, league, demo), ``results`` (table, crosstable, show, export,
rerate) and ``web`` (serve, report).
"""

from arena.cli import human, play, results, rules, strength, tournament, web  # noqa: F401  (each module registers its commands)
from arena.cli._app import app

__all__ = ["app"]
