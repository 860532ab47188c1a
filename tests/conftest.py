"""Test-suite root. Its presence puts ``tests/`` on ``sys.path`` (pytest's default
"prepend" import mode), so every test folder can import the shared modules here
(``fakes``, ``positions``, ``databases``, ...).

Five layers, one folder each, marked by the folder they are in (``-m unit``):
- ``unit/``: no database, no network, no process of the system (the engine, the AI
  levels, conversions, the handlers on ``fakes``);
- ``integration/``: a real database (SQLite, and PostgreSQL when
  ``PRESIDENT_TEST_DATABASE_URL`` is set), the HTTP app in process, a gRPC server in
  process, Celery tasks run eagerly;
- ``e2e/``: the system as real processes, and the play page in Chromium;
- ``chaos/``: the system as real processes on servers of its own, one fault at a time;
- ``security/``: hostile clients (docs/security.md's parties) against the app on a real
  database, each trying what it may not see or do.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
LAYERS = ("unit", "integration", "e2e", "chaos", "security")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        layer = item.path.resolve().relative_to(TESTS).parts[0]
        if layer not in LAYERS:
            raise pytest.UsageError(f"{item.nodeid}: a test lives in tests/unit, "
                                    "tests/integration, tests/e2e, tests/chaos or "
                                    "tests/security")
        item.add_marker(layer)
