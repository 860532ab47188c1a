"""The API app on a test database, AI seats played inline: for the HTTP tests."""

from __future__ import annotations

from apiflask import APIFlask
from sqlalchemy import Engine

from bootstrap import FALLBACK
from databases import play_inline
from services.api.app import create_app
from services.background import BackgroundScheduler
from services.container import Container
from services.ports import Decide
from services.relay import Relay
from services.store import Store
from workers.ai import LEVELS


def inline_app(db: Engine) -> APIFlask:
    """``create_app`` on ``db`` (read through its own autocommit twin, as in production)."""
    store = Store(db)
    play_inline(store)
    return _app(store)


def background_app(db: Engine, decide: Decide) -> tuple[APIFlask, BackgroundScheduler]:
    """``create_app`` on ``db`` as ``bootstrap`` makes it without a broker: AI seats play
    after each request has answered, deciding with ``decide``."""
    store = Store(db)
    runner = BackgroundScheduler(store.uow, decide, FALLBACK)
    store.outbox_written = Relay(store.uow, runner).drain
    return _app(store), runner


def _app(store: Store) -> APIFlask:
    return create_app(Container(uow=store.uow, reads=store.reads, engines=LEVELS,
                                ready=store.ready))
