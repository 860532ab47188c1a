"""End-to-end fixtures: the system as real processes, on the embedded default (SQLite +
the SQL broker, no server) and, when ``PRESIDENT_TEST_DATABASE_URL`` and
``PRESIDENT_TEST_REDIS_URL`` are set (``.ci/run`` sets both), on PostgreSQL + Redis."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from stack import BACKENDS, Backend, Stack, make_backend

@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    return make_backend(request.param, tmp_path)


@pytest.fixture
def stack(backend: Backend, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Stack]:
    """Nothing started yet: each test starts what it needs. Logs are printed on failure."""
    stack = Stack(backend, tmp_path)
    try:
        yield stack
    finally:
        stack.close()
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(stack.logs())


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report
