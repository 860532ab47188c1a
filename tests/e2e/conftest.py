"""End-to-end fixtures: the system as real processes, on the embedded default (SQLite +
the SQL broker, no server) and, when ``PRESIDENT_TEST_DATABASE_URL`` and
``PRESIDENT_TEST_REDIS_URL`` are set (``.ci/run`` sets both), on PostgreSQL + Redis."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest
import redis

from databases import PG_URL, fresh, pg_url
from services.store.db import make_engine
from stack import Backend, Stack

REDIS_URL = os.environ.get("PRESIDENT_TEST_REDIS_URL")
BACKENDS = ["embedded"] + (["redis"] if PG_URL and REDIS_URL else [])


def _redis_url() -> str:
    """A Redis database of its own per xdist worker, emptied first."""
    assert REDIS_URL is not None
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    url = f"{REDIS_URL.rstrip('/')}/{1 + int(worker.removeprefix('gw') or 0) % 15}"
    redis.Redis.from_url(url).flushdb()
    return url


def make_backend(name: str, tmp_path: Path) -> Backend:
    if name == "embedded":
        database = f"sqlite:///{tmp_path}/president.db"
        backend = Backend(name, database, f"sqla+sqlite:///{tmp_path}/broker.db")
    else:
        backend = Backend(name, pg_url(), _redis_url())
    fresh(make_engine(backend.database_url)).dispose()
    return backend


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
