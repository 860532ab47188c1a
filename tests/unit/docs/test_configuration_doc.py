"""docs/configuration.md's table says what the settings table (``config.settings``) declares."""

from __future__ import annotations

import re
from pathlib import Path

from config.settings import SETTINGS

ROOT = Path(__file__).resolve().parents[3]
CONFIGURATION = ROOT / "docs" / "configuration.md"


def _documented() -> dict[str, str]:
    """Each row ``| `NAME` | default | … |`` of the page, by name (a name listed twice fails)."""
    rows: dict[str, str] = {}
    for m in re.finditer(r"^\| `([A-Z0-9_]+)` \| ([^|]+) \|", CONFIGURATION.read_text(),
                         re.MULTILINE):
        assert m.group(1) not in rows, f"{m.group(1)} is listed twice in {CONFIGURATION.name}"
        rows[m.group(1)] = m.group(2).strip()
    return rows


def test_every_setting_is_documented_with_its_default() -> None:
    rows = _documented()
    for declared in SETTINGS:
        assert declared.name in rows, f"{declared.name} missing from docs/configuration.md"
        expected = f"`{declared.default}`" if declared.default else "unset"
        assert rows[declared.name] == expected, declared.name


def test_the_docs_list_no_setting_the_code_does_not_read() -> None:
    assert set(_documented()) == {s.name for s in SETTINGS}


def test_the_readme_points_to_the_table_rather_than_copying_it() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "docs/configuration.md" in readme
    assert not re.search(r"^\| `[A-Z0-9_]+` \|", readme, re.MULTILINE), \
        "a settings table in the README: keep it in docs/configuration.md only"
