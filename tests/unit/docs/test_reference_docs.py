"""The reference pages say what is true now: no dated or day-of-the-machine prose (that
is CHANGELOG.md's and docs/decisions/'s), and the long pages within their sizes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
DIARY = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b|\b(that|slow|slower|same|reference) day\b|"
                   r"\bday this (VM|machine)\b|\byesterday\b|\blater that\b", re.IGNORECASE)
MAX_BYTES = {"performance.md": 12 * 1024, "ai.md": 16 * 1024, "capacity.md": 10 * 1024}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_reference_page_keeps_no_diary(page: Path) -> None:
    found = [(n, line.strip()) for n, line in enumerate(page.read_text().splitlines(), 1)
             if DIARY.search(line)]
    assert not found, f"{page.name}: history goes in CHANGELOG.md or docs/decisions/: {found}"


@pytest.mark.parametrize("name", sorted(MAX_BYTES))
def test_a_long_page_stays_within_its_size(name: str) -> None:
    assert len((ROOT / "docs" / name).read_bytes()) <= MAX_BYTES[name]


LINKED = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page: each heading's slug, and every explicit ``id``."""
    text = page.read_text()
    slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
             for h in re.findall(r"^#+ (.+)$", text, re.MULTILINE)}
    return slugs | set(re.findall(r'<a id="([^"]+)"', text))


@pytest.mark.parametrize("page", LINKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_page_and_its_heading(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # another site's
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"
