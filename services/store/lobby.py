"""The lobby's rows (``LobbyRepository``): seats' presence, invites, rematches."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from services.store.models import GameRow, SeatRow
from services.store.repository import InGames, _table


class SqlLobby(InGames):
    """The ``LobbyRepository`` port on SQLAlchemy, in the games' transaction."""

    def touch(self, game_id: str, seat: int) -> None:
        self.session.connection().execute(
            update(_table(SeatRow)).where(SeatRow.game_id == game_id, SeatRow.seat == seat)
            .values(seen_at=self._clock()))

    def gone_quiet(self, after_s: float, limit: int = 500) -> list[tuple[str, int]]:
        """(game, seat) of the seats connected but not heard from for ``after_s``, by the
        database's clock (index ix_seats_connected)."""
        cutoff = self._clock() - timedelta(seconds=after_s)
        return [(game_id, seat) for game_id, seat in self.session.execute(
            select(SeatRow.game_id, SeatRow.seat)
            .where(SeatRow.connected, SeatRow.seen_at < cutoff).limit(limit))]

    def set_invite(self, game_id: str, invite_hash: str | None) -> None:
        self.session.execute(update(_table(GameRow)).where(GameRow.id == game_id)
                             .values(invite_hash=invite_hash))

    def by_invite(self, invite_hash: str) -> str | None:
        return self.session.scalar(select(GameRow.id).where(GameRow.invite_hash == invite_hash))

    def rematch_of(self, game_id: str) -> str | None:
        return self.session.scalar(select(GameRow.rematch_id).where(GameRow.id == game_id))

    def set_rematch(self, game_id: str, rematch_id: str) -> bool:
        """Name the game's rematch, unless one is named already."""
        done = self.session.connection().execute(update(_table(GameRow))
                                    .where(GameRow.id == game_id, GameRow.rematch_id.is_(None))
                                    .values(rematch_id=rematch_id))
        return bool(done.rowcount == 1)

