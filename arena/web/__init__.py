"""The arena's web face: a live, read-only dashboard of the results database
(``arena serve``) and the same pages as a static report (``arena report``).

A front end like the command line: it reads the store through
:mod:`arena.tournament.views` and replays matches with :mod:`arena.rules`; nothing below
imports it.  docs/WEB.md describes the pages, the commands and the security model.
"""
