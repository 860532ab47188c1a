"""Test-suite root. Its presence puts ``tests/`` on ``sys.path`` (pytest's default
"prepend" import mode), so every test folder can import the shared ``positions`` module.

Database fixtures: every storage test runs on SQLite, and on PostgreSQL too when
``PRESIDENT_TEST_DATABASE_URL`` is set (``.ci/run`` sets it on the CI machine).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

import pytest
from sqlalchemy import Engine

from databases import PG_URL, fresh, pg_url
from services.scheduler import InlineScheduler
from services.store.db import autocommit_twin, make_engine, session_factory
from services.store.reads import GameReads
from services.store.uow import UnitOfWork

BACKENDS = ["sqlite"] + (["postgresql"] if PG_URL else [])


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path}/president.db" if request.param == "sqlite" else pg_url()
    engine = fresh(make_engine(url))
    yield engine
    engine.dispose()


@pytest.fixture
def uow_factory(db: Engine, reads: GameReads) -> Callable[[], UnitOfWork]:
    sessions = session_factory(db)
    return lambda: UnitOfWork(sessions, reads)


@pytest.fixture
def reads(db: Engine) -> Iterator[GameReads]:
    """The read side, on its own autocommit connections, as the API has it."""
    engine = autocommit_twin(db)
    yield GameReads(engine)
    engine.dispose()


@pytest.fixture
def inline(uow_factory: Callable[[], UnitOfWork]) -> InlineScheduler:
    return InlineScheduler(uow_factory)
