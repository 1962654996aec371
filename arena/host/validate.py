"""Validating one submission, in a process of its own: ``python -m arena.host.validate``.

The host claims the next queued submission and starts this module on it.  It unpacks
the upload (:mod:`arena.host.archive`), checks that the name is the author's to use, and
then validates exactly as ``arena submit`` does (:func:`arena.tournament.submit.submit`:
manifest, build step, smoke matches in every variant claimed, all in the sandbox),
writing each step to the submission's log and its status to the ledger.

A process rather than a thread: the validation is CPU work that would slow every page and
API answer of the host, and a process that dies with the host (``PR_SET_PDEATHSIG``)
cannot go on validating a submission that the restarted host queues again.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from arena.botspec import BYTECODE, IGNORED, ManifestError, folded, load_manifest
from arena.errors import ArenaError
from arena.host.archive import ArchiveError, ArchiveLimits, unpack
from arena.host.children import die_with_parent
from arena.host.config import HostConfig
from arena.host.ledger import Ledger, LedgerError, Submission
from arena.tournament.store import Store
from arena.tournament.submit import submit

__all__ = ["command", "validate"]

def command(config: HostConfig, submission: int) -> list[str]:
    """The command line that validates ``submission`` under ``config``."""
    settings = {"db": str(config.db), "work": str(config.work), "smoke": config.smoke,
                "ladder": None if config.ladder is None else str(config.ladder),
                "tournaments": {name: str(path) for name, path in config.tournaments.items()},
                "archive": asdict(config.archive)}
    return [sys.executable, "-m", "arena.host.validate", json.dumps(settings), str(submission),
            "--parent", str(os.getpid())]


def validate(ledger: Ledger, store: Store, submission: Submission, config: HostConfig) -> None:
    """Validate ``submission`` (claimed, status ``building``) to ``accepted`` or ``refused``."""
    folder = Path(tempfile.mkdtemp(prefix=f"submission-{submission.id}-", dir=config.work))  # new, ours alone
    bot = folder / "bot"
    bot.mkdir(mode=0o755)
    folder.chmod(0o755)  # bots run as other users: without bubblewrap they must enter it
    try:
        reason = _refusal(ledger, store, submission, bot, config)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if reason is not None:
        reason = reason.replace(str(bot), "your bot's folder")  # the host's paths are not the author's business
        ledger.append_log(submission.id, f"refused: {reason}")
        ledger.set_status(submission.id, "refused", reason=reason)


def _refusal(ledger: Ledger, store: Store, submission: Submission, bot: Path, config: HostConfig) -> str | None:
    """Why ``submission`` cannot be entered; None once it is (status ``accepted``)."""
    log = ledger.append_log
    if _disabled(ledger, submission.account):  # since it was queued: none of its code runs
        return DISABLED
    try:
        unpack(ledger.archive(submission.id), bot, config.archive)
        _prune(bot)
        manifest = load_manifest(_top(bot))
    except (ArchiveError, ManifestError) as error:
        return str(error)
    name = manifest.name
    owner = ledger.owner(name)
    if owner is not None and owner != submission.account:
        return f"the name {name!r} belongs to another author's bot: choose a name of your own (`name` in bot.toml)"
    if owner is None and store.versions(name, withdrawn=True):
        return f"the name {name!r} belongs to a bot the operator registered on the host: choose a name of your own"
    others = [a.name for a in ledger.accounts() if a.name != submission.account and folded(a.name) == folded(name)]
    if owner is None and others:
        return f"the name {name!r} reads as the account {others[0]!r}: choose a name of your own"
    if ledger.bot_disabled(name):
        return f"the bot {name!r} was disabled by the operator: it takes no new versions"
    if submission.tournament is not None and submission.tournament not in config.tournaments:
        return f"no tournament {submission.tournament!r} takes entries here"
    ledger.set_status(submission.id, "testing", bot=name)
    log(submission.id, f"unpacked {name} {manifest.version}; validating as `arena submit` does")
    file = config.tournaments.get(submission.tournament or "") or config.ladder  # no tournament named: the ladder
    live = {v.hash for v in store.versions(name)}
    try:
        done = submit(store, manifest.folder or bot, tournament=str(file) if file else None, matches=config.smoke,
                      progress=lambda step: log(submission.id, step.replace(str(bot), "your bot's folder")),
                      author=submission.account)
    except ArenaError as error:
        return str(error)
    try:
        claimed = ledger.claim(name, submission.account)
        refusal = None if claimed else f"the name {name!r} was taken by another author meanwhile"
    except LedgerError as error:  # the account or the bot was disabled while it was tested
        refusal = DISABLED if _disabled(ledger, submission.account) else str(error)
    if refusal is not None:
        if done.version.hash not in live:  # registered, or withdrawn and brought back, by this upload
            store.withdraw(name, done.version.hash)
        return refusal
    version = done.version
    log(submission.id, f"accepted: {version.bot}:{version.hash[:8]} ({version.label})"
        + ("" if done.new else ", the same code as a version already registered")
        + (f", entered in {done.entered}" if done.entered else ""))
    ledger.set_status(submission.id, "accepted", bot=version.bot, version=version.id)
    return None


DISABLED = "the operator disabled this account: its uploads are not entered"


def _disabled(ledger: Ledger, name: str) -> bool:
    account = ledger.account(name)
    return account is None or account.disabled is not None


def _prune(folder: Path) -> None:
    """Leave out of the unpacked upload what the registered copy leaves out (``.git`` and
    the other :data:`~arena.botspec.IGNORED` folders, bytecode): its smoke matches then play
    the code the arena keeps, and a program run from such a folder fails them rather than
    every later match."""
    for root, dirs, files in os.walk(folder):
        for name in [d for d in dirs if d in IGNORED]:
            shutil.rmtree(Path(root, name))
            dirs.remove(name)
        for name in files:
            if name.endswith(BYTECODE):
                os.unlink(Path(root, name))


def _top(folder: Path) -> Path:
    """The bot's folder in what was unpacked: ``folder`` itself, or its one folder when the
    archive held the bot's folder rather than its contents (``zip -r bot.zip bot``, a
    desktop's "compress"; the ``__MACOSX`` folder such archives carry is left out)."""
    if (folder / "bot.toml").exists():
        return folder
    inside = [p for p in folder.iterdir() if p.name != "__MACOSX"]
    if len(inside) == 1 and inside[0].is_dir() and not inside[0].is_symlink():
        return inside[0]
    return folder


def main(argv: list[str] | None = None) -> int:
    """Validate one submission: ``SETTINGS_JSON SUBMISSION_ID``."""
    parser = argparse.ArgumentParser(prog="python -m arena.host.validate")
    parser.add_argument("settings")
    parser.add_argument("submission", type=int)
    parser.add_argument("--parent", type=int, required=True, help="the host's pid: this process dies with it")
    args = parser.parse_args(argv)
    die_with_parent(args.parent)
    raw = json.loads(args.settings)
    config = HostConfig(db=Path(raw["db"]), work=Path(raw["work"]), smoke=int(raw["smoke"]),
                        ladder=None if raw["ladder"] is None else Path(raw["ladder"]),
                        tournaments={k: Path(v) for k, v in raw["tournaments"].items()},
                        archive=ArchiveLimits(**raw["archive"]))
    with Ledger(config.db) as ledger, Store(config.db) as store:
        submission = ledger.submission(args.submission)
        if submission is None or submission.status != "building":
            return 1
        try:
            validate(ledger, store, submission, config)
        except BaseException as error:  # a bug here must not leave the submission building forever
            ledger.append_log(submission.id, f"the host could not validate it: {type(error).__name__}")
            ledger.set_status(submission.id, "refused", reason="the host failed while validating it; the "
                              "operator has been told (see the host's log)")
            raise
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
