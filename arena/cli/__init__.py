"""The ``arena`` command line: one module per group of commands, all on one typer app.

``rules`` (variants, hand), ``play`` (match, doctor), ``human`` (play), ``tournament``
(submit, bots, withdraw, run, league, demo), ``strength`` (test), ``results`` (table,
crosstable, show, export, rerate), ``web`` (serve, report), ``host`` (host) and
``accounts`` (accounts, backup: the host's operator).
"""

from arena.cli import accounts, host, human, play, results, rules, strength, tournament, web  # noqa: F401  (each module registers its commands)
from arena.cli._app import app

__all__ = ["app"]
