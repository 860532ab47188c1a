"""The API under test: the app factory on a fresh database (SQLite, and PostgreSQL when
configured), AI seats played inline (``dbfixtures.client``)."""

from dbfixtures import client  # noqa: F401
