"""Alembic environment: migrations run on the engine that ``services.store.db`` hands over,
in one transaction; on PostgreSQL each waits at most ``PRESIDENT_MIGRATION_LOCK_TIMEOUT_S``
for a lock (a migration queued behind a long transaction would otherwise queue every
request behind itself), and the oldest code that can still run on the result is written
down for ``/readyz`` (``services.store.db.schema_readable``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import inspect, text

from config.settings import defaulted
from services.store.models import Base

engine = context.config.attributes["engine"]
with engine.begin() as connection:
    if connection.dialect.name == "postgresql":
        seconds = float(defaulted("PRESIDENT_MIGRATION_LOCK_TIMEOUT_S"))
        connection.execute(text(f"SET LOCAL lock_timeout = '{int(seconds * 1000)}ms'"))
    context.configure(connection=connection, target_metadata=Base.metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    context.run_migrations()
    script = context.script
    heads = context.get_context().get_current_heads()
    if heads and inspect(connection).has_table("schema_readers"):
        applied = script.walk_revisions("base", heads[0])
        oldest = max(getattr(r.module, "oldest_reader", r.revision) for r in applied)
        connection.execute(text("DELETE FROM schema_readers"))
        connection.execute(text("INSERT INTO schema_readers VALUES (:oldest)"),
                           {"oldest": oldest})
