"""The front-end files the pages ship: pinned, licensed, small, and loading nothing from
another site."""

from __future__ import annotations

import hashlib
import re

from arena.web.site import STATIC_DIR

VENDOR = STATIC_DIR / "vendor"
REMOTE = re.compile(r"""(?:src|href|url)\s*[=(]\s*["']?(?:https?:)?//"""
                    r"""|(?:fetch|import)\s*\(\s*["']https?:""")
"""A reference that would load from another host."""


def test_every_vendored_library_is_pinned_and_licensed_as_its_readme_says() -> None:
    libraries = [folder for folder in VENDOR.iterdir() if folder.is_dir()]
    assert libraries
    for folder in libraries:
        readme = (folder / "README.md").read_text(encoding="utf-8")
        assert (folder / "LICENSE").is_file(), folder
        version = re.search(r"\b(\d+\.\d+\.\d+)\b", readme)
        assert version is not None, folder
        listed = re.findall(r"^\| (\S+) \| (\d+) \| ([0-9a-f]{64}) \|$", readme, re.MULTILINE)
        assert listed, folder
        for name, size, digest in listed:
            data = (folder / name).read_bytes()
            assert len(data) == int(size) and hashlib.sha256(data).hexdigest() == digest, name
        files = {p.name for p in folder.iterdir()} - {"README.md", "LICENSE"}
        assert files == {name for name, _, _ in listed}, files
        assert version.group(1) in (folder / listed[0][0]).read_text(encoding="utf-8")[:200]


def test_the_static_folder_is_small_and_loads_nothing_from_elsewhere() -> None:
    files = [p for p in STATIC_DIR.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 200_000
    for path in files:
        if path.suffix in (".js", ".css", ".svg"):
            assert not REMOTE.search(path.read_text(encoding="utf-8")), path
