"""Test databases: SQLite files, and PostgreSQL when ``PRESIDENT_TEST_DATABASE_URL`` is
set, with a schema of its own per pytest-xdist worker."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from contextlib import contextmanager
from typing import Callable, Iterator

from sqlalchemy import Engine, select, update

from bootstrap import FALLBACK, decide_here
from engine.events import Event
from services.domain import Game, PlayedFor
from services.runtime.inline import InlineScheduler
from services.runtime.relay import Relay
from services.ports import StoredEvent, UnitOfWork
from services.store import Store
from services.store.db import in_schema, recreate
from services.store.models import GameRow
from services.store.reads import GameReads, polling

PG_URL = os.environ.get("PRESIDENT_TEST_DATABASE_URL")
REDIS_URL = os.environ.get("PRESIDENT_TEST_REDIS_URL")  # a Redis for the tests, if set


def fresh(engine: Engine) -> Engine:
    """Drop everything this project created, then migrate from scratch."""
    return recreate(engine)


def pg_url() -> str:
    """Under pytest-xdist each worker gets a schema of its own in the test database."""
    assert PG_URL is not None
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return in_schema(PG_URL, f"test_{worker}") if worker else PG_URL


@contextmanager
def services_on(db: Engine) -> Iterator[tuple[Callable[[], UnitOfWork], GameReads]]:
    """Units of work and the read side on ``db``, as the API makes them (the read side
    on autocommit connections of its own)."""
    store = Store(db)
    try:
        yield store.uow, store.reads
    finally:
        store.reads.engine.dispose()


def set_last_move(db: Engine, game_id: str, moment: datetime) -> None:
    """Move a game's clock: its last move to ``moment``, and the human's deadline and the
    turn's due time counted from it by as much (SQLite hands back naive UTC datetimes)."""
    with db.begin() as c:
        last, deadline, due = c.execute(
            select(GameRow.updated_at, GameRow.turn_deadline, GameRow.turn_due_at)
            .where(GameRow.id == game_id)).one()
        shift = moment - _utc(last)
        c.execute(update(GameRow).where(GameRow.id == game_id).values(
            updated_at=moment, turn_deadline=None if deadline is None else _utc(deadline) + shift,
            turn_due_at=None if due is None else _utc(due) + shift))


def play_inline(store: Store) -> InlineScheduler:
    """AI seats of the games on ``store`` played at once, in the committing thread: after
    each commit, a relay drains the outbox to an ``InlineScheduler``."""
    scheduler = InlineScheduler(store.uow, decide_here, FALLBACK)
    relay = Relay(store.uow, scheduler)

    def relay_and_play() -> None:
        relay.drain()
        scheduler.play_queued()

    store.outbox_written = relay_and_play
    return scheduler


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class UowReads:
    """The service's ``Reads`` port over units of work, for tests that hold a unit of work
    factory: each read opens one (the API reads through ``GameReads`` instead)."""

    def __init__(self, uow_factory: Callable[[], UnitOfWork]) -> None:
        self._uow = uow_factory

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        with self._uow() as uow:
            return uow.games.get(game_id, at_least)

    def fresh(self, game_id: str) -> Game | None:
        with self._uow() as uow:
            return uow.games.fresh(game_id)

    def events_after(self, game_id: str, after: int,
                     limit: int) -> list[tuple[int, int, Event | PlayedFor]]:
        with self._uow() as uow:
            return uow.games.events_after(game_id, after, limit)

    def events_of_round(self, game_id: str, round_no: int) -> list[StoredEvent]:
        return []  # (the handlers then read the game's events and pick the round's)

    @contextmanager
    def watching(self, game_id: str) -> Iterator[Callable[[float], None]]:
        yield polling
