"""Every hint that sends a reader to a document names a section that exists there."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CITATION = re.compile(r"(docs/[A-Z][A-Z-]*\.md),\s*['\"]([^'\"]+)['\"]")


def headings(document: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in document.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")]


def test_every_cited_section_exists() -> None:
    cited = []
    for source in sorted((REPO / "arena").rglob("*.py")):
        for document, section in CITATION.findall(source.read_text(encoding="utf-8")):
            cited.append((source.relative_to(REPO), document, section))
            found = headings(REPO / document)
            assert any(section.lower() in heading.lower() for heading in found), (
                f"{source.relative_to(REPO)} cites {document}, '{section}', which has no such section; it has: "
                f"{found}")
    assert len(cited) >= 5, cited  # the hints are there to be checked


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [REPO / name for name in listed.splitlines()
            if name.endswith((".py", ".md", ".toml", ".txt", ".json", ".sh", ".cfg")) or "/" not in name]


OUTSIDE = re.compile(r"\.\./shared|shared/(?:vectors|seeds|RULES)|\bPERFORMANCE\.md|\bARCHITECTURE\.md|"
                     r"(?<![\w/\[(-])RULES\.md")
"""Paths a clone does not have: material kept beside the repository, and the rules reference
cited without its folder (outside ``docs/``, where a bare name is a relative link)."""


def test_nothing_cites_a_path_outside_the_repository() -> None:
    offenders = []
    for path in tracked_text_files():
        if not path.is_file() or path == Path(__file__).resolve():
            continue
        inside_docs = path.parent == REPO / "docs"
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for match in OUTSIDE.finditer(line):
                if inside_docs and match.group() == "RULES.md":
                    continue
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_every_cited_document_exists() -> None:
    cited = set()
    for path in tracked_text_files():
        if path.is_file():
            cited.update(re.findall(r"\bdocs/[A-Z][A-Z-]*\.md", path.read_text(encoding="utf-8", errors="replace")))
    missing = sorted(name for name in cited if not (REPO / name).is_file())
    assert "docs/RULES.md" in cited and not missing, missing
