"""docs/performance.md and the benchmark data it is generated from agree."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.inline_hints import format_inline_hints

ROOT = Path(__file__).resolve().parents[3]


def test_the_inline_hints_table_is_the_one_its_data_gives() -> None:
    report = json.loads((ROOT / "benchmarks" / "results" / "inline-hints.json").read_text())
    assert format_inline_hints(report) in (ROOT / "docs" / "performance.md").read_text()
