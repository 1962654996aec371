"""The bot registry: immutable, content-hashed copies of every bot that plays.

A version is identified by the SHA-256 of its folder's files (names, executable bits and
contents; caches excluded), so resubmitting unchanged code is recognised and any change
makes a new version.  The copy lives at ``<registry>/<name>/<hash12>/``, read-only and
world-readable (sandboxed bots run as unprivileged users), with its Python bytecode
compiled in advance (a read-only bot cannot write it at start-up).
"""

from __future__ import annotations

import compileall
import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from py_compile import PycInvalidationMode
from typing import Final

from arena.botspec import BOTS_DIR, BotManifest, ManifestError, find_bot
from arena.tournament import build
from arena.tournament.store import Store, VersionRow

__all__ = ["IGNORED", "bundled_names", "code_files", "content_hash", "find", "install", "registry_dir"]

IGNORED: Final = frozenset({"__pycache__", ".git", ".hg", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
"""Folders that are not part of a bot's code."""


def registry_dir(store: Store) -> Path:
    """Where the copies of ``store``'s bots live: ``registry/`` beside the database."""
    return store.path.parent / "registry"


def code_files(folder: Path) -> list[Path]:
    """The files of a bot folder that make its version (no caches, no bytecode), sorted."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED)
        found.extend(Path(root, f) for f in sorted(files) if not f.endswith((".pyc", ".pyo")))
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
        # bytecode checked against its source when loaded: a changed .pyc beside a verified source is not run
        compileall.compile_dir(staging, quiet=2, workers=1, invalidation_mode=PycInvalidationMode.CHECKED_HASH)
        for root, dirs, files in os.walk(staging):
            for name in files:
                mode = os.stat(Path(root, name)).st_mode
                os.chmod(Path(root, name), 0o555 if mode & stat.S_IXUSR else 0o444)
            for name in dirs:
                os.chmod(Path(root, name), 0o555)
        os.chmod(staging, 0o555)
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():
                raise
            _remove(staging)  # another run installed the same content meanwhile
    except BaseException:
        _remove(staging)
        raise


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
    key = content_hash(manifest.folder)
    for version in store.versions(bot, withdrawn=True):
        if version.hash == key and version.path and Path(version.path).is_dir():
            return store.register(bot, key, version.label, version.path, version.manifest)
    target = registry_dir(store) / bot / key[:12]
    if not target.is_dir():
        if manifest.build and built is None:
            built = build.built(manifest).folder
        _copy(built or manifest.folder, target)
    return store.register(bot, key, f"{bot}@{manifest.version}", str(target.resolve()), _manifest_dict(manifest))


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
