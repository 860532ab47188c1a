"""Storage: the SQLAlchemy adapter of the service layer's ports (SQLite by default,
PostgreSQL in production), with its Alembic migrations. ``Store`` is what the
composition root opens: units of work, the read side, readiness."""

from __future__ import annotations

from typing import Callable

from sqlalchemy import Engine

from services.store.db import (
    autocommit_twin, dedicated_connection, make_engine, schema_readable, session_factory,
)
from services.store.moves import MoveBatches
from services.store.outbox import LocalWake, PostgresLead
from services.store.reads import GameReads
from services.store.states import GameStates
from services.store.uow import SqlUnitOfWork


class Store:
    """One database as the service uses it: ``engine`` for units of work, and an
    autocommit twin for the read side and, on PostgreSQL, the batched one-statement
    moves (no transaction: a read needs none, a move is atomic by itself)."""

    def __init__(self, engine: Engine, listen_url: str | None = None,
                 states: GameStates | None = None) -> None:
        """``listen_url``: where the change feed listens (``GameReads``); ``states``:
        what the process keeps of the games it has seen (by default a store's own)."""
        self.engine = engine
        self._sessions = session_factory(engine)
        self.reads = GameReads(autocommit_twin(engine), states or GameStates(), listen_url)
        self.moves = (MoveBatches(self.reads.cursor)
                      if engine.dialect.name == "postgresql" else None)
        # Called after each commit that wrote to the outbox: a relay (``services.runtime.relay``)
        # or a test sets it.
        self.outbox_written: Callable[[], object] = lambda: None

    @classmethod
    def open(cls, url: str | None = None, listen_url: str | None = None,
             cache_bytes: int | None = None) -> Store:
        """``url``: a SQLAlchemy URL, by default ``DATABASE_URL``; ``cache_bytes``: the
        game states the process keeps, at most."""
        return cls(make_engine(url), listen_url, GameStates(max_bytes=cache_bytes))

    def uow(self) -> SqlUnitOfWork:
        return SqlUnitOfWork(self._sessions, self.reads, self.moves,
                             lambda: self.outbox_written())

    def outbox_wake(self) -> LocalWake | PostgresLead:
        """What wakes this process's outbox relay (``services.store.outbox``)."""
        if self.engine.dialect.name == "postgresql":
            # where the change feed listens: past a transaction-mode pooler, which would
            # take neither LISTEN nor a session's advisory lock
            return PostgresLead(lambda: dedicated_connection(self.engine,
                                                             self.reads.listen_url))
        return LocalWake()

    def ready(self) -> bool:
        """The database answers, and this code can run on its migrations."""
        try:
            return schema_readable(self.engine)
        except Exception:  # noqa: BLE001 - unreachable, or anything else: not ready
            return False

    def close(self) -> None:
        self.reads.engine.dispose()
        self.engine.dispose()
