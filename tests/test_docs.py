"""Every hint that sends a reader to a document names a section that exists there."""

from __future__ import annotations

import re
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
