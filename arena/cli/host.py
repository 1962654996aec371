"""``arena host``: the pages and the door through which authors on other machines enter
bots.  The host package is imported inside the command, so other commands never load it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli._app import app, fail, user_errors
from arena.cli.results import Db
from arena.tournament.store import DEFAULT_DB


@app.command("host")
@user_errors
def host(
    db: Db = DEFAULT_DB,
    address: Annotated[str, typer.Option("--host", help="The address to listen on. Behind a TLS reverse proxy "
                                         "keep the default and let the proxy listen (docs/HOSTING.md).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on (0: any free port, printed).", min=0,
                                      max=65535)] = 8000,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", help="The public name authors reach the host by (repeatable): requests under any other "
                               "name are refused.")] = None,
    tournament: Annotated[list[Path] | None, typer.Option(
        "--tournament", "-t", help="A tournament file authors may enter remotely (repeatable; the file must say "
                                   "`open = true`).")] = None,
    ladder: Annotated[Path | None, typer.Option(
        "--ladder", help="A ladder file (`mode = \"ladder\"`, `open = true`) the host keeps playing, in a process of "
                         "its own, restarted if it stops: accepted bots enter it unless they name another "
                         "tournament.")] = None,
    signup: Annotated[bool, typer.Option("--signup/--no-signup", help="Let visitors create their own accounts "
                                         "at /signup (default: only `arena accounts add`).")] = False,
    per_account_day: Annotated[int, typer.Option(help="Submissions an account may make in 24 hours.", min=1)] = 5,
    per_address_day: Annotated[int, typer.Option(help="Submissions and sign-ups from one network address in 24 "
                                                 "hours.", min=1)] = 20,
    archive_kib: Annotated[int, typer.Option(help="The largest upload, KiB (unpacked, a bot may hold 64 MiB and "
                                             "4,096 files, as `arena submit` allows).", min=1)] = 8192,
    upload_seconds: Annotated[float, typer.Option(help="The longest an upload may take to arrive: a client that "
                                                  "trickles its body is cut off.", min=0.1)] = 120.0,
    validate_seconds: Annotated[float, typer.Option(help="The longest one validation may take (build and smoke "
                                                    "matches): past it the submission is refused.", min=0.1)] = 900.0,
    behind_proxy: Annotated[bool, typer.Option(
        "--behind-proxy", help="Trust the reverse proxy's X-Forwarded-For, -Proto and -Host headers (one hop), so "
                               "that per-address limits count authors, not the proxy. Only when nothing but the "
                               "proxy can reach the host (keep --host on loopback): anyone else could claim any "
                               "address.")] = False,
    tls: Annotated[bool, typer.Option("--tls", help="The host is behind a TLS reverse proxy: session cookies are "
                                      "marked Secure.")] = False,
    work: Annotated[Path | None, typer.Option(help="Where uploads are unpacked and validated (default: host-work "
                                              "beside the database).", file_okay=False)] = None,
) -> None:
    """Serve the pages and take entries from authors on other machines.

    Authors get accounts and tokens from `arena accounts add` (or sign up, with --signup),
    then run `arena submit ./my-bot --to https://THIS-HOST` or upload an archive at /my/.
    Each upload is stored before the author hears "queued", then validated as `arena
    submit` does, one at a time, in the sandbox; its log is shown to its author and the
    operators only.  The host writes entries and its accounts into the results database;
    it plays a ladder (--ladder) and a competition's final once its deadline has passed
    (--tournament with a deadline); `arena run` plays any other tournament.  Ctrl+C stops;
    a restart resumes the queue, the ladder and the final.  docs/HOSTING.md describes it,
    with the reverse proxy, a systemd unit, the limits and backups.
    """
    from arena.host.app import serve_host
    from arena.host.archive import ArchiveLimits
    from arena.host.config import HostConfig
    from arena.host.ledger import Ledger
    from arena.host.queue import work_folder
    from arena.tournament.spec import load_spec

    open_here: dict[str, Path] = {}
    deadlines: dict[str, float] = {}
    for file in tournament or ():
        spec = load_spec(file)
        if not spec.open:
            raise fail(f"{file}: the tournament {spec.name!r} does not take submissions: add `open = true` to it")
        open_here[spec.name] = file.resolve()
        if spec.deadline is not None:
            deadlines[spec.name] = spec.deadline
    if ladder is not None:
        spec = load_spec(ladder)
        if spec.mode != "ladder" or not spec.open:
            raise fail(f"--ladder {ladder}: the file must say `mode = \"ladder\"` and `open = true`")
        open_here[spec.name] = ladder.resolve()
    config = HostConfig(db=db.resolve(), work=(work or work_folder(db)).resolve(), tournaments=open_here,
                        signup=signup, per_account_day=per_account_day, per_address_day=per_address_day,
                        archive=ArchiveLimits(archive_bytes=archive_kib * 1024), body_seconds=upload_seconds,
                        validate_seconds=validate_seconds, deadlines=deadlines, secure_cookies=tls,
                        behind_proxy=behind_proxy,
                        ladder=None if ladder is None else ladder.resolve())
    with Ledger(config.db):  # a foreign or newer database is reported now
        pass
    for path in (config.db, config.db.with_name(config.db.name + "-wal"), config.db.with_name(config.db.name + "-shm")):
        if path.exists():
            path.chmod(0o600)  # every upload, private log and address is in it
    if config.work.exists() and config.work.stat().st_mode & 0o022:
        raise fail(f"--work {config.work}: other users can write there (they could plant links where uploads are "
                   "unpacked): give a folder only this user can write")

    def announce(url: str) -> None:
        typer.echo(f"hosting {db} at {url}  (Ctrl+C stops)")
        typer.echo(f"authors: arena submit ./my-bot --to {url}   (accounts: arena accounts add NAME)")

    try:
        serve_host(config, address, port, announce, tuple(allowed_host or ()))
    except OSError as error:
        raise fail(f"cannot listen on {address}:{port}: {error.strerror or error}; choose another --port") from None
    except BaseExceptionGroup as group:
        listening, _ = group.split(OSError)
        if listening is None:
            raise
        raise fail(f"cannot listen on {address}:{port}: {listening.exceptions[0]}; choose another --port") from None
