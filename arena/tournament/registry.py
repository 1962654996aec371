"""The bot registry: immutable, content-hashed copies of every bot that plays.

A version is identified by the SHA-256 of its folder's files (names, executable bits and
contents; caches excluded), so resubmitting unchanged code is recognised and any change
makes a new version.  The copy lives at ``<registry>/<name>/<hash12>/``, read-only and
world-readable (sandboxed bots run as unprivileged users), with its Python bytecode
compiled in advance (a read-only bot cannot write it at start-up).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Final, NoReturn

from arena.botspec import BOTS_DIR, BYTECODE, IGNORED, BotManifest, ManifestError, find_bot, folded, load_manifest
from arena.errors import ArenaError
from arena.sandbox import scratch
from arena.text import printable
from arena.tournament import build
from arena.tournament.precompile import compile_copy
from arena.tournament.store import Store, VersionRow

__all__ = ["FILES_ENV", "MAX_FILES", "MAX_MB", "SIZE_ENV", "OversizeError", "bundled_names", "check_size",
           "code_files", "content_hash", "find", "install", "registry_dir"]

MAX_MB: Final = 64
MAX_FILES: Final = 4096
"""What a registered copy may hold (its files' bytes; its files and folders): the registry
keeps a copy of every version, and each worker one of every bot it plays.  A bot's own
data (an opening book, a small network's weights) and a statically linked binary fit."""
SIZE_ENV: Final = "ARENA_BOT_MB"
FILES_ENV: Final = "ARENA_BOT_FILES"
_MB: Final = 1024 * 1024


class OversizeError(ArenaError, ValueError):
    """A bot's folder, or what its build made of it, larger or deeper than the registry keeps."""


def registry_dir(store: Store) -> Path:
    """Where the copies of ``store``'s bots live: ``registry/`` beside the database."""
    return store.path.parent / "registry"


def code_files(folder: Path) -> list[Path]:
    """The files of a bot folder that make its version (no caches, no bytecode), sorted."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED)
        found.extend(Path(root, f) for f in sorted(files) if not f.endswith(BYTECODE))
    return sorted(found)


def content_hash(folder: Path) -> str:
    """SHA-256 (hex) of a bot folder's code: relative paths, executable bits, contents."""
    digest = hashlib.sha256()
    for path in code_files(folder):
        if path.is_symlink() or not path.is_file():
            raise ManifestError(f"{path}: a bot folder may hold only regular files (no links or devices)")
        relative = path.relative_to(folder).as_posix()
        executable = path.stat().st_mode & stat.S_IXUSR
        digest.update(f"{relative}\0{'x' if executable else '-'}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def check_size(folder: Path, what: str, *, bytecode: bool = False) -> None:
    """OversizeError, with the numbers, if ``folder`` (``what``, for the message) holds more
    than a registered copy may, or folders nested deeper than :data:`build.MAX_DEPTH`.
    Walked without recursion, and only as far as the bounds: checked before the folder is
    hashed or copied, by functions that recurse, and again with its ``bytecode`` once the
    copy is compiled (a long flat module compiles to many times its source)."""
    most_mb, most_files = build.env_limit(SIZE_ENV, MAX_MB, 1), build.env_limit(FILES_ENV, MAX_FILES, 16)
    size = count = 0
    for path, info, depth in scratch.walk(folder, skip=IGNORED - {"__pycache__"} if bytecode else IGNORED):
        if depth > build.MAX_DEPTH and stat.S_ISDIR(info.st_mode):
            raise OversizeError(f"{what} has folders nested more than {build.MAX_DEPTH} deep "
                                f"({printable(path.relative_to(folder).parts[0], lines=False)}/...); a bot's folder "
                                f"may nest at most {build.MAX_DEPTH}")
        compiled = path.name.endswith(BYTECODE) or path.name == "__pycache__"  # the copy compiles its own
        if bytecode or not compiled:
            size += info.st_size if stat.S_ISREG(info.st_mode) else 0
        count += not compiled
        if count > most_files:
            _too_large(what, f"more than {most_files} files and folders", most_mb, most_files)
    if size > most_mb * _MB:
        _too_large(what, f"{size / _MB:.1f} MB in {count} files and folders", most_mb, most_files)


def _too_large(what: str, found: str, most_mb: int, most_files: int) -> NoReturn:
    raise OversizeError(f"{what} is too large to register: {found}; a registered bot may hold at most {most_mb} MB "
                        f"in {most_files} files and folders (the registry keeps every version, each worker a copy)\n"
                        "how to fix: keep in the bot's folder only what it needs to play (a build can delete its "
                        f"intermediate files once done); an operator may allow more ({SIZE_ENV}, {FILES_ENV})")


def _copy(folder: Path, target: Path) -> None:
    """Copy ``folder`` to ``target`` atomically, compile its bytecode, make it read-only."""
    target.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(target.parent, 0o755)
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=target.parent))
    try:
        for path in code_files(folder):
            destination = staging / path.relative_to(folder)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination)
        why = compile_copy(staging)  # bytecode checked against its source when loaded, compiled within bounds
        if why is not None:
            raise OversizeError(f"{folder.name} cannot be registered: {why}")
        check_size(staging, folder.name, bytecode=True)
        for root, dirs, files in os.walk(staging):
            for name in files:
                mode = os.stat(Path(root, name)).st_mode
                os.chmod(Path(root, name), 0o555 if mode & stat.S_IXUSR else 0o444)
            for name in dirs:
                os.chmod(Path(root, name), 0o555)
        os.chmod(staging, 0o555)
        _check_loads(staging)
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():
                raise
            _remove(staging)  # another run installed the same content meanwhile
    except BaseException:
        _remove(staging)
        raise


def _check_loads(copy: Path) -> None:
    """ManifestError unless the copy's own manifest loads: every table launches the bot from
    it, and what a build step or the folders a copy leaves out (:data:`IGNORED`) did to it
    must be refused now, not break every match the bot is seated at."""
    try:
        load_manifest(copy, limits=False)  # as every table loads it
    except ManifestError as error:
        found = str(error).replace(str(copy.resolve()), "the copy").replace(str(copy), "the copy")
        raise ManifestError(f"the copy of the bot the arena would keep does not load: {found}") from None


def _remove(path: Path) -> None:
    for root, dirs, _ in os.walk(path):
        for name in dirs:
            os.chmod(Path(root, name), 0o755)
    os.chmod(path, 0o755)
    shutil.rmtree(path, ignore_errors=True)


def install(store: Store, manifest: BotManifest, name: str | None = None, *, built: Path | None = None) -> VersionRow:
    """Register ``manifest``'s bot (under ``name`` if given): the existing version when its
    code is unchanged, else a new immutable copy.  A bot with a build step is built first
    (or ``built`` is its folder, built already); the copy holds what the build made, and
    the version is named by the sources."""
    bot = name or manifest.name
    if manifest.folder is None:  # an installed package's bot: its distribution is the version
        key = hashlib.sha256(f"{manifest.module}\0{manifest.version}".encode()).hexdigest()
        return store.register(bot, key, manifest.label, None, _manifest_dict(manifest))
    check_size(manifest.folder, f"the folder of {manifest.label}")
    key = content_hash(manifest.folder)
    for bundled in sorted(b for b in bundled_names() if folded(b) == folded(bot)):
        if key != content_hash(BOTS_DIR / bundled):  # a copy of a bundled bot is that bot; other code would pass for it
            what = "the name of a bundled bot" if bundled == bot else \
                f"which reads as {bundled!r}, the name of a bundled bot (case, '.', '-' and '_' aside)"
            raise ManifestError(f"{manifest.folder}: its bot.toml names it {bot!r}, {what}\n"
                                f"how to fix: give it a name of its own there (`name = \"my-{bundled}\"`)")
    for version in store.versions(bot, withdrawn=True):
        if version.hash == key and version.path and Path(version.path).is_dir():
            return store.register(bot, key, version.label, version.path, version.manifest)
    target = registry_dir(store) / bot / key[:12]
    if not target.is_dir():
        if manifest.build and built is None:
            _copy_built(manifest, target)
        else:
            if built is not None:
                check_size(built, f"the built folder of {manifest.label}")
            _copy(built or manifest.folder, target)
    return store.register(bot, key, f"{bot}@{manifest.version}", str(target.resolve()), _manifest_dict(manifest))


def _copy_built(manifest: BotManifest, target: Path) -> None:
    """Build the bot and copy what it built; its workshop goes once copied, or refused."""
    folder = build.built(manifest)
    try:
        check_size(folder, f"the built folder of {manifest.label}")
        _copy(folder, target)
    finally:
        build.discard(folder)


def _manifest_dict(manifest: BotManifest) -> dict[str, object]:
    return {
        "name": manifest.name, "version": manifest.version, "author": manifest.author,
        "description": manifest.description, "variants": list(manifest.variants),
        "module": manifest.module,
    }


def bundled_names() -> set[str]:
    """The names of the bundled bots (``bots/``): reserved, no submission may take them."""
    return {p.name for p in BOTS_DIR.iterdir() if (p / "bot.toml").is_file()}


def _version(store: Store, ref: str) -> VersionRow:
    """``NAME:HASH``: the registered version of NAME whose hash starts with HASH."""
    bot, _, prefix = ref.partition(":")
    found = [v for v in store.versions(bot, withdrawn=True) if prefix and v.hash.startswith(prefix)]
    if len(found) != 1:
        known = ", ".join(v.short for v in store.versions(bot, withdrawn=True)) or "none"
        what = "no" if not found else "more than one"
        raise ManifestError(f"{what} registered version {ref!r}; versions of {bot!r}: {known}")
    return found[0]


def find(store: Store, ref: str, base: Path | None = None) -> VersionRow | BotManifest:
    """What an entrant name stands for, registering nothing: ``NAME:HASH`` is that registered
    version; a bundled bot's name always means the bundled bot; else a registered bot's newest
    version, else the manifest of a folder (relative to ``base`` first) or an installed bot.
    A withdrawn bot stays out until it is submitted again."""
    looks_like_path = "/" in ref or ref.startswith(".")
    if not looks_like_path and ":" in ref:
        return _version(store, ref)
    if not looks_like_path and ref not in bundled_names():
        latest = store.latest(ref)
        if latest is not None:
            return latest
    if base is not None and looks_like_path and (base / ref).is_dir():
        ref = str(base / ref)
    try:
        manifest = find_bot(ref)
    except ManifestError as error:
        raise ManifestError(f"{error} (nor is it a registered bot: `arena bots` lists them)") from None
    if store.latest(manifest.name) is None and store.versions(manifest.name, withdrawn=True):
        raise ManifestError(f"bot {manifest.name!r} was withdrawn (`arena withdraw`): `arena submit` it to bring it "
                            "back, or take it out of the entrants")
    return manifest
