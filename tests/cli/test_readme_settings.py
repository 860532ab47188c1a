"""The README's configuration table says what ``services.settings`` declares."""

from __future__ import annotations

import re
from pathlib import Path

from services.settings import SETTINGS

README = Path(__file__).resolve().parents[2] / "README.md"


def _configuration_rows() -> dict[str, str]:
    text = README.read_text()
    section = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    return {m.group(1): m.group(2) for m in
            re.finditer(r"^\| `([A-Z_]+)` \| ([^|]+) \|", section, re.MULTILINE)}


def test_every_setting_is_in_the_readme_with_its_default() -> None:
    rows = _configuration_rows()
    for declared in SETTINGS:
        assert declared.name in rows, f"{declared.name} missing from the README"
        shown = rows[declared.name].strip()
        assert shown == (f"`{declared.default}`" if declared.default else "unset"), declared.name


def test_the_readme_lists_no_setting_the_code_does_not_read() -> None:
    assert set(_configuration_rows()) == {s.name for s in SETTINGS}
