"""``python -m arena.cli``: the same command as ``arena``."""

from arena.cli import app

app(prog_name="arena")
