"""docs/security.md names the tests that show its promises: each one it names exists,
and every hostile-client test of tests/security is named there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SECURITY = ROOT / "docs" / "security.md"
NAMED = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?`")


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name.startswith("test_")}


def test_every_test_the_page_names_exists() -> None:
    named = NAMED.findall(SECURITY.read_text())
    assert named, "docs/security.md names no test"
    for path, name in named:
        assert (ROOT / path).is_file(), f"docs/security.md names {path}, which is not there"
        if name:
            assert name in _tests_in(ROOT / path), f"{path} has no {name}"


def test_every_hostile_client_test_is_named() -> None:
    text = SECURITY.read_text()
    for module in sorted((ROOT / "tests" / "security").glob("test_*.py")):
        assert f"`{module.relative_to(ROOT)}" in text, \
            f"docs/security.md does not say what {module.name} shows"
