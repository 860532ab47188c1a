"""The API app on a test database, AI seats played inline: for the HTTP tests."""

from __future__ import annotations

from apiflask import APIFlask
from sqlalchemy import Engine

from bootstrap import decide_here
from services.api.app import create_app
from services.container import Container
from services.inline import InlineScheduler
from services.store import Store
from workers.ai import LEVELS


def inline_app(db: Engine) -> APIFlask:
    """``create_app`` on ``db`` (read through its own autocommit twin, as in production)."""
    store = Store(db)
    return create_app(Container(uow=store.uow, reads=store.reads,
                                scheduler=InlineScheduler(store.uow, decide_here),
                                engines=LEVELS, ready=store.ready))
