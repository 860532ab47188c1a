"""Hostile clients: each test plays a party of docs/security.md's threat model trying
what it may not do, against the app on a real database (SQLite, and PostgreSQL when
``PRESIDENT_TEST_DATABASE_URL`` is set)."""

from dbfixtures import BACKENDS, client, db, inline, reads, store, uow_factory  # noqa: F401
