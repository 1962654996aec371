"""The cheapest possible bot: the first legal action."""

from arena.sdk import hookimpl


@hookimpl
def choose(legal: list[str]) -> str:
    return legal[0]
