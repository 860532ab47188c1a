"""The composition root: settings in, the service's collaborators out."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from sqlalchemy import Engine

from services.commands import TableDefaults
from services.handlers import AI_ENGINES_BUILT_IN, TurnScheduler
from services.scheduler import InlineScheduler
from services.settings import setting
from services.store.db import make_engine, session_factory
from services.store.reads import GameReads
from services.store.uow import UnitOfWork


@dataclass
class Container:
    db: Engine
    uow: Callable[[], UnitOfWork]
    scheduler: TurnScheduler
    engines: tuple[str, ...]  # AI engine names a game may seat
    # Reads need no transaction: autocommit saves the BEGIN and ROLLBACK round trips.
    reads: GameReads
    defaults: TableDefaults = TableDefaults()

    @classmethod
    def build(cls, database_url: str | None = None, broker_url: str | None = None) -> Container:
        """With a broker, AI turns go through Celery to the gRPC workers (and any bot
        configured in ``PRESIDENT_AI_ENGINES`` may be seated); without, they are played
        in process, at once."""
        db = make_engine(database_url)
        sessions = session_factory(db)
        reads = GameReads(make_engine(database_url, autocommit=True),
                          setting("PRESIDENT_CHANGE_FEED_URL"))

        def uow() -> UnitOfWork:
            return UnitOfWork(sessions, reads)

        if broker_url is None:
            return cls(db=db, uow=uow, scheduler=InlineScheduler(uow),
                       engines=AI_ENGINES_BUILT_IN, reads=reads, defaults=_defaults())
        from workers.rpc.client import engines_from_env
        from workers.turns.app import make_celery
        from workers.turns.scheduler import CeleryScheduler
        from workers.turns.settings import TurnSettings

        celery = make_celery(replace(TurnSettings.from_env(), broker_url=broker_url))
        return cls(db=db, uow=uow, scheduler=CeleryScheduler(celery),
                   engines=tuple(engines_from_env()), reads=reads, defaults=_defaults())

    @classmethod
    def from_env(cls) -> Container:
        return cls.build(setting("DATABASE_URL"), setting("CELERY_BROKER_URL"))


def _defaults() -> TableDefaults:
    timeout = setting("PRESIDENT_TURN_TIMEOUT_MS")
    return TableDefaults(int(setting("PRESIDENT_AI_PACE_MS") or 0),
                         int(timeout) if timeout else None)
