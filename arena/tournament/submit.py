"""Submitting a bot: validate it as a stranger's code would be, then register it.

Validation runs the bot for real, behind every sandbox layer: its manifest must be valid,
it must answer the handshake, and it must finish a few smoke matches against ``random``
without a fault in every variant it claims.  Every rejection says what failed and how
to fix it; nothing is registered unless every check passed.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trio

from arena.botspec import BotManifest, ManifestError, find_bot, folded, load_manifest
from arena.errors import ArenaError
from arena.referee import Fault, TimeControl, open_bots, play_match
from arena.referee.launch import own_program_refusal
from arena.rules import get_variant, variants
from arena.sandbox import Layer, Sandbox, closed_to_others
from arena.tournament.build import BuildError, build, discard
from arena.tournament.registry import OversizeError, bundled_names, check_size, content_hash, install
from arena.tournament.spec import load_spec
from arena.tournament.store import Store, VersionRow

__all__ = ["SMOKE_MATCHES", "SubmitError", "Submitted", "folder_refusal", "submit"]

SMOKE_MATCHES: Final = 2
"""Smoke matches against ``random`` per claimed variant."""
SMOKE_SEED: Final = 31

_FIXES: Final = {
    "startup": "the bot must print its hello line within the start-up time; run it by hand and check its "
               "stderr (docs/PROTOCOL.md, 'Lifecycle')",
    "crash": "the bot exited; its stderr above says why",
    "timeout": "answer every decide request within time_left_ms (docs/PROTOCOL.md, 'Time control')",
    "malformed": "every line must be one JSON object of the protocol (docs/PROTOCOL.md, 'Transport')",
    "oversized": "keep every line under the protocol's maximum line length",
    "wrong_id": "reply with the id of the request being answered",
    "illegal_action": "choose one of the strings in the request's `legal` list, exactly",
    "closed_stdout": "keep stdout open until the referee says bye",
}


class SubmitError(ArenaError, ValueError):
    """A rejected submission; the message says what failed and how to fix it."""


@dataclass(frozen=True)
class Submitted:
    """A registered version and what submitting it did."""

    version: VersionRow
    new: bool
    """False when the same code was already registered."""
    checked: tuple[str, ...]
    """The variants its smoke matches covered."""
    entered: str | None
    """The tournament it was entered in."""


def _claimed(manifest: BotManifest) -> list[str]:
    known = variants()
    if "*" in manifest.variants:
        return list(known)
    unknown = [v for v in manifest.variants if v not in known]
    if unknown:
        raise SubmitError(f"{manifest.folder}/bot.toml: variants lists {', '.join(map(repr, unknown))}, which the "
                          f"arena does not know\nhow to fix: list only known variants: {', '.join(known)} "
                          "(or \"*\" for all); `arena variants` describes them")
    return list(manifest.variants)


def _describe(fault: Fault, variant: str, seed: int) -> str:
    fix = _FIXES.get(fault.kind, "see docs/PROTOCOL.md")
    return (f"smoke match of {variant} against random (seed {seed}, seat {fault.seat}) failed: "
            f"{fault.kind}: {fault.detail}\nhow to fix: {fix}")


def folder_refusal(manifest: BotManifest, sandbox: Sandbox) -> str | None:
    """Why the bots' users could not reach the bot's folder, and the fix; None if they can.
    Bubblewrap binds any folder into a bot's view; without it, a bot that runs as another
    user (the uid layer) must be able to enter every folder above its own."""
    if manifest.folder is None or not sandbox.status[Layer.UID].active or sandbox.status[Layer.BWRAP].active:
        return None
    closed = closed_to_others(manifest.folder)
    if closed is None:
        return None
    return (f"{manifest.folder}: bots run as unprivileged users (sandbox layer uid), who cannot enter {closed}\n"
            f"how to fix: submit from a folder every user can enter (`chmod o+x {closed}`), or copy the bot there")


async def _smoke(manifest: BotManifest, claimed: list[str], matches: int,
                 progress: Callable[[str], None]) -> tuple[str | None, Path | None]:
    """Build the bot if it has a build step, then play ``matches`` seeded matches per variant
    against ``random``, the bot in each seat, behind every sandbox layer this machine
    offers; the first failure and its fix, if any, and the built folder (for the caller to
    discard once registered; a build refused is gone already).

    The failure is returned, not raised, so that it leaves the bots' nursery as itself
    rather than wrapped in an exception group."""
    sandbox = await Sandbox.probe()
    if not manifest.build:
        return await _checked(manifest, None, claimed, matches, sandbox, progress), None
    progress(f"building: {' '.join(manifest.build)}")
    try:
        manifest = await build(manifest, sandbox)
    except BuildError as error:
        return str(error), None
    built = manifest.folder
    try:
        return await _checked(manifest, built, claimed, matches, sandbox, progress), built
    except BaseException:
        if built is not None:
            discard(built)
        raise


async def _checked(manifest: BotManifest, built: Path | None, claimed: list[str], matches: int, sandbox: Sandbox,
                   progress: Callable[[str], None]) -> str | None:
    """Why the bot (built in ``built``, if it has a build step) cannot be registered, and the
    fix; None once its smoke matches passed."""
    if built is not None:
        try:
            check_size(built, f"the built folder of {manifest.label}")
        except OversizeError as error:
            return str(error)
    unreachable = folder_refusal(manifest, sandbox)
    if unreachable is not None:
        return unreachable
    foreign = await trio.to_thread.run_sync(own_program_refusal, manifest)
    if foreign is not None:
        return f"{manifest.folder}: {foreign}"
    opponent = find_bot("random")
    time_control = TimeControl()
    for name in claimed:
        variant = get_variant(name)
        progress(f"smoke-testing {name}")
        players = max(2, variant.min_players)  # Skat seats three: the bot and random players
        async with open_bots([manifest] + [opponent] * (players - 1), time_control=time_control,
                             sandbox=sandbox) as bots:
            for i in range(matches):
                seat = 0 if i % 2 == 0 else players - 1  # the bot first, then last
                seats = list(bots) if seat == 0 else list(bots[1:]) + [bots[0]]
                seed = SMOKE_SEED + i
                result = await play_match(variant, seats, seed=seed, match_id=f"smoke-{name}-{i}",
                                          time_control=time_control)
                ours = [f for f in result.faults if f.seat == seat]
                if ours:
                    return _describe(ours[0], name, seed)
    return None


def _check_name_free(store: Store, name: str) -> None:
    """SubmitError if ``name`` is or reads as a bundled bot's name, or reads as another
    registered bot's (:func:`folded`): in a table ``heuristic.`` would pass for ``heuristic``.
    A registered name stays its own bot's: a new version is what resubmitting is for."""
    alike = "(names that differ only in case, '.', '-' or '_' are one name to the arena)"
    for bundled in sorted(bundled_names()):
        if folded(bundled) == folded(name):
            what = "is the name of a bundled bot, and names a bundled bot everywhere" if bundled == name else \
                f"reads as {bundled!r}, the name of a bundled bot {alike}"
            raise SubmitError(f"{name!r} {what}\nhow to fix: submit yours under a name of its own "
                              f"(`--name my-{bundled}`, or `name` in its bot.toml)")
    registered = {version.bot for version in store.versions(withdrawn=True)}
    clashes = sorted(bot for bot in registered if folded(bot) == folded(name))
    if clashes and name not in registered:
        raise SubmitError(f"{name!r} reads as {clashes[0]!r}, a registered bot {alike}\n"
                          f"how to fix: if it is yours, submit it as {clashes[0]!r} (a new version); if not, give it "
                          "a name of its own (`--name`, or `name` in its bot.toml)")


def _check_new_version(manifest: BotManifest, registered: Iterable[VersionRow]) -> None:
    """SubmitError if changed code claims the version string of a registered version:
    tables, results and pinned tournaments would name two programs alike."""
    for version in registered:
        if version.manifest.get("version") == manifest.version:
            raise SubmitError(
                f"{manifest.name} {manifest.version} is registered already ({version.short}), with other code\n"
                f"how to fix: give the changed bot a new `version` in its bot.toml (e.g. the next number after "
                f"{manifest.version}); a version names one program")


def submit(
    store: Store,
    path: Path,
    *,
    name: str | None = None,
    tournament: str | None = None,
    matches: int = SMOKE_MATCHES,
    progress: Callable[[str], None] = lambda _: None,
    author: str | None = None,
) -> Submitted:
    """Validate the bot in ``path`` and register it (as ``name``), entering it in ``tournament``;
    ``author``: who entered it, in place of what its manifest says (the host's account)."""
    if not path.is_dir():
        raise SubmitError(f"{path}: not a folder; a bot is a folder with a bot.toml (docs/BOTS.md)")
    try:
        manifest = load_manifest(path)
    except ManifestError as error:
        raise SubmitError(f"{error}\nhow to fix: see docs/BOTS.md for the manifest's keys") from None
    if name is not None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]{0,63}", name):
            raise SubmitError(f"--name {name!r}: use lower-case letters, digits, '-', '_' or '.' (at most 64)")
        manifest = dataclasses.replace(manifest, name=name)
    if author is not None:
        manifest = dataclasses.replace(manifest, author=author)
    _check_name_free(store, manifest.name)
    if tournament is not None:
        spec = load_spec(tournament)
        if not spec.open:
            raise SubmitError(f"tournament {spec.name!r} does not take submissions: its file has no "
                              f"`open = true` ({spec.source})")
        tournament = spec.name
    claimed = _claimed(manifest)
    check_size(path.resolve(), f"the folder of {manifest.label}")
    known = {v.hash: v for v in store.versions(manifest.name, withdrawn=True)}
    existing = known.get(content_hash(path.resolve()))
    if existing is None:
        _check_new_version(manifest, known.values())
    failure, built = trio.run(_smoke, manifest, claimed, matches, progress) if existing is None else (None, None)
    try:
        if failure is not None:
            raise SubmitError(failure)
        version = install(store, manifest, built=built)
    finally:
        if built is not None:
            discard(built)
    if tournament is not None:
        store.enter(tournament, version.bot)
    return Submitted(version, existing is None, tuple(claimed) if existing is None else (), tournament)
