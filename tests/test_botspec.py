"""What a bot.toml may say: where its entry may lie, and how long its texts may be."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.botspec import BOTS_DIR, LONGEST, ManifestError, load_manifest, manifest_for


def _bot(folder: Path, extra: str = "", entry: str = "bot.py") -> Path:
    """A bot folder whose bot.toml names ``entry`` (made, where it lies inside) and says ``extra``."""
    folder.mkdir(parents=True)
    if not entry.startswith(("/", "..")):
        (folder / entry).parent.mkdir(parents=True, exist_ok=True)
        (folder / entry).write_text("", encoding="utf-8")
    (folder / "bot.toml").write_text(f'name = "b"\nversion = "1"\nentry = "{entry}"\n{extra}', encoding="utf-8")
    return folder


@pytest.mark.parametrize("entry", ["../bot.py", "/tmp/bot.py", ".git/bot.py", "__pycache__/bot.py",
                                   "lib/.hg/bot.py"])
def test_an_entry_outside_the_folder_or_in_a_folder_the_copy_leaves_out_is_refused(tmp_path: Path,
                                                                                   entry: str) -> None:
    """The registered copy holds neither: a bot tested with such an entry could not start
    from it, at any table it was seated at."""
    with pytest.raises(ManifestError, match="must name a file inside the bot's folder, and not in"):
        load_manifest(_bot(tmp_path / "b", entry=entry))


def test_an_entry_in_a_subfolder_is_fine(tmp_path: Path) -> None:
    assert load_manifest(_bot(tmp_path / "b", entry="src/bot.py")).entry == "src/bot.py"


@pytest.mark.parametrize(("extra", "said"), [
    (f'description = "{"x" * (LONGEST["description"] + 1)}"\n', "'description' holds 1,001 characters: at most 1,000"),
    (f'author = "{"x" * (LONGEST["author"] + 1)}"\n', "'author' holds 201 characters: at most 200"),
    (f'notes = "{"x" * (LONGEST["notes"] + 1)}"\n', "'notes' holds 20,001 characters: at most 20,000"),
    ("author = 7\n", "'author' must be a string"),
    ("variants = [" + ", ".join(f'"v{n}"' for n in range(101)) + "]\n", "at most 100 variants"),
])
def test_texts_every_page_shows_have_limits(tmp_path: Path, extra: str, said: str) -> None:
    with pytest.raises(ManifestError, match=said):
        load_manifest(_bot(tmp_path / "b", extra))


def test_a_version_registered_before_the_limits_still_loads(tmp_path: Path) -> None:
    """A registered copy is loaded without them: a version once accepted stays playable."""
    folder = _bot(tmp_path / "b", f'description = "{"x" * 5000}"\n')
    assert len(manifest_for("b", str(folder)).description) == 5000


def test_every_bundled_bot_keeps_to_the_limits() -> None:
    for folder in sorted(p.parent for p in BOTS_DIR.glob("*/bot.toml")):
        load_manifest(folder)


@pytest.mark.parametrize("version", ["1.0.0\u200b", "1.0.0\u2060", "1.0\u00ad.0", "\ufeff1.0.0", "1.0 .0",
                                     "1.0.0\u00a0", "１.0.0", "-1", ""])
def test_a_version_that_could_read_as_another_is_refused(tmp_path: Path, version: str) -> None:
    """Two versions that read the same on a page (a zero-width space, a soft hyphen, a
    full-width digit) would be two programs nobody could tell apart."""
    folder = _bot(tmp_path / "b")
    text = (folder / "bot.toml").read_text(encoding="utf-8").replace('version = "1"', f'version = "{version}"')
    (folder / "bot.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError, match="version"):
        load_manifest(folder)


@pytest.mark.parametrize("version", ["1", "1.2.0", "2.0.0rc1", "1.0.0.dev3+g1a2b3c", "1!2.0", "1.0.0-beta.2", "v3_1~x"])
def test_versions_as_pep_440_and_semver_write_them_are_taken(tmp_path: Path, version: str) -> None:
    folder = _bot(tmp_path / "b")
    text = (folder / "bot.toml").read_text(encoding="utf-8").replace('version = "1"', f'version = "{version}"')
    (folder / "bot.toml").write_text(text, encoding="utf-8")
    assert load_manifest(folder).version == version
