"""Lists of games (``GameListing``): a key's games page by page, its finished ones for
the export, every id (the audit)."""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from services.domain import GameSummary
from services.store.models import GameRow
from services.store.repository import summaries
from services.store.timing import aware


class SqlListing:
    """The ``GameListing`` port on SQLAlchemy."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    @property
    def session(self) -> Session:
        return self._session()

    def page(self, owner: str | None, status: str | None, limit: int,
             before: tuple[datetime, str] | None) -> list[GameSummary]:
        """``owner``'s games newest first, strictly after the ``before`` (created_at, id)
        cursor (index ix_games_owner)."""
        return summaries(self.session, GameRow.owner.is_(None) if owner is None
                         else GameRow.owner == owner, status, limit, before)

    def finished(self, owner: str, since: datetime | None,
                 after: tuple[str, datetime] | None, limit: int) -> list[tuple[str, datetime]]:
        """(id, when it finished) of ``owner``'s finished games, in that order, from
        ``since``, strictly after ``after`` (index ix_games_waiting: status, updated_at)."""
        query = (select(GameRow.id, GameRow.updated_at)
                 .where(GameRow.status == "over", GameRow.owner == owner)
                 .order_by(GameRow.updated_at, GameRow.id).limit(limit))
        if since is not None:
            query = query.where(GameRow.updated_at >= since)
        if after is not None:
            game_id, finished = after
            query = query.where(or_(GameRow.updated_at > finished,
                                    and_(GameRow.updated_at == finished,
                                         GameRow.id > game_id)))
        return [(game_id, aware(at)) for game_id, at in self.session.execute(query)]

    def ids(self) -> list[str]:
        return list(self.session.scalars(select(GameRow.id).order_by(GameRow.created_at)))
