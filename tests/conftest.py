"""Test-suite root. Its presence puts ``tests/`` on ``sys.path`` (pytest's default
"prepend" import mode), so every test folder can import the shared ``positions`` module.

Database fixtures: every storage test runs on SQLite, and on PostgreSQL too when
``PRESIDENT_TEST_DATABASE_URL`` is set (``.ci/run`` sets it on the CI machine).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterator

import pytest
from sqlalchemy import Engine, text

from services.scheduler import InlineScheduler
from services.store.db import make_engine, session_factory, upgrade
from services.store.models import Base
from services.store.uow import UnitOfWork

PG_URL = os.environ.get("PRESIDENT_TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgresql"] if PG_URL else [])


def _fresh(engine: Engine) -> Engine:
    """Drop everything this project created, then migrate from scratch."""
    Base.metadata.drop_all(engine)
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    upgrade(engine)
    return engine


def _pg_url() -> str:
    """Under pytest-xdist each worker gets a schema of its own in the test database."""
    assert PG_URL is not None
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return PG_URL
    schema = f"test_{worker}"
    with make_engine(PG_URL).begin() as connection:
        connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
    return f"{PG_URL}{'&' if '?' in PG_URL else '?'}options=-csearch_path%3D{schema}"


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path}/president.db" if request.param == "sqlite" else _pg_url()
    engine = _fresh(make_engine(url))
    yield engine
    engine.dispose()


@pytest.fixture
def uow_factory(db: Engine) -> Callable[[], UnitOfWork]:
    sessions = session_factory(db)
    return lambda: UnitOfWork(sessions)


@pytest.fixture
def inline(uow_factory: Callable[[], UnitOfWork]) -> InlineScheduler:
    return InlineScheduler(uow_factory)
