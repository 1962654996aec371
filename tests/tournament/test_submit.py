"""``arena submit``, ``arena bots`` and ``arena withdraw`` through the real command, with
real smoke matches in the sandbox and a real store."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trio
from tourney import REFEREE_BOTS, SANDBOX_BOTS, arena, copy_bot, outcomes, scratch, tournament_file

from arena.botspec import BOTS_DIR, load_manifest
from arena.sandbox import Layer, Sandbox
from arena.tournament.registry import _copy, content_hash
from arena.tournament.store import Store
from arena.tournament.submit import folder_refusal


@pytest.fixture
def home() -> Iterator[Path]:
    yield from scratch()


@pytest.fixture
def candidate(home: Path) -> Path:
    """A bot to submit: ``random`` as ``candidate``, claiming scat only (few smoke matches)."""
    return copy_bot(BOTS_DIR / "random", home / "src" / "candidate", name="candidate", variants=["scat"])


def submit(folder: Path, db: Path, *args: str) -> tuple[int, str, str]:
    result = arena("submit", folder, "--db", db, *args)
    return result.returncode, result.stdout, result.stderr


def registered_hash(out: str, bot: str) -> str:
    found = re.search(rf"{bot}:([0-9a-f]{{8}})", out)
    assert found is not None, out
    return found.group(1)


def test_a_bot_is_registered_under_its_content_hash_unchanged_code_is_recognised_and_changes_make_versions(
    home: Path, candidate: Path
) -> None:
    db = home / "arena.db"
    status, out, err = submit(candidate, db)
    assert status == 0, err
    assert "registered new version candidate:" in out and "smoke-tested against random in: scat" in out
    assert "smoke-testing scat" in err
    with Store(db) as store:
        [first] = store.versions("candidate")
    assert first.hash == content_hash(candidate) and first.hash.startswith(registered_hash(out, "candidate"))
    copy = Path(first.path or "")
    assert copy == home / "registry" / "candidate" / first.hash[:12]
    assert (copy / "bot.py").read_bytes() == (candidate / "bot.py").read_bytes()
    assert not (copy / "bot.py").stat().st_mode & 0o222, "the copy is read-only"

    status, out, err = submit(candidate, db)
    assert status == 0, err
    assert f"unchanged: already registered as candidate:{first.hash[:8]}" in out
    assert "smoke-testing" not in err  # nothing to check again

    with open(candidate / "bot.py", "a", encoding="utf-8") as file:
        file.write("\n# a change\n")
    status, out, err = submit(candidate, db)
    assert status == 2 and "give the changed bot a new `version`" in err  # one version string, one program
    manifest = candidate / "bot.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('version = "1.0.0"', 'version = "1.1.0"'))
    status, out, err = submit(candidate, db)
    assert status == 0, err
    second = registered_hash(out, "candidate")
    assert "registered new version" in out and second != first.hash[:8]
    with Store(db) as store:
        assert [v.hash[:8] for v in store.versions("candidate")] == [first.hash[:8], second]
    assert content_hash(copy) == first.hash  # the first version's copy is untouched
    listing = arena("bots", "--db", db)
    assert listing.returncode == 0
    assert first.hash[:8] in listing.stdout and second in listing.stdout


def no_manifest(home: Path) -> Path:
    (home / "empty").mkdir()
    return home / "empty"


def bad_manifest(home: Path) -> Path:
    folder = copy_bot(BOTS_DIR / "random", home / "bad", name="bad")
    with open(folder / "bot.toml", "a", encoding="utf-8") as file:
        file.write('colour = "red"\n')
    return folder


def unknown_variant(home: Path) -> Path:
    return copy_bot(BOTS_DIR / "random", home / "poker-bot", name="poker-bot", variants=["scat", "poker"])


def crashes_at_start(home: Path) -> Path:
    return copy_bot(SANDBOX_BOTS / "crash-at-start", home / "crash-at-start", variants=["scat"])


def many_mistakes(home: Path) -> Path:
    """A manifest with three mistakes: each was reported on its own, one submission at a time."""
    folder = copy_bot(BOTS_DIR / "random", home / "many", name="many")
    (folder / "bot.toml").write_text('name = "Many Mistakes"\ncolour = "red"\nentry = "bot.py"\n', encoding="utf-8")
    return folder


def plays_illegal(home: Path) -> Path:
    return copy_bot(REFEREE_BOTS / "illegal", home / "illegal", variants=["scat"])


REJECTIONS: list[tuple[Callable[[Path], Path], list[str]]] = [
    (no_manifest, ["no bot.toml", "how to fix", "docs/BOTS.md"]),
    (bad_manifest, ["bot.toml: unknown key(s) colour", "how to fix"]),
    (many_mistakes, ["bot.toml: unknown key(s) colour", "bot.toml: name 'Many Mistakes' must be lower-case",
                     "bot.toml: 'version' must be a non-empty string"]),
    (unknown_variant, ["variants lists 'poker'", "how to fix: list only known variants: scat"]),
    (crashes_at_start, ["smoke match of scat", "startup", "boom before hello", "how to fix"]),
    (plays_illegal, ["smoke match of scat", "illegal_action: 'fly'", "how to fix: choose one of the strings"]),
]


@pytest.mark.parametrize(("make", "says"), REJECTIONS, ids=[r[0].__name__ for r in REJECTIONS])
def test_a_rejected_bot_is_told_what_failed_and_how_to_fix_it_and_nothing_is_registered(
    home: Path, make: Callable[[Path], Path], says: list[str]
) -> None:
    db = home / "arena.db"
    status, out, err = submit(make(home), db)
    assert status == 2, out + err
    assert err.count("error: ") == 1 and "Traceback" not in err, err
    for text in says:
        assert text in err, err
    with Store(db) as store:
        assert store.versions(withdrawn=True) == []
    assert not (home / "registry").exists() or not any((home / "registry").iterdir())


def test_a_bot_in_a_folder_its_sandbox_user_cannot_enter_plays_behind_bubblewrap_or_is_refused_with_the_fix(
    home: Path,
) -> None:
    """Bubblewrap binds any folder into the bot's view, so the bot is accepted; without it,
    a bot running as another user could not reach its folder, and submit says how to fix it."""
    private = home / "private"
    private.mkdir(mode=0o700)
    folder = copy_bot(BOTS_DIR / "random", private / "hidden", name="hidden", variants=["scat"])
    box = trio.run(Sandbox.probe)
    status, out, err = submit(folder, home / "arena.db")
    if box.status[Layer.BWRAP].active or not box.status[Layer.UID].active:
        assert status == 0 and "hidden" in out, err
    else:
        assert status == 2 and f"cannot enter {private}" in err and f"chmod o+x {private}" in err, err
    manifest = load_manifest(folder)
    if box.status[Layer.UID].active:  # the same machine without bubblewrap refuses it
        box.set_layer(Layer.BWRAP, False, "turned off by the test")
        refusal = folder_refusal(manifest, box)
        assert refusal is not None and f"cannot enter {private}" in refusal and f"chmod o+x {private}" in refusal
        private.chmod(0o711)
        assert folder_refusal(manifest, box) is None


def test_entering_a_tournament_needs_open_true(home: Path, candidate: Path) -> None:
    closed = tournament_file(home, "closed", ["random", "threshold"])
    db = home / "arena.db"
    status, _, err = submit(candidate, db, "--tournament", str(closed))
    assert status == 2
    assert "tournament 'closed' does not take submissions" in err and "open = true" in err
    with Store(db) as store:
        assert store.versions(withdrawn=True) == [] and store.entries("closed") == []


def test_entered_bots_play_in_an_open_tournament_and_a_withdrawn_one_stops_but_keeps_its_results(
    home: Path, candidate: Path
) -> None:
    field = [copy_bot(BOTS_DIR / name, home / name) for name in ("random", "threshold")]
    path = tournament_file(home, "open", field, extra="open = true")
    db = home / "arena.db"
    status, out, err = submit(candidate, db, "--tournament", str(path))
    assert status == 0, err
    assert f"entered in tournament open: `arena run {path} --db {db}` plays its matches" in out

    header, rule, *rows = arena("bots", "--db", db).stdout.splitlines()
    assert header.split() == ["bot", "hash", "version", "variants", "registered", "status", "copy"]
    assert len(rule.split()) == 7 and any(row.split()[0] == "candidate" and "active" in row for row in rows)

    run = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert run.returncode == 0, run.stderr
    assert "6/6 scheduled matches stored (complete)" in run.stdout  # three pairs, each in two seatings
    played = outcomes(db, "open")
    assert sum(any(bot == "candidate" for bot, _ in seats) for seats in played.values()) == 4
    listing = arena("bots", "--db", db).stdout  # threshold lists 14 variants by name: ~230 columns, once
    assert max(map(len, listing.splitlines())) <= 120, listing
    assert "registry/threshold/" in listing and f"{home}/registry" not in listing  # copies relative to the db

    withdrawn = arena("withdraw", "candidate", "--db", db)
    assert withdrawn.returncode == 0 and "withdrew candidate:" in withdrawn.stdout
    assert "candidate" not in arena("bots", "--db", db).stdout
    listed = [line for line in arena("bots", "--withdrawn", "--db", db).stdout.splitlines() if "candidate" in line]
    assert len(listed) == 1 and "withdrawn" in listed[0]

    again = arena("run", path, "--db", db, "-q", "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert "0 matches played" in again.stdout and "2/2 scheduled matches stored (complete)" in again.stdout
    assert outcomes(db, "open") == played  # its results stay
    with Store(db) as store:
        [version] = store.versions("candidate", withdrawn=True)
        assert version.withdrawn is not None
        assert store.entries("open") == []

    named = tournament_file(home, "named", [field[0], candidate])
    refused = arena("run", named, "--db", db, "-q")
    assert refused.returncode == 2
    assert "bot 'candidate' was withdrawn (`arena withdraw`): `arena submit` it to bring it back" in refused.stderr

    missing = arena("withdraw", "nobody", "--db", db)
    assert missing.returncode == 2 and "no registered version of 'nobody'" in missing.stderr


def test_installing_a_copy_another_run_just_installed_keeps_that_copy(home: Path, candidate: Path) -> None:
    target = home / "registry" / "candidate" / "abc"
    _copy(candidate, target)
    _copy(candidate, target)  # as a second run that lost the race to rename its copy into place
    assert content_hash(target) == content_hash(candidate)
    assert [p.name for p in target.parent.iterdir()] == ["abc"]  # no staging folder left behind
