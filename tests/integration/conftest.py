"""Database fixtures (``dbfixtures``): every storage test runs on SQLite, and on
PostgreSQL too when ``PRESIDENT_TEST_DATABASE_URL`` is set."""

from dbfixtures import BACKENDS, db, inline, reads, store, uow_factory  # noqa: F401
