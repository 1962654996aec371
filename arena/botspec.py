"""Bot manifests (``bot.toml``) and finding a bot by folder, bundled name or installed plugin.

A bot is a folder with a ``bot.toml``::

    name = "random"
    version = "1.0.0"
    author = "Thirty-One Arena"
    description = "Plays a uniformly random legal action."
    variants = ["*"]            # variant names it plays, or "*" for all
    entry = "bot.py"            # a Python bot: the module with its hook implementations
    # command = ["node", "bot.js"]   # any other language: a command speaking the protocol
                                     # ("{python}" stands for the arena's own interpreter)
    # build = ["make"]               # run once, in the sandbox, in a copy of the folder,
                                     # before the bot first plays (compiled bots)

Installed packages provide bots through the ``arena.bots`` entry-point group: the entry
point names a module with hook implementations and an optional ``MANIFEST`` dict (the
same keys as ``bot.toml``, without ``entry``/``command``).
"""

from __future__ import annotations

import dataclasses
import re
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Final

from arena.errors import ArenaError
from arena.text import has_controls, printable
from arena.tomldepth import too_deep

__all__ = ["BOTS_DIR", "BYTECODE", "IGNORED", "LONGEST", "BotManifest", "ManifestError", "check_name", "find_bot",
           "folded", "load_manifest", "manifest_for"]

ENTRY_POINT_GROUP = "arena.bots"
BOTS_DIR = Path(__file__).resolve().parent.parent / "bots"
"""The bundled bots (the repository's ``bots/`` folder)."""

_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_~!-]{0,63}")
"""A version as PEP 440 and SemVer write them: printable ASCII only, so two versions that
read the same on a page are the same version (a zero-width space made look-alikes)."""
_SEPARATORS = str.maketrans("", "", ".-_")
_REQUIRED = ("name", "version")
_KNOWN = {"name", "version", "author", "description", "variants", "entry", "command", "notes", "build"}
IGNORED: Final = frozenset({"__pycache__", ".git", ".hg", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
"""Folders that are not part of a bot's code: the registry does not copy them, so no
entry may lie in one."""
BYTECODE: Final = (".pyc", ".pyo")
"""Endings of files that are not part of a bot's code either: a registered copy compiles its own."""
LONGEST: Final = {"version": 64, "author": 200, "description": 1_000, "notes": 20_000}
"""Characters a manifest's texts may hold: every page that lists bots shows their
descriptions, and a host's front page lists every author's."""


class ManifestError(ArenaError, ValueError):
    """A bot that cannot be found, or whose manifest is invalid; says what to fix."""


@dataclass(frozen=True)
class BotManifest:
    """A validated bot: who it is, where it lives, and how to start it."""

    name: str
    version: str
    author: str
    description: str
    variants: tuple[str, ...]
    folder: Path | None
    entry: str | None = None
    module: str | None = None
    command: tuple[str, ...] = ()
    build: tuple[str, ...] = ()
    """A command run once in a copy of the folder, in the sandbox, before the bot plays."""

    @property
    def is_python(self) -> bool:
        """Run by the bot host (``entry`` or ``module``) rather than its own command."""
        return not self.command

    def plays(self, variant: str) -> bool:
        """Whether the bot says it supports ``variant``."""
        return "*" in self.variants or variant in self.variants

    def argv(self, python: str = sys.executable) -> list[str]:
        """The command that starts the bot; Python bots start from a real interpreter path."""
        if self.command:  # files of the bot's folder by absolute path: bots run in a scratch folder
            folder = self.folder
            return [
                python if c == "{python}" else str(folder / c) if folder and (folder / c).is_file() else c
                for c in self.command
            ]
        where = ["--module", self.module] if self.module else ["--file", str(self.folder / str(self.entry))]  # type: ignore[operator]
        return [python, "-m", "arena.bothost", *where, "--name", self.name, "--version", self.version]

    @property
    def label(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"


def load_manifest(folder: Path, *, limits: bool = True) -> BotManifest:
    """Read and validate ``folder/bot.toml``; with ``limits``, its texts' lengths too (not
    for a registered copy, which may predate them: a version once registered stays
    playable)."""
    folder = folder.resolve()
    path = folder / "bot.toml"
    if not path.is_file():
        raise ManifestError(f"{folder}: no bot.toml (a bot is a folder with a bot.toml manifest; see docs/BOTS.md)")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ManifestError(f"{path}: not valid TOML: {error}") from None
    if found := too_deep(text):  # tomllib would recurse into it, or fill memory with a dotted key
        raise ManifestError(f"{path}:{found[0]}: not valid TOML: {found[1]} (a manifest needs two)")
    try:
        data = tomllib.loads(text)
    except ValueError as error:  # TOMLDecodeError, and a number too long to convert
        raise ManifestError(f"{path}: not valid TOML: {error}") from None
    manifest = _validate(data, str(path), folder, limits=limits)
    if manifest.entry is not None and not (folder / manifest.entry).is_file():
        raise ManifestError(f"{path}: entry {manifest.entry!r} is not a file in {folder}")
    return manifest


def check_name(name: str) -> None:
    """ManifestError unless ``name`` is a bot name: what tables, files and commands can all hold."""
    if not _NAME.fullmatch(name):
        raise ManifestError(f"name {name!r} must be lower-case letters, digits, '-', '_' or '.' (at most 64)")


def folded(name: str) -> str:
    """``name`` as a reader of a table tells names apart: case, '.', '-' and '_' ignored, so
    that ``heuristic.``, ``Heuristic_`` and ``heu-ristic`` all read as ``heuristic``."""
    return name.lower().translate(_SEPARATORS)


def _validate(data: dict[str, Any], where: str, folder: Path | None, module: str | None = None, *,
              limits: bool = True) -> BotManifest:
    """The manifest ``data`` describes; ManifestError listing every problem, one a line."""
    problems: list[str] = []
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        problems.append(f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_KNOWN))}")
    for key in _REQUIRED:
        if not isinstance(data.get(key), str) or not data[key].strip():
            problems.append(f"{key!r} must be a non-empty string")
        elif has_controls(data[key]):
            shown = printable(data[key], lines=False)
            problems.append(f"{key!r} may not hold control characters ({shown!r})")
        elif key == "name":
            try:
                check_name(data["name"])
            except ManifestError as error:
                problems.append(str(error))
        elif limits and not _VERSION.fullmatch(data[key]):
            problems.append(f"'version' {printable(data[key], lines=False)!r} must be letters, digits and '.', '+', "
                            "'-', '_', '~' or '!' (at most 64), starting with a letter or digit, such as \"1.2.0\"")
    for key, most in LONGEST.items() if limits else ():
        value = data.get(key, "")
        if not isinstance(value, str):
            if key not in _REQUIRED:  # a required key has its message above
                problems.append(f"{key!r} must be a string")
        elif len(value) > most:
            problems.append(f"{key!r} holds {len(value):,} characters: at most {most:,}")
    variants = data.get("variants", ["*"])
    if not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants):
        problems.append("'variants' must be a non-empty list of variant names, or [\"*\"]")
    elif limits and (len(variants) > 100 or any(len(v) > 64 for v in variants)):
        problems.append("'variants' may name at most 100 variants, each at most 64 characters")
    entry, command = data.get("entry"), data.get("command")
    if module is None and (entry is None) == (command is None):
        problems.append("give exactly one of 'entry' (a Python file) or 'command' (a list of strings)")
    if entry is not None and not (isinstance(entry, str) and entry.endswith(".py")):
        problems.append("'entry' must name a Python file such as \"bot.py\"")
    elif entry is not None and (Path(entry).is_absolute() or {"..", *IGNORED} & set(Path(entry).parts)):
        problems.append(f"'entry' must name a file inside the bot's folder, and not in {', '.join(sorted(IGNORED))} "
                        "(such folders are not part of a bot's code)")
    if command is not None and not (
        isinstance(command, list) and command and all(isinstance(c, str) and c for c in command)
    ):
        problems.append("'command' must be a non-empty list of strings, e.g. [\"node\", \"bot.js\"]")
    build = data.get("build", [])
    if not (isinstance(build, list) and all(isinstance(b, str) and b for b in build)):
        problems.append("'build' must be a list of strings, e.g. [\"make\"]")
    if problems:
        raise ManifestError("\n".join(f"{where}: {problem}" for problem in problems))
    return BotManifest(
        name=data["name"],
        version=data["version"],
        author=printable(str(data.get("author", "")), lines=False),
        description=printable(str(data.get("description", "")), lines=False),
        variants=tuple(variants),
        folder=folder,
        entry=entry,
        module=module,
        command=tuple(command or ()),
        build=tuple(build),
    )


def _installed() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def find_bot(ref: str) -> BotManifest:
    """A bot by folder path, by the name of a bundled bot, or of an installed one."""
    path = Path(ref)
    if path.is_dir() or "/" in ref or ref.startswith("."):
        if not path.is_dir():
            raise ManifestError(f"{ref}: no such folder")
        return load_manifest(path.resolve())
    bundled = BOTS_DIR / ref
    if (bundled / "bot.toml").is_file():
        return load_manifest(bundled)
    installed = _installed()
    if ref in installed:
        ep = installed[ref]
        module = ep.value.split(":")[0]
        data = dict(getattr(ep.load(), "MANIFEST", {}))
        data.setdefault("name", ref)
        data.setdefault("version", ep.dist.version if ep.dist else "0")
        return _validate(data, f"entry point {ref!r}", None, module=module)
    known = sorted({p.name for p in BOTS_DIR.iterdir() if (p / "bot.toml").is_file()} | set(installed))
    raise ManifestError(
        f"unknown bot {ref!r}: not a folder, a bundled bot or an installed one; known: {', '.join(known)}"
    )


def manifest_for(bot: str, path: str | None) -> BotManifest:
    """The manifest to launch a registered version with: its copy at ``path`` (an installed
    package's bot when None), under its registered name."""
    manifest = load_manifest(Path(path), limits=False) if path else find_bot(bot)
    return dataclasses.replace(manifest, name=bot) if manifest.name != bot else manifest
