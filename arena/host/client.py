"""The author's side of a host: ``arena submit ./my-bot --to https://HOST``.

It packs the folder (:func:`arena.host.archive.pack`: the limits are checked before
anything is sent), uploads it with the author's token and follows the submission to its
end.  The token is read from ``ARENA_TOKEN`` or from a file only its owner can read
(``~/.config/arena/token``, mode 600), never from the command line, where every user of
the machine could read it (``ps``) and the shell's history would keep it.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote, urlsplit

import httpx

from arena.errors import ArenaError
from arena.host.archive import pack

__all__ = ["ClientError", "TOKEN_ENV", "Outcome", "read_token", "submit_remote", "token_file", "withdraw_remote"]

TOKEN_ENV: Final = "ARENA_TOKEN"
POLL_S: Final = 1.0
"""How often the client asks how its submission is doing."""


class ClientError(ArenaError, RuntimeError):
    """The host could not be reached, refused the request, or no token was found."""


@dataclass(frozen=True)
class Outcome:
    """How a remote submission ended."""

    id: int
    status: str
    bot: str | None
    reason: str | None
    log: str


def token_file() -> Path:
    """Where the token is kept when ``ARENA_TOKEN`` is not set."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "arena" / "token"


def read_token() -> str:
    """The author's token: ``ARENA_TOKEN``, else the token file (refused when others can read it)."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token:
        return token
    path = token_file()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ClientError(f"no token: set {TOKEN_ENV}, or put the token the host's operator gave you in {path} "
                          f"(`install -m 600 /dev/stdin {path}` and paste it)") from None
    except OSError as error:
        raise ClientError(f"cannot read the token file {path}: {error.strerror}") from None
    with os.fdopen(fd, encoding="utf-8") as file:
        mode = os.fstat(file.fileno()).st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ClientError(f"{path} can be read by other users of this machine (mode {stat.S_IMODE(mode):o}): "
                              f"`chmod 600 {path}`, and rotate the token if others may have read it")
        token = file.read(4096).strip()
    if not token:
        raise ClientError(f"{path} is empty: put the token in it")
    return token


def _base(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ClientError(f"--to {url!r}: give the host's address, e.g. https://arena.example.org")
    if parts.scheme == "http" and parts.hostname not in ("localhost", "127.0.0.1", "::1"):
        raise ClientError(f"--to {url!r}: a token sent over plain http can be read on the way; use https:// "
                          "(only this machine's own address may use http)")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def _error(response: httpx.Response) -> ClientError:
    try:
        message = str(response.json().get("error", ""))
    except ValueError:
        message = ""
    return ClientError(f"the host refused ({response.status_code}): {message or response.reason_phrase}")


def withdraw_remote(bot: str, to: str, *, token: str | None = None, timeout_s: float = 60.0) -> list[str]:
    """Withdraw every version of ``bot`` (yours) from the host at ``to``; the versions withdrawn."""
    base = _base(to)
    try:
        with httpx.Client(timeout=timeout_s, headers={"authorization": f"Bearer {token or read_token()}"}) as client:
            response = client.post(f"{base}/api/bots/{quote(bot, safe='')}/withdraw")
    except httpx.HTTPError as error:
        raise ClientError(f"cannot reach {base}: {error}") from None
    if response.status_code != 200:
        raise _error(response)
    return [str(v) for v in response.json()["withdrawn"]]


def submit_remote(folder: Path, to: str, *, tournament: str | None = None, token: str | None = None,
                  progress: Callable[[dict[str, Any]], None] = lambda _: None, follow: bool = True,
                  timeout_s: float = 60.0) -> Outcome:
    """Upload ``folder`` to the host at ``to`` and (``follow``) wait for its verdict,
    telling ``progress`` every state seen."""
    if not (folder / "bot.toml").is_file():
        raise ClientError(f"{folder}: not a bot folder (no bot.toml); docs/BOTS.md")
    base = _base(to)
    data = pack(folder)
    headers = {"authorization": f"Bearer {token or read_token()}", "content-type": "application/octet-stream"}
    try:
        with httpx.Client(timeout=timeout_s, headers=headers, follow_redirects=False) as client:
            response = client.post(f"{base}/api/submissions", content=data,
                                   params={"tournament": tournament} if tournament else None)
            if response.status_code != 202:
                raise _error(response)
            state: dict[str, Any] = response.json()
            progress(state)
            seen = 0
            while follow and not state.get("final"):
                time.sleep(POLL_S)
                response = client.get(f"{base}/api/submissions/{state['id']}")
                if response.status_code != 200:
                    raise _error(response)
                state = response.json()
                if len(state.get("log", "")) != seen or state.get("final"):
                    seen = len(state.get("log", ""))
                    progress(state)
    except httpx.HTTPError as error:
        raise ClientError(f"cannot reach {base}: {error}") from None
    return Outcome(int(state["id"]), str(state["status"]), state.get("bot"), state.get("reason"),
                   str(state.get("log", "")))
