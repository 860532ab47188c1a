"""The ``UnitOfWork`` port on SQLAlchemy: one transaction around one service call
(cosmicpython). A move on PostgreSQL is one statement, atomic by itself (``moves``), and
needs no more."""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Callable

from sqlalchemy.orm import Session, sessionmaker

from services.errors import Unavailable
from services.store.moves import MoveBatches
from services.store.players import SqlPlayers
from services.store.ratings import SqlRatings
from services.store.reviews import SqlReviews
from services.store.tickets import SqlTickets
from services.store.reads import GameReads
from services.store.listing import SqlListing
from services.store.lobby import SqlLobby
from services.store.quotas import SqlQuotas
from services.store.repository import SqlGameRepository, SqlKeyRepository, SqlOutbox
from services.store.sweep import SqlTurns
from services.store.transient import is_transient
from services.store.webhooks import SqlWebhooks

log = logging.getLogger(__name__)


class SqlUnitOfWork:
    games: SqlGameRepository
    lobby: SqlLobby
    turns: SqlTurns
    listing: SqlListing
    quotas: SqlQuotas
    keys: SqlKeyRepository
    outbox: SqlOutbox
    webhooks: SqlWebhooks
    players: SqlPlayers
    ratings: SqlRatings
    tickets: SqlTickets
    reviews: SqlReviews

    def __init__(self, sessions: sessionmaker[Session], reads: GameReads,
                 moves: MoveBatches | None = None,
                 outbox_written: Callable[[], object] = lambda: None) -> None:
        """``outbox_written``: called after a commit that wrote to the outbox (to wake the
        process's relay)."""
        self._sessions = sessions
        self._reads = reads
        self._moves = moves
        self._outbox_written = outbox_written

    def __enter__(self) -> SqlUnitOfWork:
        self._session: Session | None = None
        self.games = SqlGameRepository(lambda: self.session, self._reads, self._moves)
        self.lobby = SqlLobby(self.games)
        self.turns = SqlTurns(self.games)
        self.listing = SqlListing(lambda: self.session)
        self.quotas = SqlQuotas(lambda: self.session)
        self.keys = SqlKeyRepository(lambda: self.session)
        self.outbox = SqlOutbox(lambda: self.session)
        self.webhooks = SqlWebhooks(lambda: self.session)
        self.players = SqlPlayers(lambda: self.session)
        self.ratings = SqlRatings(lambda: self.session)
        self.tickets = SqlTickets(lambda: self.session)
        self.reviews = SqlReviews(lambda: self.session)
        return self

    @property
    def session(self) -> Session:
        """Opened when first needed: reads, and a move on PostgreSQL, need none."""
        if self._session is None:
            self._session = self._sessions()
        return self._session

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        """A transient database error leaves as ``Unavailable`` (503, nothing changed):
        the caller, or its client, tries the whole unit of work again."""
        try:
            self.rollback()  # whatever was not committed explicitly is undone
            if self._session is not None:
                self._session.close()
        except Exception as error:  # noqa: BLE001 - a dead connection cannot roll back
            if exc is None:
                raise
            log.warning("rolling back after %s: %s", exc_type, error)
        if exc is not None and is_transient(exc):
            log.warning("the database is unavailable: %s", exc)  # (no parameters in it)
            raise Unavailable("the database is unavailable") from exc

    def commit(self) -> None:
        if self._session is not None:
            self._session.commit()
        self.games.remember_written()
        if self.games.wrote_messages:
            self.games.wrote_messages = False
            self._outbox_written()

    def rollback(self) -> None:
        if self._session is not None:
            self._session.rollback()
