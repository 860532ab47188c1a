"""The turn sweep's queries (``TurnRepository``): games waiting on a seat, turns due
again, and human deadlines."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Select, and_, func, select, update

from services.domain import TurnMessage, Waiting
from services.store.models import GameRow, SeatRow, utcnow
from services.store.repository import InGames, _table
from services.store.timing import Moment, aware


class SqlTurns(InGames):
    """The ``TurnRepository`` port on SQLAlchemy, in the games' transaction (a turn sent
    again goes to the outbox as the games' own messages do)."""

    def _add_message(self, message: TurnMessage, at: Moment) -> None:
        self._games._add_message(message, at)

    @property
    def _dialect(self) -> str:
        return self._games._dialect

    def waiting(self, kind: str, since: datetime, limit: int = 500) -> list[Waiting]:
        """Active games waiting on a seat of ``kind`` since before ``since``, oldest
        first."""
        query = self._waiting_query(kind).where(GameRow.updated_at < since)
        return [Waiting(*row) for row in self.session.execute(query.limit(limit))]

    def stalled(self, after_s: float, limit: int = 500) -> list[Waiting]:
        """Active games whose turn was due more than ``after_s`` ago, by the database's
        clock, longest waiting first. (A turn is due after its last move, so the range
        on ``updated_at`` narrows the scan to ix_games_waiting's.)"""
        cutoff = self._clock() - timedelta(seconds=after_s)
        query = self._waiting_query(None).where(GameRow.updated_at < cutoff,
                                                GameRow.turn_due_at < cutoff)
        return [Waiting(*row) for row in self.session.execute(query.limit(limit))]

    def send_again(self, waiting: Waiting) -> bool:
        now = self._clock()
        if not self._due_at(waiting, now):
            return False
        self._add_message(TurnMessage(waiting.game_id, waiting.version, waiting.seat,
                                      waiting.engine, 0.0, resent=True), now)
        return True

    def postpone(self, waiting: Waiting, delay_s: float) -> bool:
        return self._due_at(waiting, self._clock() + timedelta(seconds=delay_s))

    def _due_at(self, waiting: Waiting, due: Moment) -> bool:
        moved = self.session.connection().execute(
            update(_table(GameRow)).where(GameRow.id == waiting.game_id,
                                          GameRow.version == waiting.version,
                                          GameRow.status == "active")
            .values(turn_due_at=due))
        return bool(moved.rowcount == 1)

    def _waiting_query(self, kind: str | None) -> Select[str, int, int, str | None]:  # Waiting
        query = (select(GameRow.id, GameRow.version, GameRow.to_act, SeatRow.engine)
                 .join(SeatRow, and_(SeatRow.game_id == GameRow.id,
                                     SeatRow.seat == GameRow.to_act))
                 .where(GameRow.status == "active")
                 .order_by(GameRow.updated_at))
        return query if kind is None else query.where(SeatRow.kind == kind)

    def out_of_time(self, game_id: str) -> bool:
        if self._dialect == "postgresql":
            return bool(self.session.scalar(select(GameRow.turn_deadline <= func.now())
                                            .where(GameRow.id == game_id)))
        deadline = self.session.scalar(select(GameRow.turn_deadline)
                                       .where(GameRow.id == game_id))
        return deadline is not None and aware(deadline) <= utcnow()

