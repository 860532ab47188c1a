"""Games in and out of the database: the one place that maps rows to domain objects."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from engine.snapshot import state_from_dict, state_to_dict
from engine.state import LogEntry
from services.domain import Game, Seat
from services.store.models import ActionRow, GameRow, SeatRow, utcnow


class VersionConflict(Exception):
    """Another writer moved the game on since it was read."""


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, game: Game) -> None:
        self.session.add(GameRow(
            id=game.id, status=game.status, preset=game.preset,
            rules=game.state.rules.to_dict(), seed=game.state.seed, version=game.version,
            snapshot=state_to_dict(game.state),
            seats=[SeatRow(seat=s.seat, kind=s.kind, engine=s.engine, token_hash=s.token_hash)
                   for s in game.seats]))

    def get(self, game_id: str) -> Game | None:
        row = self.session.get(GameRow, game_id)
        if row is None:
            return None
        seats = tuple(Seat(s.seat, s.kind, s.engine, s.token_hash) for s in row.seats)
        return Game(row.id, row.preset, seats, state_from_dict(row.snapshot), row.version)

    def save_actions(self, game: Game, read_version: int, entries: list[LogEntry]) -> None:
        """Append ``entries`` to the log and store the new snapshot, if and only if nobody
        else wrote since ``read_version`` (checked inside this transaction)."""
        done = self.session.execute(
            update(GameRow)
            .where(GameRow.id == game.id, GameRow.version == read_version)
            .values(version=game.version, status=game.status,
                    snapshot=state_to_dict(game.state), updated_at=utcnow()))
        if done.rowcount != 1:  # type: ignore[attr-defined]
            raise VersionConflict(f"game {game.id} moved on from version {read_version}")
        for offset, entry in enumerate(entries, start=1):
            self.session.add(ActionRow(game_id=game.id, seq=read_version + offset,
                                       round=entry.round_no, seat=entry.seat,
                                       action=str(entry.action)))

    def actions(self, game_id: str) -> list[ActionRow]:
        return list(self.session.scalars(
            select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.seq)))
