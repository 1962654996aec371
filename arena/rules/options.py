"""Match options: their specs, defaults and strict validation.

Every rule that a source text leaves open is an option (``docs/RULES.md``); a variant is a
family plus option values.  Values arrive as Python values (from TOML, JSON) or as
strings (from ``--option k=v``); both are checked here, and any error names the option.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.rules.errors import RulesError

__all__ = ["OptionError", "OptionSpec", "parse_option_pairs", "resolve_options"]

_TRUE = {"yes", "true", "on", "1"}
_FALSE = {"no", "false", "off", "0"}


class OptionError(RulesError):
    """An unknown option, or a value an option does not accept."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option: its name, kind (``bool``, ``int``, ``choice``), default and meaning.

    ``choices`` lists the allowed values of a ``choice`` option; ``minimum`` bounds an
    ``int``.  ``auto`` is allowed when ``default`` is ``None`` (the family derives the
    value, e.g. ``rounds`` from the player count; ``default_text`` explains how).
    """

    name: str
    kind: str
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    default_text: str = ""

    def coerce(self, value: Any) -> Any:
        """``value`` converted to this option's type; :class:`OptionError` if it does not fit."""
        if value is None or (isinstance(value, str) and value.strip().lower() == "auto"):
            if self.default is None:
                return None
            raise OptionError(f"option {self.name!r} needs a value ({self.describe_values()})")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                return value.strip().lower() in _TRUE
            raise OptionError(f"option {self.name!r} takes yes or no, not {value!r}")
        if self.kind == "int":
            number = _to_int(value)
            if number is None:
                raise OptionError(f"option {self.name!r} takes a whole number, not {value!r}")
            if self.minimum is not None and number < self.minimum:
                raise OptionError(f"option {self.name!r} must be at least {self.minimum}, not {number}")
            return number
        for choice in self.choices:
            if value == choice or str(value).strip().lower() == str(choice).lower():
                return choice
            if isinstance(choice, (int, float)) and not isinstance(value, bool):
                try:
                    if float(value) == float(choice):
                        return choice
                except (TypeError, ValueError):
                    pass
        raise OptionError(
            f"option {self.name!r} takes one of {', '.join(map(str, self.choices))}, not {value!r}"
        )

    def describe_values(self) -> str:
        """The accepted values, for help texts."""
        if self.kind == "bool":
            return "yes|no"
        if self.kind == "int":
            return f"integer >= {self.minimum}" if self.minimum is not None else "integer"
        return "|".join(map(str, self.choices))

    def format(self, value: Any) -> str:
        """A value as users write it."""
        if value is None:
            return self.default_text or "auto"
        if isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)


def _to_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def resolve_options(
    specs: Iterable[OptionSpec], preset: Mapping[str, Any], overrides: Mapping[str, Any] | None, where: str
) -> dict[str, Any]:
    """Defaults, then the preset's values, then the user's overrides, all validated.

    Unknown names raise :class:`OptionError` listing the options ``where`` accepts.
    """
    by_name = {spec.name: spec for spec in specs}
    values = {name: spec.default for name, spec in by_name.items()}
    for source in (preset, overrides or {}):
        for name, value in source.items():
            spec = by_name.get(name)
            if spec is None:
                raise OptionError(f"unknown option {name!r} for {where}; options: {', '.join(sorted(by_name))}")
            values[name] = spec.coerce(value)
    return values


def parse_option_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """``["lives=4", "trips=30"]`` as a dict; :class:`OptionError` for a pair without ``=``."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"option {pair!r} must be written name=value, e.g. lives=4")
        out[name.strip()] = value.strip()
    return out
