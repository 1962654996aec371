"""The bot host: runs in a Python bot's own process and speaks the protocol for it.

    python -m arena.bothost --file bots/random/bot.py --name random --version 1.0.0
    python -m arena.bothost --module my_package.my_bot --name mine --version 2.1

It loads the bot's module with pluggy (hooks in :mod:`arena.sdk`), then answers the
referee's messages on stdin/stdout until ``bye`` or end of input.  The bot's own
``print`` output goes to stderr, so it can never corrupt the protocol stream.  An
exception in the bot's code ends the process with the traceback on stderr, which the
referee records as a crash.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, BinaryIO

import pluggy

from arena import PROTOCOL_VERSION
from arena.confine import confine_from_env, take_stdio_from_env
from arena.sdk import PROJECT, BotSpec, MatchInfo

__all__ = ["load_plugin", "serve"]


def load_plugin(file: str | None = None, module: str | None = None) -> ModuleType:
    """Import a bot's module from a file (its folder joins ``sys.path``) or by name."""
    if module:
        return importlib.import_module(module)
    if not file:
        raise SystemExit("bothost: give --file or --module")
    path = os.path.abspath(file)  # os.path, not pathlib: every import delays the bot's start
    name = os.path.splitext(os.path.basename(path))[0]
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"bothost: cannot load {path}")
    plugin = importlib.util.module_from_spec(spec)
    sys.modules[name] = plugin
    spec.loader.exec_module(plugin)
    return plugin


def serve(plugin: object, name: str, version: str, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer the referee until ``bye`` or end of input."""
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(BotSpec)
    pm.register(plugin)
    hook = pm.hook
    if not hook.choose.get_hookimpls():
        raise SystemExit("bothost: the bot implements no `choose` hook")
    choose = _chooser(hook.choose)
    watches_events = bool(hook.on_event.get_hookimpls())
    out_fd = stdout.fileno()

    def send(data: bytes) -> None:
        while data:  # one syscall per message, no buffering
            data = data[os.write(out_fd, data):]

    # The referee's hello comes first.  Answer it before importing msgspec (13 ms of the
    # bot's start-up): the import then overlaps the referee's own work, and the first
    # decision has a larger time allowance anyway.
    hello = json.loads(stdin.readline() or "{}")
    if hello.get("type") != "hello":
        raise SystemExit(f"bothost: expected the referee's hello first, got {hello!r}")
    send(json.dumps({"type": "hello", "name": name, "version": version, "protocol": PROTOCOL_VERSION}).encode()
         + b"\n")

    import msgspec

    from arena.protocol import Bye, Decide, Error, Events, Hello, MatchEnd, MatchStart, RefereeMessage

    decode = msgspec.json.Decoder(RefereeMessage).decode
    encode = msgspec.json.Encoder().encode
    match: MatchInfo | None = None

    def deliver(events: list[dict[str, Any]]) -> None:
        assert match is not None
        match.events.extend(events)
        if watches_events:
            for event in events:
                hook.on_event(event=event, match=match)

    for line in stdin:
        message = decode(line)
        if type(message) is Decide:
            if message.events:
                deliver(message.events)
            action = choose(message.observation, message.legal, match)
            send(b'{"type":"action","id":%d,"action":%s}\n' % (message.id, encode(action)))
        elif type(message) is MatchStart:
            match = MatchInfo(message.match_id, message.variant, message.options, message.seat, message.players,
                              message.time)
            hook.match_start(match=match)
        elif type(message) is Events:
            if match is not None:
                deliver(message.events)
        elif type(message) is MatchEnd:
            if match is not None:
                deliver(message.events)
                hook.match_end(outcome=message.outcome, match=match)
            match = None
        elif type(message) is Hello:
            raise SystemExit("bothost: the referee said hello twice")
        elif type(message) is Error:
            print(f"referee: {message.message}", file=sys.stderr)
        elif type(message) is Bye:
            return


def _chooser(caller: pluggy.HookCaller) -> Callable[[dict[str, Any], list[str], MatchInfo | None], Any]:
    """A function calling the bot's ``choose``: directly when a single plain implementation
    exists (the hot path: pluggy's dispatch costs more than a trivial bot's decision)."""
    impls = caller.get_hookimpls()
    if len(impls) == 1 and not (impls[0].hookwrapper or impls[0].wrapper):
        function, names = impls[0].function, impls[0].argnames

        def direct(observation: dict[str, Any], legal: list[str], match: MatchInfo | None) -> Any:
            given = {"observation": observation, "legal": legal, "match": match}
            return function(*[given[n] for n in names])

        return direct
    return lambda observation, legal, match: caller(observation=observation, legal=legal, match=match)


def _arguments(argv: list[str]) -> dict[str, str]:
    """``--flag value`` pairs.  Not argparse: its import alone adds 7 ms to every bot's start."""
    allowed = {"--file", "--module", "--name", "--version"}
    if len(argv) % 2 or any(flag not in allowed for flag in argv[::2]):
        raise SystemExit(f"usage: python -m arena.bothost (--file BOT.py | --module MODULE) --name N --version V\n"
                         f"{__doc__}")
    args = dict(zip(argv[::2], argv[1::2]))
    if "--name" not in args or "--version" not in args:
        raise SystemExit("bothost: --name and --version are required")
    return args


def main(argv: list[str] | None = None) -> None:
    take_stdio_from_env()
    confine_from_env()  # before any of the bot's code is imported
    args = _arguments(sys.argv[1:] if argv is None else argv)
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the bot's output, even from C code, must not reach the protocol stream
    sys.stdout = sys.stderr
    plugin = load_plugin(args.get("--file"), args.get("--module"))
    serve(plugin, args["--name"], args["--version"], sys.stdin.buffer, protocol_out)


if __name__ == "__main__":
    main()
