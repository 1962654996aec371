"""Tournament files: what a valid one means, and a clear ``file:line`` error for every
kind of mistake (the ``arena run`` tests check the same through the command)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tourney import arena, copy_bot, scratch

from arena.botspec import BOTS_DIR
from arena.referee import FaultPolicy, TimeControl
from arena.sandbox import Limits
from arena.tournament.runner import RunError, entrants
from arena.tournament.spec import TOURNAMENTS_DIR, Settle, SpecError, load_spec, parse_spec
from arena.tournament.store import Store

VALID = """\
name = "cup"
entrants = ["random", "threshold"]
deals = 3
seed = 9

[time]
move_ms = 250

[faults]
policy = "substitute"
strikes = 2

[[variant]]
name = "scat"
tables = [3, 2, 3]

[[variant]]
name = "scat"
options = { deck = 32 }

[[variant]]
name = "no-elimination"
tables = [2]
[variant.options]
lives = 5
"""


def test_a_valid_file_becomes_a_spec_with_its_settings_and_defaults(tmp_path: Path) -> None:
    path = tmp_path / "cup.toml"
    path.write_text(VALID, encoding="utf-8")
    spec = load_spec(path)
    assert (spec.name, spec.entrants, spec.deals, spec.seed, spec.mode, spec.open) == (
        "cup", ("random", "threshold"), 3, 9, "round-robin", False)
    assert spec.time == TimeControl(move_ms=250)
    assert spec.policy == FaultPolicy("substitute", 2)
    assert [(p.variant.name, p.options, p.tables) for p in spec.variants] == [
        ("scat", {}, (2, 3)), ("scat", {"deck": 32}, (4,)), ("no-elimination", {"lives": 5}, (2,))]
    assert spec.source == path and spec.to_dict()["variants"][1]["options"] == {"deck": 32}


def test_limits_and_ponder_are_read_and_default_sensibly() -> None:
    spec = parse_spec('[time]\nponder = true\n[limits]\nscratch_mb = 8\nscratch_files = 100\n'
                      '[[variant]]\nname = "scat"\n')
    assert spec.time.ponder and (spec.limits.scratch_mb, spec.limits.scratch_files) == (8, 100)
    assert spec.to_dict()["limits"] == {"scratch_mb": 8, "scratch_files": 100}
    default = parse_spec('[[variant]]\nname = "scat"\n')
    assert not default.time.ponder and default.limits == Limits()
    with pytest.raises(SpecError, match="scratch_files"):
        parse_spec('[limits]\nscratch_files = 3\n[[variant]]\nname = "scat"\n')


def test_the_name_defaults_to_the_file_name_and_bundled_files_load_by_name(tmp_path: Path) -> None:
    path = tmp_path / "spring-cup.toml"
    path.write_text('[[variant]]\nname = "scat"\n', encoding="utf-8")
    assert load_spec(path).name == "spring-cup"
    demo = load_spec("demo")
    assert demo.source == TOURNAMENTS_DIR / "demo.toml" and demo.entrants


def test_authors_apart_is_read_and_left_to_the_entrants_authors_by_default() -> None:
    """Unset, the scheduler decides from the entrants (on unless they all share one author)."""
    variant = '[[variant]]\nname = "scat"\n'
    assert parse_spec(variant).authors_apart is None
    assert parse_spec(f"authors_apart = true\n{variant}").authors_apart is True
    off = parse_spec(f"authors_apart = false\n{variant}")
    assert off.authors_apart is False and off.to_dict()["authors_apart"] is False
    assert off.locate("authors_apart") == "<tournament>:1"


def test_a_competitions_final_plays_to_a_settled_stop_unless_its_file_says_how() -> None:
    variant = '[[variant]]\nname = "scat"\n'
    competition = f"open = true\ndeadline = 2026-12-24T18:00:00Z\n{variant}"
    assert parse_spec(competition).settle == Settle()
    assert parse_spec(f"{competition}[settle]\nmax_matches = 40\n").settle == Settle(0.95, 40)
    assert parse_spec(variant).settle is None, "a plain tournament plays its deals"


def test_a_missing_file_names_the_bundled_tournaments() -> None:
    with pytest.raises(SpecError, match=r"no tournament file 'nowhere'.*demo"):
        load_spec("nowhere")


ERRORS = [
    # (file text, line, what the message must say)
    ('deals = 2\nseed = \n[[variant]]\nname = "scat"\n', 2, "not valid TOML"),
    ('name = "x"\n', 1, "missing required field `variant`"),
    ("variant = []\n", 1, "at least one [[variant]]"),
    ('dealz = 2\n[[variant]]\nname = "scat"\n', 1, "unknown field `dealz`"),
    ('[time]\nmove_ms = 100\nmovems = 5\n[[variant]]\nname = "scat"\n', 3, "unknown field `movems`"),
    ('[[variant]]\nname = "scat"\nseats = [2]\n', 3, "unknown field `seats`"),
    ('deals = "two"\n[[variant]]\nname = "scat"\n', 1, "deals: Expected `int`, got `str`"),
    ('deals = 0\n[[variant]]\nname = "scat"\n', 1, "deals: Expected `int` >= 1"),
    ('[time]\n\nbank_ms = -1\n[[variant]]\nname = "scat"\n', 3, "time.bank_ms: Expected `int` >= 0"),
    ('[faults]\npolicy = "forgive"\n[[variant]]\nname = "scat"\n', 2, "faults.policy: Invalid enum value 'forgive'"),
    ('[[variant]]\nname = "scat"\n[[variant]]\nname = "scta"\n', 4, "unknown variant 'scta'"),
    ('[[variant]]\nname = "scat"\noptions = { deck = 33 }\n', 3, "option 'deck' takes one of 52, 32, not 33"),
    ('[[variant]]\nname = "scat"\n\n[variant.options]\nlives = 3\nlifes = 4\n', 6, "unknown option 'lifes'"),
    ('[[variant]]\nname = "scat"\n[[variant]]\nname = "eenendertigen"\n[variant.options]\ndeck = 33\n', 6,
     "option 'deck'"),
    ('[[variant]]\nname = "scat"\ntables = [2, 1]\n', 3, "variant.tables: Expected `int` >= 2"),
    ('[[variant]]\nname = "empat-satu"\ntables = [2, 9]\n', 3, "table size 9: empat-satu is for 2 to 8 players"),
    ('[[variant]]\nname = "scat"\n[[variant]]\nname = "scat"\noptions = { deck = 52 }\n', 4,
     "variant 'scat' with these options is already [[variant]] number 1"),
    ('entrants = ["random",\n  "random"]\n[[variant]]\nname = "scat"\n', 1, "entrant 'random' is listed twice"),
    ('mode = "gauntlet"\n[[variant]]\nname = "scat"\n', 1, "gauntlet mode needs challenger"),
    ('seed = 1\nchallenger = "random"\n[[variant]]\nname = "scat"\n', 2, "challenger is only for mode = \"gauntlet\""),
    ('seed = 1\nrequire = ["bwrap", "chroot"]\n[[variant]]\nname = "scat"\n', 2, "unknown sandbox layer(s) chroot"),
    ('seed = 1\nname = "my cup"\n[[variant]]\nname = "scat"\n', 2, "tournament name 'my cup'"),
    ('seed = 1\nauthors_apart = "yes"\n[[variant]]\nname = "scat"\n', 2, "authors_apart: Expected `bool`"),
]


@pytest.mark.parametrize(("text", "line", "message"), ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_every_mistake_is_named_with_its_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert str(caught.value).startswith(f"{path}:{line}: "), str(caught.value)
    assert message in str(caught.value)


def test_entrant_folders_are_relative_to_the_file_and_an_unknown_one_registers_nothing(tmp_path: Path) -> None:
    shutil.copytree(BOTS_DIR / "random", tmp_path / "mine" / "random", ignore=shutil.ignore_patterns("__pycache__"))
    good = tmp_path / "good.toml"
    good.write_text('entrants = ["./mine/random", "threshold"]\n[[variant]]\nname = "scat"\n', encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text('entrants = ["./mine/random",\n  "./mine/nobody"]\n[[variant]]\nname = "scat"\n', encoding="utf-8")
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(RunError, match=rf"^{bad}:1: .*mine/nobody"):
            entrants(load_spec(bad), store)
        assert store.versions() == [] and not (tmp_path / "registry").exists()
        playing = entrants(load_spec(good), store)
        versions = playing.versions
        assert playing.challenger is None
        assert sorted(v.bot for v in versions) == ["random", "threshold"]
        copy = Path(next(v.path for v in versions if v.bot == "random") or "")
        assert copy.is_relative_to(tmp_path / "registry") and (copy / "bot.py").is_file()


def test_every_problem_of_a_file_is_reported_at_once(tmp_path: Path) -> None:
    """A misspelt variant was reported, and the misspelt bots only on the next run; now
    ``arena run`` lists each problem with its line, and plays nothing."""
    path = tmp_path / "typos.toml"
    path.write_text('entrants = ["rnadom", "threshold",\n  "huristic"]\n[[variant]]\nname = "sact"\n'
                    '[[variant]]\nname = "scat"\ntables = [10]\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(path), "--db", str(tmp_path / "arena.db")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    problems = [line for line in done.stderr.removeprefix("error: ").splitlines() if line.startswith(str(path))]
    assert [p.split(": ")[0] for p in problems] == [f"{path}:4", f"{path}:7", f"{path}:1", f"{path}:1"], done.stderr
    assert "unknown variant 'sact'" in problems[0] and "table size 10" in problems[1]
    assert "unknown bot 'rnadom'" in problems[2] and "unknown bot 'huristic'" in problems[3]
    with Store(tmp_path / "arena.db") as store:
        assert store.count() == 0 and store.versions() == []


VARIANT = '[[variant]]\nname = "scat"\n'
DEEP = [
    # (file text, line, what nests too deep)
    (VARIANT + "options.x = " + "[" * 100_000 + "]" * 100_000 + "\n", 3, "arrays and tables"),
    (VARIANT + "\noptions = { x = " + "{ a = " * 100_000 + "1" + " }" * 100_000 + " }\n", 4, "arrays and tables"),
    ("deals = 2\n" + VARIANT + "options." + ".".join(["a"] * 3000) + " = 1\n", 4, "dotted key"),
    (VARIANT + '[variant.options."' + '"."'.join(["a"] * 3000) + '"]\n', 3, "dotted key"),
]


@pytest.mark.parametrize(("text", "line", "what"), DEEP, ids=["arrays", "inline-tables", "dotted-key", "header"])
def test_a_file_nested_too_deep_is_refused_at_its_line(tmp_path: Path, text: str, line: int, what: str) -> None:
    """tomllib reads nesting by recursion (100,000 levels raised RecursionError), and a
    dotted key's parts in quadratic memory (20,000 parts took 2.4 GB)."""
    path = tmp_path / "deep.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert str(caught.value).startswith(f"{path}:{line}: not valid TOML: "), str(caught.value)
    assert what in str(caught.value) and "nested deeper than" in str(caught.value)


def test_brackets_and_dots_in_strings_and_comments_are_not_nesting(tmp_path: Path) -> None:
    path = tmp_path / "cup.toml"
    lines = [
        'description = """' + "[{" * 50,
        '"" ' + "a." * 50 + '"""  # ' + "[" * 50,
        "entrants = ['" + "[{." * 50 + "', " + '"\\"' + "]." * 50 + '"]',
    ]
    path.write_text("\n".join(lines) + "\n" + VARIANT, encoding="utf-8")
    spec = load_spec(path)
    assert spec.description.startswith("[{" * 50) and spec.entrants[1] == '"' + "]." * 50


def test_a_number_too_long_to_read_is_refused_as_toml(tmp_path: Path) -> None:
    """Python reads at most 4300 digits into an int: tomllib raised a bare ValueError."""
    path = tmp_path / "long.toml"
    path.write_text("deals = " + "9" * 5000 + "\n" + VARIANT, encoding="utf-8")
    with pytest.raises(SpecError, match=rf"^{path}: not valid TOML: .*4300 digits"):
        load_spec(path)


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


def test_run_and_submit_refuse_a_file_nested_too_deep_in_one_line(home: Path) -> None:
    path = home / "deep.toml"
    path.write_text("open = true\n" + VARIANT + "options.x = " + "[" * 100_000 + "\n", encoding="utf-8")
    bot = copy_bot(BOTS_DIR / "random", home / "mine", name="mine", variants=["scat"])
    commands: list[list[str | Path]] = [["run", path], ["submit", bot, "--tournament", path]]
    for args in commands:
        result = arena(*args, "--db", home / "arena.db")
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith(f"error: {path}:4: not valid TOML: arrays and tables nested deeper"), \
            result.stderr
        assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
