"""The players client keys named, and their games (index ix_seats_player)."""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from sqlalchemy import and_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from services.domain import GameSummary
from services.store.models import GameRow, PlayerRow, SeatRow, utcnow
from services.store.repository import summaries


class SqlPlayers:
    """The ``PlayerRepository`` port on SQLAlchemy."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    def name(self, key: str, player: str, name: str | None) -> None:
        """One statement whoever names the player at the same moment (an upsert)."""
        session = self._session()
        insert_ = (postgresql_insert if session.get_bind().dialect.name == "postgresql"
                   else sqlite_insert)
        statement = insert_(PlayerRow).values(owner=key, id=player, name=name,
                                              created_at=utcnow())
        session.execute(statement.on_conflict_do_nothing(index_elements=["owner", "id"]))
        if name is not None:
            session.execute(update(PlayerRow).where(PlayerRow.owner == key,
                                                    PlayerRow.id == player)
                            .values(name=name))

    def exists(self, key: str, player: str) -> bool:
        return self._session().get(PlayerRow, (key, player)) is not None

    def games(self, key: str, player: str, status: str | None, limit: int,
              before: tuple[datetime, str] | None) -> list[GameSummary]:
        """(The key's own games only, as its list of games: a game of another key its
        player sat in is that key's.)"""
        seated = (select(SeatRow.game_id)
                  .where(SeatRow.player_key == key, SeatRow.player == player))
        return summaries(self._session(), and_(GameRow.owner == key, GameRow.id.in_(seated)),
                         status, limit, before)
