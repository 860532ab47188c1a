"""Games in and out of the database: the one place that maps rows to domain objects."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, NamedTuple, Sequence

from sqlalchemy import Select, and_, bindparam, insert, or_, select, update
from sqlalchemy.orm import Session

from engine.events import Event
from engine.snapshot import event_to_dict, state_to_dict
from engine.state import LogEntry
from services.domain import Game, PlayedFor
from services.store.models import ActionRow, EventRow, GameRow, IdempotencyRow, SeatRow, utcnow
from services.store.reads import STATES, Query, load_events, load_game




class Waiting(NamedTuple):
    """A game waiting on one seat (``GameRepository.waiting``)."""

    game_id: str
    version: int
    seat: int
    engine: str | None


def _deadline(game: Game, moved_at: datetime) -> datetime | None:
    seat = game.seat_to_act
    if seat is None or seat.kind != "human" or game.turn_timeout_ms is None:
        return None
    return moved_at + timedelta(milliseconds=game.turn_timeout_ms)


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every time stored here is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


# Writes are Core statements built once (building one costs about as much as running it;
# the ORM's bulk path several times more), run on the unit of work's connection.
_MOVE_ON = (
    update(GameRow.__table__)
    .where(GameRow.id == bindparam("game_id"), GameRow.version == bindparam("read_version"))
    .values(version=bindparam("new_version"), status=bindparam("new_status"),
            events=bindparam("new_events"), snapshot=bindparam("new_snapshot"),
            to_act=bindparam("new_to_act"), turn_deadline=bindparam("new_deadline"),
            updated_at=bindparam("now")))
_ADD_ACTIONS = insert(ActionRow.__table__)
_ADD_EVENTS = insert(EventRow.__table__)


class VersionConflict(Exception):
    """Another writer moved the game on since it was read."""


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session
        self._written: list[Game] = []

    def add(self, game: Game, events: list[Event]) -> None:
        now = utcnow()  # one moment: the deadline counts from the stored last move
        self.session.add(GameRow(
            id=game.id, status=game.status, preset=game.preset,
            rules=game.state.rules.to_dict(), seed=game.state.seed, version=game.version,
            snapshot=state_to_dict(game.state), events=len(events), pace_ms=game.pace_ms,
            turn_timeout_ms=game.turn_timeout_ms, to_act=game.state.to_act,
            turn_deadline=_deadline(game, now), created_at=now, updated_at=now,
            seats=[SeatRow(seat=s.seat, kind=s.kind, engine=s.engine, token_hash=s.token_hash)
                   for s in game.seats]))
        self.session.flush()  # the game row first: events refer to it
        self._add_events(game, 0, events)
        game.events = len(events)

    def _run(self, query: Query, **values: Any) -> list[Any]:
        """``query`` on this unit of work's own connection, inside its transaction."""
        connection = self.session.connection()
        return query.rows(connection.connection, connection.dialect, **values)

    def get(self, game_id: str) -> Game | None:
        return load_game(self._run, game_id)

    def save_actions(self, game: Game, read_version: int, entries: list[LogEntry],
                     events: Sequence[Event | PlayedFor]) -> None:
        """Append ``entries`` to the log and ``events`` to the game's events, and store
        the new snapshot, if and only if nobody else wrote since ``read_version``
        (checked inside this transaction)."""
        first_event = game.events
        game.events += len(events)
        now = utcnow()
        connection = self.session.connection()
        done = connection.execute(_MOVE_ON, {
            "game_id": game.id, "read_version": read_version, "new_version": game.version,
            "new_status": game.status, "new_events": game.events,
            "new_snapshot": state_to_dict(game.state), "new_to_act": game.state.to_act,
            "new_deadline": _deadline(game, now), "now": now})
        if done.rowcount != 1:
            raise VersionConflict(f"game {game.id} moved on from version {read_version}")
        connection.execute(_ADD_ACTIONS, [
            {"game_id": game.id, "seq": read_version + offset, "round": entry.round_no,
             "seat": entry.seat, "action": str(entry.action), "created_at": now}
            for offset, entry in enumerate(entries, start=1)])
        self._add_events(game, first_event, events)
        self._written.append(game)

    def remember_written(self) -> None:
        """After a commit: the states just written are the ones the next reads will ask
        for, so keep them decoded."""
        for game in self._written:
            STATES.put((game.id, game.version), game.state)
        self._written.clear()

    def _add_events(self, game: Game, first: int, events: Sequence[Event | PlayedFor]) -> None:
        if events:
            self.session.connection().execute(_ADD_EVENTS, [
                {"game_id": game.id, "seq": first + offset, "version": game.version,
                 "payload": e.to_dict() if isinstance(e, PlayedFor) else event_to_dict(e)}
                for offset, e in enumerate(events, start=1)])

    def events_after(self, game_id: str, after: int,
                     limit: int) -> list[tuple[int, int, Event | PlayedFor]]:
        return load_events(self._run, game_id, after, limit)

    def waiting(self, kind: str, since: datetime, limit: int = 500) -> list[Waiting]:
        """Active games waiting on a seat of ``kind`` since before ``since``, oldest
        first."""
        query = self._waiting_query(kind).where(GameRow.updated_at < since)
        return [Waiting(*row) for row in self.session.execute(query.limit(limit))]

    def overdue_humans(self, now: datetime, limit: int = 500) -> list[Waiting]:
        """Active games whose human seat to act has run past the game's time limit,
        longest overdue first."""
        query = (self._waiting_query("human").where(GameRow.turn_deadline <= now)
                 .order_by(None).order_by(GameRow.turn_deadline))
        return [Waiting(*row) for row in self.session.execute(query.limit(limit))]

    def _waiting_query(self, kind: str) -> Select[tuple[Any, ...]]:
        return (select(GameRow.id, GameRow.version, GameRow.to_act, SeatRow.engine)
                .join(SeatRow, and_(SeatRow.game_id == GameRow.id,
                                    SeatRow.seat == GameRow.to_act))
                .where(GameRow.status == "active", SeatRow.kind == kind)
                .order_by(GameRow.updated_at))

    def turn_deadline(self, game_id: str) -> datetime | None:
        """When the human seat to act runs out of time (None: no such limit now)."""
        deadline = self.session.scalar(select(GameRow.turn_deadline)
                                       .where(GameRow.id == game_id))
        return None if deadline is None else _aware(deadline)

    def actions(self, game_id: str) -> list[ActionRow]:
        return list(self.session.scalars(
            select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.seq)))

    def remembered(self, game_id: str, seat: int, key: str) -> tuple[str, int] | None:
        """(action text, resulting version) of an earlier action sent with ``key``."""
        row = self.session.get(IdempotencyRow, (game_id, seat, key))
        return None if row is None else (row.action, row.version)

    def remember(self, game_id: str, seat: int, key: str, action: str, version: int) -> None:
        self.session.add(IdempotencyRow(game_id=game_id, seat=seat, key=key, action=action,
                                        version=version))

    def page(self, status: str | None, limit: int,
             before: tuple[datetime, str] | None) -> list[GameRow]:
        """Games newest first, strictly after the ``before`` (created_at, id) cursor."""
        query = select(GameRow).order_by(GameRow.created_at.desc(), GameRow.id.desc())
        if status is not None:
            query = query.where(GameRow.status == status)
        if before is not None:
            created, game_id = before
            query = query.where(or_(GameRow.created_at < created,
                                    and_(GameRow.created_at == created, GameRow.id < game_id)))
        return list(self.session.scalars(query.limit(limit)).unique())  # seats are joined

    def ids(self) -> list[str]:
        return list(self.session.scalars(select(GameRow.id).order_by(GameRow.created_at)))
