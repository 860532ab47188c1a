"""Database connections and migrations.

SQLite file by default (``var/president.db``), PostgreSQL (or any SQLAlchemy URL)
through ``DATABASE_URL``. Migrations are Alembic's, under ``migrations/``; the Alembic
configuration is built here, so no alembic.ini is needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.util import CommandError
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
import sqlalchemy
from sqlalchemy import URL, Engine, event, text
from sqlalchemy.orm import sessionmaker, Session

from config.files import private_file
from config.settings import setting
from services.jsoncodec import dumps, loads

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def database_url() -> str:
    url = setting("DATABASE_URL")
    assert url is not None  # the setting has a default
    return url


def make_engine(url: str | None = None, *, autocommit: bool = False) -> Engine:
    """An engine for ``url``; with ``autocommit``, one whose connections run each
    statement on its own (``reads.GameReads``: no BEGIN, no ROLLBACK)."""
    url = url or database_url()
    # (an error's text names no parameter: a game's row holds its seed and every hand)
    options: dict[str, Any] = {"json_serializer": dumps, "json_deserializer": loads,
                               "hide_parameters": True}
    if autocommit:  # (no transaction is ever open: nothing to roll back on check-in)
        options.update(isolation_level="AUTOCOMMIT", pool_reset_on_return=None)
    # (``sqlalchemy.create_engine`` is looked up here: tracing, when on, wraps it)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            private_file(Path(path))
        engine = sqlalchemy.create_engine(url, connect_args={"timeout": 30}, **options)
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        if url.startswith("postgresql://"):  # psycopg 3 is the driver this project installs
            url = "postgresql+psycopg://" + url[len("postgresql://"):]
        # No pre-ping (a round trip per request); stale connections are recycled instead.
        engine = sqlalchemy.create_engine(url, pool_recycle=1800, pool_size=10,
                                          max_overflow=10, **options)
    return engine


def autocommit_twin(engine: Engine) -> Engine:
    """An autocommit engine (a pool of its own) on ``engine``'s database."""
    return make_engine(engine.url.render_as_string(hide_password=False), autocommit=True)


def _sqlite_pragmas(dbapi_connection: object, _: object) -> None:
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def dedicated_connection(engine: Engine, url: URL | None = None) -> Any:
    """A psycopg connection in autocommit mode, outside ``engine``'s pool (to ``url``, by
    default the engine's), for a listener: TCP keepalives and a user timeout make a
    silent network failure break it within seconds."""
    cargs, cparams = engine.dialect.create_connect_args(url or engine.url)
    connection = engine.dialect.loaded_dbapi.connect(
        *cargs, **{**cparams, "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 1,
                   "keepalives_count": 3, "connect_timeout": 5, "tcp_user_timeout": 10_000})
    connection.autocommit = True
    return connection


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    command.upgrade(alembic_config(engine), revision)


def recreate(engine: Engine) -> Engine:
    """Drop every table this project made, then migrate from scratch: for tests and
    benchmarks, never for a database that holds games worth keeping."""
    from services.store.models import Base  # the models import nothing from here

    Base.metadata.drop_all(engine)
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    upgrade(engine)
    return engine


def in_schema(url: str, schema: str) -> str:
    """A PostgreSQL URL whose connections work in ``schema`` (created if missing), so
    that a test worker or a benchmark never touches another schema's tables."""
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
    engine.dispose()
    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"


def schema_readable(engine: Engine) -> bool:
    """Can this code run on the database (``/readyz``)? At this code's newest migration,
    yes; behind it, no (migrate first); ahead of it (a newer release has migrated), while
    every migration this code does not know keeps it readable (each names the oldest code
    that still runs on it: an expand step, then a contract step a release later)."""
    scripts = ScriptDirectory.from_config(alembic_config(engine))
    ours = scripts.get_current_head()
    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_heads()
        if current == (ours,):
            return True
        if ours is None or len(current) != 1 or _known(scripts, current[0]):
            return False  # behind this code, or branched
        oldest = connection.execute(text("SELECT oldest_reader FROM schema_readers")).scalar()
    return oldest is not None and str(oldest) <= ours


def _known(scripts: ScriptDirectory, revision: str) -> bool:
    try:
        return scripts.get_revision(revision) is not None
    except CommandError:  # (alembic's ResolutionError is one)
        return False
