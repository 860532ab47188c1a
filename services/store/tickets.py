"""Matchmaking tickets in and out of the database (index ix_tickets_live: one waiting
ticket a player; ix_tickets_waiting: the matcher's scan)."""

from __future__ import annotations

from typing import Callable

from sqlalchemy import func, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from services.domain import Ticket
from services.store.models import TicketRow
from services.store.timing import aware

LOCK = text("SELECT pg_advisory_xact_lock(7215037)")  # one matcher at a time (PostgreSQL)


class SqlTickets:
    """The ``TicketRepository`` port on SQLAlchemy."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    def add(self, ticket: Ticket) -> bool:
        session = self._session()
        try:
            with session.begin_nested():  # (a savepoint: the rest of the work stands)
                session.add(TicketRow(
                    id=ticket.id, owner=ticket.owner, player=ticket.player,
                    preset=ticket.preset, players=ticket.players, pool=ticket.pool,
                    ordinal=ticket.ordinal, fill=ticket.fill, state=ticket.state,
                    created_at=ticket.created_at, expires_at=ticket.expires_at,
                    max_active_games=ticket.max_active_games,
                    ai_seconds_per_hour=ticket.ai_seconds_per_hour))
        except IntegrityError:
            return False  # ix_tickets_live: the player waits already
        return True

    def get(self, owner: str, ticket_id: str) -> Ticket | None:
        row = self._session().get(TicketRow, ticket_id)
        return None if row is None or row.owner != owner else _ticket(row)

    def live(self, owner: str) -> int:
        return int(self._session().scalar(
            select(func.count()).select_from(TicketRow)
            .where(TicketRow.owner == owner, TicketRow.state == "waiting")) or 0)

    def waiting(self, limit: int) -> list[Ticket]:
        session = self._session()
        if session.get_bind().dialect.name == "postgresql":
            session.execute(LOCK)
        else:  # SQLite: take its one write lock now, for the whole matching
            session.execute(update(TicketRow).where(TicketRow.id == "").values(state="x"))
        return [_ticket(r) for r in session.scalars(
            select(TicketRow).where(TicketRow.state == "waiting")
            .order_by(TicketRow.created_at, TicketRow.id).limit(limit))]

    def matched(self, ticket_id: str, game_id: str, seat: int, sealed_token: str) -> bool:
        done = self._session().connection().execute(
            update(TicketRow).where(TicketRow.id == ticket_id, TicketRow.state == "waiting")
            .values(state="matched", game_id=game_id, seat=seat, sealed_token=sealed_token))
        return bool(done.rowcount == 1)

    def cancel(self, owner: str, ticket_id: str) -> bool:
        done = self._session().connection().execute(
            update(TicketRow).where(TicketRow.id == ticket_id, TicketRow.owner == owner,
                                    TicketRow.state == "waiting").values(state="cancelled"))
        return bool(done.rowcount == 1)

    def pending(self) -> bool:
        return self._session().scalar(
            select(TicketRow.id).where(TicketRow.state == "waiting").limit(1)) is not None

    def take_token(self, owner: str, ticket_id: str) -> str | None:
        row = self._session().get(TicketRow, ticket_id, with_for_update=True)
        if row is None or row.owner != owner or row.sealed_token is None:
            return None
        sealed, row.sealed_token = row.sealed_token, None
        return sealed


def _ticket(row: TicketRow) -> Ticket:
    return Ticket(
        id=row.id,
        owner=row.owner,
        player=row.player,
        preset=row.preset,
        players=row.players,
        pool=row.pool,
        ordinal=row.ordinal,
        fill=row.fill,
        created_at=aware(row.created_at),
        expires_at=aware(row.expires_at),
        state=row.state,
        game_id=row.game_id,
        seat=row.seat,
        max_active_games=row.max_active_games,
        ai_seconds_per_hour=row.ai_seconds_per_hour,
    )
