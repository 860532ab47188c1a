"""The read side's SQL: SQLAlchemy Core statements, each compiled once per dialect and
run on a DBAPI cursor (a Session costs a read about three times as much), so the SQL is
written once for SQLite and PostgreSQL alike. Rows come back as the driver gives them:
only integer, text and JSON columns are read here."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from sqlalchemy import Select, and_, bindparam, select
from sqlalchemy.engine.interfaces import DBAPICursor, Dialect

from services.store.models import ActionRow, EventRow, GameRow, IdempotencyRow, SeatRow


class Query:
    """A Core statement, compiled once per dialect and run on a DBAPI connection."""

    def __init__(self, statement: Select[*tuple[Any, ...]]) -> None:  # any columns
        self.statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def rows(self, cursor: DBAPICursor, dialect: Dialect, **values: Any) -> list[Any]:
        compiled = self._compiled.get(dialect.name) or self._compile(dialect)
        cursor.execute(compiled.sql, compiled.params(values))
        return list(cursor.fetchall())

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled = self.statement.compile(dialect=dialect)
        order = tuple(compiled.positiontup or ()) if compiled.positional else None
        self._compiled[dialect.name] = _Compiled(compiled.string, order, compiled.params)
        return self._compiled[dialect.name]


class _Compiled(NamedTuple):
    sql: str
    order: tuple[str, ...] | None  # the parameters' order, for a positional paramstyle
    defaults: dict[str, Any]  # e.g. SQLite's OFFSET 0 after a LIMIT

    def params(self, values: dict[str, Any]) -> Any:
        values = {**self.defaults, **values}
        return values if self.order is None else tuple(values[name] for name in self.order)


GAME_AND_SEATS = Query(
    select(GameRow.preset, GameRow.version, GameRow.events, GameRow.pace_ms,
           GameRow.turn_timeout_ms, GameRow.owner, GameRow.ai_seconds_per_hour,
           GameRow.seated, GameRow.status, GameRow.visibility, GameRow.takeover, GameRow.hints,
           GameRow.seeded, GameRow.max_active_games, SeatRow.seat,
           SeatRow.kind, SeatRow.engine, SeatRow.token_hash, SeatRow.player, SeatRow.name,
           SeatRow.host, SeatRow.player_key, SeatRow.connected)
    .join(SeatRow, SeatRow.game_id == GameRow.id)
    .where(GameRow.id == bindparam("game_id")).order_by(SeatRow.seat))
ACTIONS_BETWEEN = Query(
    select(ActionRow.action)
    .where(ActionRow.game_id == bindparam("game_id"), ActionRow.seq > bindparam("after"),
           ActionRow.seq <= bindparam("upto")).order_by(ActionRow.seq))
LOG_UP_TO = Query(  # the action log up to a version (a writer may have moved on since)
    select(ActionRow.round, ActionRow.seat, ActionRow.action)
    .where(ActionRow.game_id == bindparam("game_id"), ActionRow.seq <= bindparam("version"))
    .order_by(ActionRow.seq))
NOTHING = 2**31 - 1  # a version no game reaches: no actions to catch up with
CATCH_UP = Query(  # the version, and the actions after the one known (at most ``limit``)
    select(GameRow.version, GameRow.events, GameRow.seated, ActionRow.action)
    .outerjoin(ActionRow, and_(ActionRow.game_id == GameRow.id,
                               ActionRow.seq > bindparam("known")))
    .where(GameRow.id == bindparam("game_id")).order_by(ActionRow.seq)
    .limit(bindparam("limit")))
SNAPSHOT = Query(select(GameRow.version, GameRow.events, GameRow.snapshot, GameRow.rules)
                 .where(GameRow.id == bindparam("game_id")))
EVENTS_AFTER = Query(
    select(EventRow.seq, EventRow.version, EventRow.payload)
    .where(EventRow.game_id == bindparam("game_id"), EventRow.seq > bindparam("after"))
    .order_by(EventRow.seq).limit(bindparam("limit")))
ROUND_EVENTS = Query(
    select(EventRow.seq, EventRow.version, EventRow.payload)
    .where(EventRow.game_id == bindparam("game_id"), EventRow.round == bindparam("round"))
    .order_by(EventRow.seq))
REMEMBERED = Query(
    select(IdempotencyRow.action, IdempotencyRow.version)
    .where(IdempotencyRow.game_id == bindparam("game_id"),
           IdempotencyRow.seat == bindparam("seat"), IdempotencyRow.key == bindparam("key")))

Run = Callable[..., list[Any]]  # run(query, **values) -> rows: a query on a connection
