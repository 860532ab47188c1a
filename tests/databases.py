"""Test databases: SQLite files, and PostgreSQL when ``PRESIDENT_TEST_DATABASE_URL`` is
set, with a schema of its own per pytest-xdist worker."""

from __future__ import annotations

import os

from sqlalchemy import Engine, text

from services.store.db import make_engine, upgrade
from services.store.models import Base

PG_URL = os.environ.get("PRESIDENT_TEST_DATABASE_URL")


def fresh(engine: Engine) -> Engine:
    """Drop everything this project created, then migrate from scratch."""
    Base.metadata.drop_all(engine)
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    upgrade(engine)
    return engine


def pg_url() -> str:
    """Under pytest-xdist each worker gets a schema of its own in the test database."""
    assert PG_URL is not None
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return PG_URL
    schema = f"test_{worker}"
    with make_engine(PG_URL).begin() as connection:
        connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
    return f"{PG_URL}{'&' if '?' in PG_URL else '?'}options=-csearch_path%3D{schema}"
