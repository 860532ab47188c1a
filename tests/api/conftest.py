"""The API under test: the app factory on a fresh database (SQLite, and PostgreSQL when
configured), AI seats played inline."""

from __future__ import annotations

from typing import Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from services.api.app import create_app
from services.container import Container
from services.handlers import AI_ENGINES_BUILT_IN
from services.scheduler import InlineScheduler
from services.store.db import autocommit_twin, session_factory
from services.store.reads import GameReads
from services.store.uow import UnitOfWork


@pytest.fixture
def client(db: Engine) -> Iterator[FlaskClient]:
    sessions = session_factory(db)
    reads = GameReads(autocommit_twin(db))

    def uow() -> UnitOfWork:
        return UnitOfWork(sessions, reads)

    app = create_app(Container(db=db, uow=uow, scheduler=InlineScheduler(uow),
                               engines=AI_ENGINES_BUILT_IN, reads=reads))
    with app.test_client() as c:
        yield c


