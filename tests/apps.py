"""The API app on a test database, AI seats played inline: for the HTTP tests."""

from __future__ import annotations

from apiflask import APIFlask
from sqlalchemy import Engine

from services.api.app import create_app
from services.container import Container
from services.handlers import AI_ENGINES_BUILT_IN
from services.scheduler import InlineScheduler
from services.store.db import autocommit_twin, session_factory
from services.store.reads import GameReads
from services.store.uow import UnitOfWork


def inline_app(db: Engine) -> APIFlask:
    """``create_app`` on ``db`` (read through its own autocommit twin, as in production)."""
    sessions = session_factory(db)
    reads = GameReads(autocommit_twin(db))

    def uow() -> UnitOfWork:
        return UnitOfWork(sessions, reads)

    return create_app(Container(db=db, uow=uow, scheduler=InlineScheduler(uow),
                                engines=AI_ENGINES_BUILT_IN, reads=reads))
