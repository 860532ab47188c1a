"""docs/architecture.md's map of who imports whom is the code's own: each box a package
(the service layer's loose modules as its core), each arrow a direct import, read from
the code by grimp (import-linter's graph). ``python tests/unit/docs/test_architecture_doc.py``
writes the map anew."""

from __future__ import annotations

import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGES = ("president_cli", "benchmarks", "bootstrap", "workers", "services", "config",
            "engine", "web")
# (president_cli and benchmarks, the entry points, may import any of these: not drawn)
BOXES = ("president_cli", "benchmarks", "bootstrap", "workers.turns", "workers.rpc",
         "workers.webhooks", "workers.uecda", "workers.ai", "services.api",
         "services.store", "services.runtime", "services.handlers", "services", "config",
         "engine", "web")
START, END = "<!-- imports: generated -->\n", "<!-- /imports -->"


def box_of(module: str) -> str:
    """The box a module is drawn in: its longest listed package ("services": the core)."""
    return max((b for b in BOXES if module == b or module.startswith(b + ".")), key=len)


def import_map() -> str:
    graph = grimp.build_graph(*PACKAGES)
    arrows = {(box_of(importer), box_of(imported))
              for importer in graph.modules
              for imported in graph.find_modules_directly_imported_by(importer)
              if imported.split(".")[0] in PACKAGES}
    drawn = sorted(((a, b) for a, b in arrows
                    if a != b and a not in ("president_cli", "benchmarks")),
                   key=lambda ab: (BOXES.index(ab[0]), BOXES.index(ab[1])))
    boxes = [b for b in BOXES if any(b in arrow for arrow in drawn)]
    return "\n".join(["```mermaid", "flowchart TD"]
                     + [f"  {_id(b)}[{b}]" for b in boxes]
                     + [f"  {_id(a)} --> {_id(b)}" for a, b in drawn] + ["```"])


def _id(box: str) -> str:
    return box.replace(".", "_")


def page_with_map(page: str) -> str:
    head, found, rest = page.partition(START)
    assert found, f"docs/architecture.md has no {START.strip()} marker"
    _, closed, tail = rest.partition(END)
    assert closed, f"{START.strip()} is not closed by {END}"
    return f"{head}{START}{import_map()}\n{END}{tail}"


def test_the_map_of_imports_is_the_code_s() -> None:
    page = PAGE.read_text()
    assert page_with_map(page) == page, (
        "the code's imports changed: run python tests/unit/docs/test_architecture_doc.py")


def test_the_map_draws_no_arrow_up_the_layers() -> None:
    arrows = [line.split(" --> ") for line in import_map().splitlines() if " --> " in line]
    assert arrows
    for importer, imported in arrows:
        assert imported.strip() not in ("bootstrap", "president_cli", "benchmarks")
        assert importer.strip() not in ("engine", "config", "web")  # the bottom imports none


if __name__ == "__main__":
    PAGE.write_text(page_with_map(PAGE.read_text()))
    sys.exit(0)
