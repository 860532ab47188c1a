"""The unit of work: one transaction around one service call (cosmicpython)."""

from __future__ import annotations

from types import TracebackType

from sqlalchemy.orm import Session, sessionmaker

from services.store.reads import GameReads
from services.store.repository import GameRepository


class UnitOfWork:
    games: GameRepository

    def __init__(self, sessions: sessionmaker[Session], reads: GameReads) -> None:
        self._sessions = sessions
        self._reads = reads

    def __enter__(self) -> UnitOfWork:
        self.session = self._sessions()
        self.games = GameRepository(self.session, self._reads)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.rollback()  # whatever was not committed explicitly is undone
        self.session.close()

    def commit(self) -> None:
        self.session.commit()
        self.games.remember_written()

    def rollback(self) -> None:
        self.session.rollback()
