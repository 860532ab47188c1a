"""Alembic environment: migrations run on the engine that ``services.store.db`` hands over,
each in a transaction of its own (an index built ``CONCURRENTLY`` needs its migration to
step out of its transaction: ``op.get_context().autocommit_block()``); on PostgreSQL each
waits at most ``PRESIDENT_MIGRATION_LOCK_TIMEOUT_S`` for a lock (a migration queued
behind a long transaction would otherwise queue every request behind itself); and with
each migration, in its transaction, the oldest code that can still run on the result is
written down for ``/readyz`` (``services.store.db.schema_readable``)."""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import inspect, text

from config.settings import defaulted
from services.store.models import Base

engine = context.config.attributes["engine"]


def write_oldest_reader(ctx: Any, step: Any, heads: Any, run_args: Any) -> None:
    """After each migration, up or down: the newest ``oldest_reader`` of those applied."""
    connection = ctx.connection
    if not heads or not inspect(connection).has_table("schema_readers"):
        return
    applied = ctx.script.walk_revisions("base", next(iter(heads)))  # (one head here)
    oldest = max(getattr(r.module, "oldest_reader", r.revision) for r in applied)
    connection.execute(text("DELETE FROM schema_readers"))
    connection.execute(text("INSERT INTO schema_readers VALUES (:oldest)"), {"oldest": oldest})


with engine.connect() as connection:
    postgres = connection.dialect.name == "postgresql"
    if postgres:  # the session's: every migration's transaction, and autocommit blocks
        seconds = float(defaulted("PRESIDENT_MIGRATION_LOCK_TIMEOUT_S"))
        connection.execute(text(f"SET lock_timeout = '{int(seconds * 1000)}ms'"))
        connection.commit()
    context.configure(connection=connection, target_metadata=Base.metadata,
                      render_as_batch=not postgres, transaction_per_migration=True,
                      on_version_apply=write_oldest_reader)
    try:
        with context.begin_transaction():
            context.run_migrations()
    finally:
        if postgres:
            connection.rollback()  # (a failed migration's transaction)
            connection.execute(text("RESET lock_timeout"))
            connection.commit()
