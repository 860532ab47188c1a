"""Transient database errors (services.store.transient): retried with backoff on every
store path, the raw psycopg ones included, then ``Unavailable`` (503), never a 500."""

from __future__ import annotations

import os
import sqlite3

import psycopg
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError, OperationalError

from dealt import create_dealt
from engine import observe
from services.commands import Act, CreateGame, SeatSpec
from services.errors import Unavailable
from services.handlers.games import create_game
from services.handlers.moves import act
from services.store import Store
from services.store import transient
from services.store.transient import is_transient, retried
from services.store.db import make_engine
from workers.ai import LEVELS, decide

NAME = f"president-transient-test-{os.getpid()}"


@pytest.mark.parametrize("error, expected", [
    (psycopg.OperationalError("server closed the connection unexpectedly"), True),
    (psycopg.errors.SerializationFailure("could not serialize access"), True),
    (psycopg.errors.DeadlockDetected("deadlock detected"), True),
    (psycopg.errors.LockNotAvailable("lock timeout"), True),
    (psycopg.errors.QueryCanceled("canceling statement due to lock timeout"), False),
    (psycopg.errors.UniqueViolation("duplicate key"), False),
    (sqlite3.OperationalError("database is locked"), True),
    (sqlite3.OperationalError("no such table: games"), False),
    (OperationalError("SELECT 1", {}, psycopg.OperationalError("gone")), True),
    (IntegrityError("INSERT", {}, psycopg.errors.UniqueViolation("dup")), False),
    (ValueError("not a database error"), False),
])
def test_what_counts_as_transient(error: BaseException, expected: bool) -> None:
    assert is_transient(error) is expected


def test_a_transient_error_is_retried_then_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transient, "BASE_S", 0.0)
    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise psycopg.OperationalError("the connection is lost")
        return "read"

    assert retried(flaky, "a read") == "read" and len(calls) == 3

    def down() -> str:
        calls.append(1)
        raise psycopg.OperationalError("the server is down")

    calls.clear()
    with pytest.raises(Unavailable, match="a read"):
        retried(down, "a read")
    assert len(calls) == transient.ATTEMPTS

    def wrong() -> str:
        raise psycopg.errors.UniqueViolation("duplicate")

    with pytest.raises(psycopg.errors.UniqueViolation):  # not transient: at once
        retried(wrong, "a write")


def test_a_unit_of_work_that_hits_a_transient_error_leaves_as_unavailable(
        store: Store) -> None:
    with pytest.raises(Unavailable):
        with store.uow():
            raise OperationalError("SELECT 1", {}, psycopg.OperationalError("gone"))
    with pytest.raises(ValueError):  # anything else passes through as it is
        with store.uow():
            raise ValueError("not the database's")


def test_moves_and_reads_survive_every_connection_being_dropped(db: Engine) -> None:
    """As a PostgreSQL restart does to every pooled connection: the next move and the
    next read are retried on new connections, and succeed."""
    if db.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only: an SQLite file has no server to drop connections")
    named = db.url.update_query_dict({"application_name": NAME})  # only this store's
    store = Store(make_engine(named.render_as_string(hide_password=False)), listen_url="off")
    created = create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=5),
                          store.uow(), LEVELS)
    game_id = created.game.game_id
    for _ in range(2):  # warm the pools: connections to drop
        assert store.reads.get(game_id) is not None
    with db.connect() as connection:
        dropped = connection.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = :name"), {"name": NAME}).scalar()
    assert dropped
    store.reads.states.forget()
    game = store.reads.get(game_id)
    assert game is not None and game.version == 0
    seat = game.state.to_act
    view = observe(game.state, seat)
    played = act(Act(game_id, created.tokens[seat], str(decide(view, "easy")), 0), store.uow())
    assert played.version == 1
    store.close()



def test_a_database_error_tells_neither_the_client_nor_the_logs_a_statements_values(
        store: Store, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's row holds its seed and every hand: an error's text carries no statement
    parameter (into a log line or a span), and the client is told only that the database
    is unavailable (its 503's detail)."""
    secret = "a-seed-and-every-hand"
    with pytest.raises(Exception) as failed:
        with store.engine.connect() as connection:
            connection.execute(text("SELECT :value FROM no_such_table"), {"value": secret})
    assert secret not in str(failed.value) and "hidden" in str(failed.value)
    with pytest.raises(Unavailable) as raised:
        with store.uow():
            raise OperationalError("UPDATE games", None, psycopg.OperationalError(secret))
    assert secret not in raised.value.message
    assert any(secret in r.getMessage() for r in caplog.records)  # (for the operator)
    monkeypatch.setattr(transient, "BASE_S", 0.0)
    with pytest.raises(Unavailable) as raised:
        retried(lambda: _raise(psycopg.OperationalError(secret)), "a read")
    assert secret not in raised.value.message


def _raise(error: Exception) -> None:
    raise error
