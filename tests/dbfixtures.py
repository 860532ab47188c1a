"""The database fixtures the integration and security layers share (each layer's
conftest imports them): every storage test runs on SQLite, and on PostgreSQL too when
``PRESIDENT_TEST_DATABASE_URL`` is set (``.ci/run`` sets it on the CI machine)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import inline_app
from databases import PG_URL, fresh, pg_url, play_inline
from services.runtime.inline import InlineScheduler
from services.ports import UnitOfWork
from services.store import Store
from services.store.db import make_engine
from services.store.reads import GameReads

BACKENDS = ["sqlite"] + (["postgresql"] if PG_URL else [])


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path}/president.db" if request.param == "sqlite" else pg_url()
    engine = fresh(make_engine(url))
    yield engine
    engine.dispose()


@pytest.fixture
def store(db: Engine) -> Iterator[Store]:
    """The service's storage on ``db``, as the API has it (the read side on autocommit
    connections of its own, a process cache of its own)."""
    store = Store(db)
    yield store
    store.reads.engine.dispose()


@pytest.fixture
def uow_factory(store: Store) -> Callable[[], UnitOfWork]:
    return store.uow


@pytest.fixture
def reads(store: Store) -> GameReads:
    return store.reads


@pytest.fixture
def inline(store: Store) -> InlineScheduler:
    """AI seats of the games on ``store`` played at once, as the moves commit."""
    return play_inline(store)


@pytest.fixture
def client(db: Engine) -> Iterator[FlaskClient]:
    """The API app on ``db``, AI seats played inline."""
    with inline_app(db).test_client() as c:
        yield c
