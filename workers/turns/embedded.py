"""The embedded broker: kombu's SQLAlchemy transport on a SQLite file, no server at all.

Three things it needs that kombu does not do (kombu 5.7):
- its polling interval cannot go through ``broker_transport_options``, which kombu
  forwards to ``create_engine`` (kombu issue 2157): it is set on the transport class;
- its tables are created by the first process that connects, and several processes
  starting at once race to create them: ``create_tables`` runs once, before they start;
- consumed messages are only marked invisible, never deleted: ``cleanup`` deletes them
  (a periodic task).
"""

from __future__ import annotations

from pathlib import Path

from kombu import Connection
from kombu.transport import sqlalchemy as sqla_transport
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from config.files import private_file


def is_embedded(broker_url: str) -> bool:
    return broker_url.startswith("sqla+")


def set_polling_interval(seconds: float) -> None:
    sqla_transport.Transport.polling_interval = seconds


def _database_url(broker_url: str) -> str:
    url = broker_url.removeprefix("sqla+")
    path = url.split("///", 1)[-1]
    if url.startswith("sqlite") and path and path != ":memory:":
        private_file(Path(path))
    return url


def create_tables(broker_url: str) -> None:
    """Make the broker's tables. kombu declares them only when a channel opens, and
    creates them when that channel first needs its session: so open one."""
    engine = create_engine(_database_url(broker_url))
    try:
        with engine.begin() as connection:
            if engine.dialect.name == "sqlite":  # readers never wait on the writer
                connection.execute(text("PRAGMA journal_mode=WAL"))
    finally:
        engine.dispose()
    for attempt in range(2):
        try:
            with Connection(broker_url) as connection:
                connection.default_channel.session  # noqa: B018 - creates the tables
            return
        except OperationalError:  # another process created them at the same moment
            if attempt:
                raise


def cleanup(broker_url: str) -> int:
    """Delete the messages already consumed; how many were deleted."""
    engine = create_engine(_database_url(broker_url))
    try:
        with engine.begin() as connection:
            done = connection.execute(text("DELETE FROM kombu_message WHERE visible = :no"),
                                      {"no": False})
            return int(done.rowcount)
    finally:
        engine.dispose()
