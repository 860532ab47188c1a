"""The API app on a test database, AI seats played inline: for the HTTP tests."""

from __future__ import annotations

from apiflask import APIFlask
from sqlalchemy import Engine

from bootstrap import FALLBACK, decide_here
from services.api.app import create_app
from services.background import BackgroundScheduler
from services.container import Container
from services.inline import InlineScheduler
from services.ports import Decide, TurnScheduler
from services.store import Store
from workers.ai import LEVELS


def inline_app(db: Engine) -> APIFlask:
    """``create_app`` on ``db`` (read through its own autocommit twin, as in production)."""
    store = Store(db)
    return _app(store, InlineScheduler(store.uow, decide_here, FALLBACK))


def background_app(db: Engine, decide: Decide) -> tuple[APIFlask, BackgroundScheduler]:
    """``create_app`` on ``db`` as ``bootstrap`` makes it without a broker: AI seats play
    after each request has answered, deciding with ``decide``."""
    store = Store(db)
    runner = BackgroundScheduler(store.uow, decide, FALLBACK)
    return _app(store, runner), runner


def _app(store: Store, scheduler: TurnScheduler) -> APIFlask:
    return create_app(Container(uow=store.uow, reads=store.reads, scheduler=scheduler,
                                engines=LEVELS, ready=store.ready))
