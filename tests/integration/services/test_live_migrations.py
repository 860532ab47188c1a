"""Migrations on a live database: code stays ready on a database a newer release has
migrated while every migration it does not know keeps it readable, is not ready behind
its own migrations, and a migration waiting on a lock gives up and changes nothing."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from services.store.db import alembic_config, schema_readable, upgrade


def _at(db: Engine, revision: str, oldest_reader: str | None = None) -> None:
    """Pretend the database is at ``revision`` (as a newer release would leave it)."""
    with db.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
        if oldest_reader is not None:
            connection.execute(text("UPDATE schema_readers SET oldest_reader = :o"),
                               {"o": oldest_reader})


def _revision(db: Engine) -> str:
    with db.connect() as connection:
        return str(connection.execute(text("SELECT version_num FROM alembic_version")).scalar())


def test_migrations_write_down_the_oldest_code_that_still_runs_on_them(db: Engine) -> None:
    with db.connect() as connection:
        oldest = connection.execute(text("SELECT oldest_reader FROM schema_readers")).scalar()
    assert oldest == "0009"  # 0009 to 0012 are expand steps; 0008 was not written as one
    assert schema_readable(db)


def test_code_behind_a_newer_release_s_migrations_is_ready_while_they_expand_only(
        db: Engine) -> None:
    head = _revision(db)
    _at(db, "9001", oldest_reader=head)  # a newer release's expand step
    assert schema_readable(db)
    _at(db, "9002", oldest_reader="9002")  # its contract step: this code must be gone
    assert not schema_readable(db)
    _at(db, head, oldest_reader=head)
    assert schema_readable(db)


def test_code_ahead_of_the_database_is_not_ready_until_it_is_migrated(db: Engine) -> None:
    command.downgrade(alembic_config(db), "0009")
    assert not schema_readable(db)
    upgrade(db)
    assert schema_readable(db)


def test_a_migration_waiting_on_a_lock_gives_up_and_changes_nothing(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    if db.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only: SQLite has no lock timeout (its writers take turns)")
    command.downgrade(alembic_config(db), "0008")
    monkeypatch.setenv("PRESIDENT_MIGRATION_LOCK_TIMEOUT_S", "0.5")
    with db.connect() as reader:  # a long transaction that has read the games table
        reader.execute(text("SELECT count(*) FROM games"))
        with pytest.raises(OperationalError, match="lock timeout"):
            upgrade(db)  # 0009 adds a column to games: it needs the table to itself
        reader.rollback()
    assert _revision(db) == "0008"
    upgrade(db)
    assert schema_readable(db)
