"""The composition root: settings in, the service's collaborators out."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

from sqlalchemy import Engine

from services.handlers import AI_ENGINES_BUILT_IN, TurnScheduler
from services.scheduler import InlineScheduler
from services.store.db import make_engine, session_factory
from services.store.uow import UnitOfWork


@dataclass
class Container:
    db: Engine
    uow: Callable[[], UnitOfWork]
    scheduler: TurnScheduler
    engines: tuple[str, ...]  # AI engine names a game may seat

    @classmethod
    def build(cls, database_url: str | None = None) -> Container:
        db = make_engine(database_url)
        sessions = session_factory(db)

        def uow() -> UnitOfWork:
            return UnitOfWork(sessions)

        return cls(db=db, uow=uow, scheduler=InlineScheduler(uow), engines=AI_ENGINES_BUILT_IN)

    @classmethod
    def from_env(cls) -> Container:
        return cls.build(os.environ.get("DATABASE_URL"))
