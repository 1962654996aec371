"""The operator's commands for the host: ``accounts`` (add, list, disable, enable, token,
audit) and ``backup``.  Each change is recorded in the audit log as ``operator@cli``."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Annotated, Final
from urllib.parse import quote

import typer
from tabulate import tabulate

from arena.cli._app import app, fail, user_errors
from arena.cli.tournament import DbOption
from arena.host.ledger import Ledger
from arena.text import counted, printable
from arena.tournament.store import APPLICATION_ID, DEFAULT_DB, Store, _timeout_from_environment

__all__ = ["accounts_app"]

ACTOR: Final = "operator@cli"
TOKEN_ENV: Final = "ARENA_TOKEN"
TOKEN_FILE: Final = "~/.config/arena/token"

accounts_app = typer.Typer(
    help="The host's accounts: who may submit bots over HTTP (`arena host`), with what token.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)
app.add_typer(accounts_app, name="accounts")

Name = Annotated[str, typer.Argument(metavar="NAME", help="The account's name.")]


def _show_token(name: str, token: str) -> None:
    """The token on stdout (alone, for a script to capture), how to use it on stderr."""
    typer.echo(f"the token of {name!r}, shown only this once (only its hash is kept):", err=True)
    typer.echo(token)
    typer.echo(f"give it to its author, who either runs `export {TOKEN_ENV}=...` or saves it in {TOKEN_FILE} "
               f"(mode 600); `arena submit --to URL` reads it from there", err=True)


def _when(at: float, *, seconds: bool = False) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M", time.localtime(at))


@accounts_app.command("add")
@user_errors
def add(
    name: Annotated[str, typer.Argument(metavar="NAME",
                                        help="The new account's name: 1 to 32 of a-z, 0-9, '_', '.' and '-'.")],
    operator: Annotated[bool, typer.Option("--operator", help="An operator's account (runs the host).")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Add an account and print its token, once: only the token's hash is stored."""
    with Ledger(db) as ledger:
        account, token = ledger.add_account(name, operator=operator, actor=ACTOR)
    typer.echo(f"added {'operator ' if account.operator else ''}account {account.name!r}", err=True)
    _show_token(account.name, token)


@accounts_app.command("list")
@user_errors
def list_accounts(db: DbOption = DEFAULT_DB) -> None:
    """List the accounts: operator or not, created when, state (active, disabled,
    locked after repeated wrong tokens) and the bot names each owns."""
    with Ledger(db) as ledger:
        rows = [[a.name, "yes" if a.operator else "", _when(a.created),
                 "disabled" if a.disabled is not None else "locked" if a.locked() else "active",
                 ", ".join(ledger.bots_of(a.name))] for a in ledger.accounts()]
    if not rows:
        typer.echo(f"no accounts in {db}; `arena accounts add NAME` adds one")
        return
    typer.echo(tabulate(rows, headers=["account", "operator", "created", "state", "bots"]))


@accounts_app.command("disable")
@user_errors
def disable(name: Name, db: DbOption = DEFAULT_DB) -> None:
    """Disable an account: its token is refused and its sessions end at once.  Its bots and
    their results stay; `arena accounts enable` undoes it."""
    with Ledger(db) as ledger:
        ledger.disable_account(name, actor=ACTOR)
    typer.echo(f"disabled {name!r}: its token is refused and its sessions ended")


@accounts_app.command("enable")
@user_errors
def enable(name: Name, db: DbOption = DEFAULT_DB) -> None:
    """Enable a disabled account again (its token works again), or unlock one locked after
    repeated wrong tokens."""
    with Ledger(db) as ledger:
        ledger.enable_account(name, actor=ACTOR)
    typer.echo(f"enabled {name!r}: its token works")


@accounts_app.command("disable-bot")
@user_errors
def disable_bot(
    bot: Annotated[str, typer.Argument(metavar="BOT", help="The registered bot's name.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Disable a hosted bot: every version is withdrawn (no longer scheduled; its results
    stay) and its owner can submit no new version of it."""
    with Ledger(db) as ledger, Store(db) as store:
        ledger.disable_bot(bot, actor=ACTOR)
        gone = store.withdraw(bot)
    typer.echo(f"disabled {bot!r}: withdrew {', '.join(v.short for v in gone) or 'no active version'}; its "
               "owner can enter no new version")


@accounts_app.command("token")
@user_errors
def token(
    name: Name,
    rotate: Annotated[bool, typer.Option("--rotate", help="Replace the token with a new one, printed once.")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Give an account a new token (--rotate): the old one stops working at once and its
    sessions end.  Tokens are stored only as hashes, so none can be shown again."""
    with Ledger(db) as ledger:
        if not rotate:
            if ledger.account(name) is None:
                raise fail(f"no account {name!r}")
            raise fail(f"tokens are stored only as hashes and cannot be shown again: `arena accounts token {name} "
                       "--rotate` makes a new one (the old one then stops working)")
        new = ledger.rotate_token(name, actor=ACTOR)
    _show_token(name, new)


@accounts_app.command("audit")
@user_errors
def audit(
    limit: Annotated[int, typer.Option(help="Show this many entries.", min=1)] = 50,
    db: DbOption = DEFAULT_DB,
) -> None:
    """The audit log, newest first: who (account, `operator@cli`, or `host`) did what, to
    what, from which address."""
    with Ledger(db) as ledger:
        entries = ledger.audit(limit=limit)
    if not entries:
        typer.echo(f"the audit log of {db} is empty")
        return
    rows = [[_when(e.at, seconds=True), *(printable(x, lines=False) for x in (e.actor, e.action, e.target,
                                                                                e.address, e.detail))]
            for e in entries]
    typer.echo(tabulate(rows, headers=["when", "actor", "action", "target", "address", "detail"]))


@app.command("backup")
@user_errors
def backup(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="The copy to write.", dir_okay=False)],
    db: Annotated[Path, typer.Option("--db", envvar="ARENA_DB", help="The database to copy.")] = DEFAULT_DB,
    force: Annotated[bool, typer.Option("--force", help="Replace FILE if it exists.")] = False,
) -> None:
    """Copy the results database (matches, bots, accounts, submissions) consistently, while
    `arena run` or `arena host` may be writing it: SQLite's online backup copies one moment
    of it.  The copy is checked (integrity_check) before it takes FILE's name, and has mode
    600: it holds the tournaments' secret deal keys."""
    if file.exists() and not force:
        raise fail(f"{file} exists: give another file, or --force to replace it")
    if not db.is_file():
        raise fail(f"no database at {db}: --db names the database to copy")
    matches, accounts = _backup(db, file)
    typer.echo(f"copied {db} to {file}: {_size(file.stat().st_size)}, {counted(matches, 'match')}, "
               f"{counted(accounts, 'account')}; integrity check ok")


def _backup(db: Path, file: Path) -> tuple[int, int]:
    """Copy ``db`` to a temporary file beside ``file``, check it, then rename it to ``file``
    (so ``file`` is never half written); (matches, accounts) copied."""
    timeout_s = _timeout_from_environment()
    try:
        fd, name = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".tmp", dir=file.parent)  # mode 600
    except OSError as error:
        raise fail(f"cannot write in {file.parent}: {error.strerror}") from None
    os.close(fd)
    temp = Path(name)
    try:
        try:
            with contextlib.closing(sqlite3.connect(f"file:{quote(str(db.resolve()))}?mode=ro", uri=True,
                                                    timeout=timeout_s)) as source, \
                    contextlib.closing(sqlite3.connect(temp, timeout=timeout_s)) as copy:
                source.backup(copy)  # all pages in one step: one read transaction, one moment of the database
                counts = _check_copy(copy, db)
        except sqlite3.Error as error:
            raise fail(f"cannot copy {db}: {error}") from None
        try:
            fd = os.open(temp, os.O_RDONLY)
            try:
                os.fsync(fd)  # on disk before it takes the name
            finally:
                os.close(fd)
            os.replace(temp, file)
        except OSError as error:
            raise fail(f"cannot write {file}: {error.strerror}") from None
    finally:
        temp.unlink(missing_ok=True)
    return counts


def _check_copy(copy: sqlite3.Connection, db: Path) -> tuple[int, int]:
    """(matches, accounts) in the copy; fails unless it is whole and an arena database."""
    problems = [r[0] for r in copy.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        raise fail(f"the copy of {db} fails its integrity check ({'; '.join(problems[:3])}): {db} itself may be "
                   f"damaged; `sqlite3 {db} .recover` saves what it still holds")
    tables = {r[0] for r in copy.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if copy.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID and "matches" not in tables:
        raise fail(f"{db} is an SQLite database of another program, not a results database")
    matches = copy.execute("SELECT COUNT(*) FROM matches").fetchone()[0] if "matches" in tables else 0
    accounts = copy.execute("SELECT COUNT(*) FROM accounts").fetchone()[0] if "accounts" in tables else 0
    return int(matches), int(accounts)


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    scaled = size / 1024
    for unit in ("KiB", "MiB"):
        if scaled < 1024:
            return f"{scaled:.1f} {unit}"
        scaled /= 1024
    return f"{scaled:.1f} GiB"
