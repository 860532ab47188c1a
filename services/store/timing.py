"""Times as the store writes and reads them."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import ColumnElement, func
from sqlalchemy.orm import Session

Moment = datetime | ColumnElement[datetime]
"""A time to write: the database's clock on PostgreSQL (``now()``, shared by every
machine), this machine's on SQLite (the database lives on it)."""


def aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every time stored here is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def clock(session: Session) -> Moment:
    """Now, as ``session``'s database should write it (``Moment``)."""
    postgres = session.get_bind().dialect.name == "postgresql"
    return func.now() if postgres else datetime.now(timezone.utc)
