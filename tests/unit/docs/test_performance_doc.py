"""docs/performance.md's tables are the ones ``president bench report`` makes from
benchmarks/results/*.json: a page and its data never disagree, and met or missed is
worked out from the figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.report import PAGE, RESULTS, TABLES, Figure, Table, page_from_data, render


def test_every_table_on_the_page_is_the_one_its_data_gives() -> None:
    page = PAGE.read_text()
    assert page_from_data(page, TABLES) == page
    assert {t.name for t in TABLES} == {p.stem for p in RESULTS.glob("*.json")}


def test_a_figure_edited_by_hand_disagrees_with_its_data() -> None:
    page = PAGE.read_text()
    start = page.index("<!-- bench:engine -->")
    row = page.index("| classic rounds/s |", start)
    edited = page[:row] + "| classic rounds/s | 9,999,999 |" + page[row:].split("|", 3)[3]
    assert page_from_data(edited, TABLES) != edited


@pytest.mark.parametrize(("value", "target", "verdict"), [
    (40.0, "≤ 50", "≤ 50: met"), (60.0, "≤ 50", "≤ 50: **missed**"),
    (4100, "≥ 4000", "≥ 4,000: met"), (3900, "≥ 4000", "≥ 4,000: **missed**"),
])
def test_the_verdict_comes_from_the_value(tmp_path: Path, value: float, target: str,
                                          verdict: str) -> None:
    table = Table("x", (Figure("a figure", "a.b", target),))
    report = {"a": {"b": value}, "command": "president bench x --json",
              "machine": {"cpus": 2, "python": "3.11.7"}}
    (tmp_path / "x.json").write_text(json.dumps(report))
    assert render(table, report).splitlines()[-1].endswith(f"| {verdict} |")
    page = page_from_data("<!-- bench:x -->\n<!-- /bench -->\n", (table,), tmp_path)
    assert "`president bench x --json` · 2 CPUs" in page and verdict in page
