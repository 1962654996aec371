"""The typer application every command module registers on, and what they share."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Annotated, ParamSpec, TypeVar

import typer

from arena import __version__
from arena.errors import ArenaError

__all__ = ["OptionPairs", "app", "fail", "user_errors"]

app = typer.Typer(
    help="Thirty-One Arena: referee, sandbox and tournaments for Thirty-One card game bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # docstrings' paragraphs are reflowed, not broken at their source lines
)

P = ParamSpec("P")
R = TypeVar("R")

OptionPairs = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help="Override a rules option, NAME=VALUE (repeatable); see `arena variants V`."),
]

USER_ERRORS: tuple[type[Exception], ...] = (ArenaError,)
"""Errors that describe a mistake in what the user asked for: one line, no traceback.
Anything else is a bug in the arena and shows its traceback."""


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; return the exit (status 2) to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn the arena's own errors into one clear line on stderr and exit status 2."""

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except USER_ERRORS as error:
            raise fail(str(error)) from None

    return wrapper


def _version(value: bool) -> None:
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Thirty-One Arena."""
