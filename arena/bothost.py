"""The bot host: runs in a Python bot's own process and speaks the protocol for it.

    python -m arena.bothost --file bots/random/bot.py --name random --version 1.0.0
    python -m arena.bothost --module my_package.my_bot --name mine --version 2.1

It loads the bot's module, finds its hook implementations (marked with
:data:`arena.sdk.hookimpl`), then answers the referee's messages on stdin/stdout until
``bye`` or end of input.  The bot's own ``print`` output goes to stderr, so it can never
corrupt the protocol stream.  An exception in the bot's code ends the process with the
traceback on stderr, which the referee records as a crash.

Everything before the ``hello`` reply counts against the bot's start-up, so this module
imports only what that needs.  Plain hook functions (nearly every bot) are called
directly, with the arguments they name, as pluggy would call them; pluggy itself (whose
import costs ~10 ms) loads only for a bot whose hooks need more: wrappers, ``specname``,
methods, decorated functions, or arguments that are not in the hook specification
(pluggy then reports the error).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from types import FunctionType, MethodType, ModuleType

from arena import PROTOCOL_VERSION
from arena.lightjson import json_loads, json_string
from arena.sandbox.confine import confine_from_env, take_stdio_from_env
from arena.sdk import PROJECT, BotSpec, MatchInfo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

    _Hook = Callable[..., Any]
    _Callers = tuple[_Hook, _Hook | None, _Hook | None, _Hook | None]

__all__ = ["load_plugin", "serve"]

_MARK = PROJECT + "_impl"  # the mark pluggy's HookimplMarker puts (arena.sdk says why it is read here directly)
_SPEC_ARGS = {  # the hooks' arguments, ``self`` left out, as pluggy reads them
    name: code.co_varnames[1:code.co_argcount]
    for name, code in ((n, getattr(BotSpec, n).__code__) for n in ("choose", "match_start", "on_event", "match_end"))
}


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


def direct_hooks(plugin: ModuleType) -> dict[str, tuple[Callable[..., Any], tuple[str, ...]]] | None:
    """The module's hook implementations as ``{hook: (function, argument names)}``, when
    each is a plain function that pluggy would call as ``function(*named arguments)``;
    None when pluggy must register the module (see the module's docstring).

    Discovery follows ``PluginManager.register``: every name of ``dir(plugin)``, looked
    up without running descriptors, marked ``arena-bot_impl``; the argument names are the
    positional parameters without defaults (those with defaults are never passed)."""
    namespace = vars(plugin)
    hooks: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = {}
    for name in dir(plugin):
        value = namespace.get(name)
        if type(value) is not FunctionType:
            if isinstance(value, (MethodType, staticmethod, classmethod)) and (
                    getattr(value, _MARK, None) is not None or getattr(value.__func__, _MARK, None) is not None):
                return None  # a marked method: pluggy decides how to bind it
            continue
        marks = getattr(value, _MARK, None)
        if not isinstance(marks, dict):
            continue  # unmarked, or not pluggy's mark: pluggy ignores it too
        if marks.get("specname"):
            return None
        if name not in _SPEC_ARGS:
            continue  # no such hook: pluggy registers it, but nothing calls it
        if (marks.get("wrapper") or marks.get("hookwrapper") or hasattr(value, "__wrapped__")
                or "." in value.__qualname__.rsplit("<locals>.", 1)[-1]):  # a method's function
            return None
        code = value.__code__
        argnames = code.co_varnames[:code.co_argcount]
        if value.__defaults__:
            argnames = argnames[:-len(value.__defaults__)]
        if not set(argnames) <= set(_SPEC_ARGS[name]):
            return None  # pluggy raises the validation error
        hooks[name] = (value, argnames)
    return hooks


def serve(plugin: ModuleType, name: str, version: str, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer the referee until ``bye`` or end of input."""
    choose, match_start, on_event, match_end = _callers(plugin)
    out_fd = stdout.fileno()

    def send(data: bytes) -> None:
        while data:  # one syscall per message, no buffering
            data = data[os.write(out_fd, data):]

    # The referee's hello comes first.  Answer it before importing msgspec (13 ms of the
    # bot's start-up): the import then overlaps the referee's own work, and the first
    # decision has a larger time allowance anyway.  Written by hand, the reply is still
    # a BotHello of arena.protocol (tests/referee/test_messages.py decodes it strictly).
    hello = json_loads(stdin.readline() or "{}")
    if hello.get("type") != "hello":
        raise SystemExit(f"bothost: expected the referee's hello first, got {hello!r}")
    send(f'{{"type": "hello", "name": {json_string(name)}, "version": {json_string(version)}, '
         f'"protocol": {PROTOCOL_VERSION}}}\n'.encode())

    import msgspec

    from arena.protocol import ACTION, Bye, Decide, Error, Events, Hello, MatchEnd, MatchStart, RefereeMessage

    decode = msgspec.json.Decoder(RefereeMessage).decode
    encode = msgspec.json.Encoder().encode
    match: MatchInfo | None = None

    def deliver(events: list[dict[str, Any]]) -> None:
        assert match is not None
        match.events.extend(events)
        if on_event is not None:
            for event in events:
                on_event(event, match)

    for line in stdin:
        message = decode(line)
        if type(message) is Decide:
            if message.events:
                deliver(message.events)
            action = choose(message.observation, message.legal, match, message.time_left_ms)
            send(ACTION % (message.id, encode(action)))
        elif type(message) is MatchStart:
            match = MatchInfo.starting(message)
            if match_start is not None:
                match_start(match)
        elif type(message) is Events:
            if match is not None:
                deliver(message.events)
        elif type(message) is MatchEnd:
            if match is not None:
                deliver(message.events)
                if match_end is not None:
                    match_end(message.outcome, match)
            match = None
        elif type(message) is Hello:
            raise SystemExit("bothost: the referee said hello twice")
        elif type(message) is Error:
            print(f"referee: {message.message}", file=sys.stderr)
        elif type(message) is Bye:
            return


def _callers(plugin: ModuleType) -> _Callers:
    """Callables for ``choose``, ``match_start``, ``on_event`` and ``match_end`` taking
    every argument of the hook's specification, in order (None: the bot has no such hook)."""
    hooks = direct_hooks(plugin)
    if hooks is None:
        return _pluggy_callers(plugin)
    if "choose" not in hooks:
        raise SystemExit("bothost: the bot implements no `choose` hook")
    callers: list[_Hook | None] = []
    for hook in ("choose", "match_start", "on_event", "match_end"):
        if hook not in hooks:
            callers.append(None)
            continue
        function, argnames = hooks[hook]
        spec = _SPEC_ARGS[hook]
        if argnames == spec:
            callers.append(function)
        else:
            callers.append(_picking(function, tuple(spec.index(n) for n in argnames)))
    choose, match_start, on_event, match_end = callers
    assert choose is not None
    return choose, match_start, on_event, match_end


def _picking(function: Callable[..., Any], picks: tuple[int, ...]) -> Callable[..., Any]:
    """``function`` called with the arguments at ``picks`` of those given."""
    def call(*args: Any) -> Any:
        return function(*[args[i] for i in picks])

    return call


def _pluggy_callers(plugin: ModuleType) -> _Callers:
    """:func:`_callers` through a pluggy ``PluginManager``."""
    import pluggy

    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(BotSpec)
    manager.register(plugin)
    hook = manager.hook
    if not hook.choose.get_hookimpls():
        raise SystemExit("bothost: the bot implements no `choose` hook")

    def caller(name: str) -> Callable[..., Any] | None:
        hook_caller = getattr(hook, name)
        if not hook_caller.get_hookimpls():
            return None
        spec = _SPEC_ARGS[name]
        return lambda *args: hook_caller(**dict(zip(spec, args)))

    choose = caller("choose")
    assert choose is not None
    return choose, caller("match_start"), caller("on_event"), caller("match_end")


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
