"""The engine is pure standard library, and type-checks under ``mypy --strict``."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ENGINE = ROOT / "engine"
ALLOWED = frozenset(sys.stdlib_module_names) | {"engine", "__future__"}
DYNAMIC_IMPORTERS = {"__import__", "import_module"}


def foreign_imports(source: str, filename: str = "<source>") -> list[str]:
    """Imports in ``source`` of anything but the standard library and ``engine``
    (``file:line name``), anywhere in the module, plus dynamic imports."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: inside engine itself
                continue
            names = [node.module or ""]
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else \
                func.attr if isinstance(func, ast.Attribute) else ""
            if called in DYNAMIC_IMPORTERS:
                found.append(f"{filename}:{node.lineno} dynamic import {ast.unparse(node)}")
            continue
        for name in names:
            if name.partition(".")[0] not in ALLOWED:
                found.append(f"{filename}:{node.lineno} {name}")
    return found


def engine_files() -> list[Path]:
    files = sorted(ENGINE.rglob("*.py"))
    assert ENGINE / "__init__.py" in files and len(files) > 5
    return files


def test_the_import_checker_flags_foreign_modules() -> None:
    source = ("import os, numpy.linalg\nfrom typing import Any\nfrom . import cards\n"
              "from engine.cards import Card\ndef f():\n    import requests\n"
              "    return __import__('yaml')\n")
    found = foreign_imports(source)
    assert len(found) == 3
    assert {f.split(" ", 1)[1] for f in found} == {
        "numpy.linalg", "requests", "dynamic import __import__('yaml')"}


def test_engine_imports_only_the_standard_library() -> None:
    foreign = []
    for path in engine_files():
        foreign += foreign_imports(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert foreign == [], "engine/ must use the standard library only:\n" + "\n".join(foreign)


def test_importing_the_engine_loads_only_the_standard_library() -> None:
    # -S: no site, so no .pth file imports anything; the working directory (the
    # repository root) makes engine importable.
    modules = [".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for p in engine_files()]
    code = ("import sys, json, importlib; before = set(sys.modules); "
            "[importlib.import_module(m) for m in sys.argv[1:]]; "
            "print(json.dumps(sorted({m.partition('.')[0] for m in set(sys.modules) - before})))")
    done = subprocess.run([sys.executable, "-S", "-c", code, *modules], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "engine" in loaded
    foreign = [m for m in loaded if m not in ALLOWED]
    assert foreign == [], f"importing engine loaded non-stdlib modules: {foreign}"


def test_mypy_strict_passes_on_the_engine() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "engine"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"mypy --strict engine failed:\n{done.stdout}{done.stderr}"
