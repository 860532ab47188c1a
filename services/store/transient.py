"""Transient database errors: a lost connection (a restart, a failover, an idle timeout),
a serialization failure or a deadlock. Each store path retries them with backoff
(``retried``), then raises ``services.errors.Unavailable`` (503, nothing changed).

What counts: psycopg's ``OperationalError`` (the connection) and ``TransactionRollback``
(40001, 40P01), SQLAlchemy's wrappers of them, and SQLite's "database is locked" beyond
its busy timeout. Constraint violations, bad values and the like are not transient."""

from __future__ import annotations

import logging
import random
import sqlite3
import time
from typing import Callable, TypeVar

import psycopg
from sqlalchemy.exc import DBAPIError

from services.errors import Unavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

ATTEMPTS = 4  # the first and three retries
BASE_S = 0.05  # backoff: a random pause up to BASE_S * 4**attempt (0.05, 0.2, 0.8 s)


def is_transient(error: BaseException) -> bool:
    if isinstance(error, DBAPIError):
        if error.connection_invalidated:
            return True
        error = error.orig if error.orig is not None else error
    if isinstance(error, (psycopg.OperationalError, psycopg.errors.TransactionRollback)):
        return not isinstance(error, psycopg.errors.QueryCanceled)  # (a lock timeout: ours)
    return isinstance(error, sqlite3.OperationalError) and "locked" in str(error)


def is_disconnect(error: BaseException) -> bool:
    """The connection itself is gone: it must not go back to its pool."""
    if isinstance(error, DBAPIError):
        return bool(error.connection_invalidated)
    return isinstance(error, psycopg.OperationalError) and not isinstance(
        error, psycopg.errors.TransactionRollback)


def pause(attempt: int) -> None:
    """Before retry number ``attempt + 1``: a random pause up to ``BASE_S * 4**attempt``."""
    time.sleep(random.uniform(0, BASE_S * 4 ** attempt))


def unavailable(what: str, error: BaseException) -> Unavailable:
    """What a caller gets once ``what`` has failed through every retry: the error's own
    text stays in the logs (a client is told no more than that it may try again)."""
    log.warning("the database is unavailable (%s): %s", what, error)
    failure = Unavailable(f"the database is unavailable ({what})")
    failure.__cause__ = error
    return failure


def retried(attempt: Callable[[], T], what: str) -> T:
    """``attempt()``, again after a transient error, up to ``ATTEMPTS`` times; then
    ``Unavailable``. ``attempt`` must be safe to repeat (a read, or a write that says
    whether an earlier try committed)."""
    for number in range(ATTEMPTS):
        try:
            return attempt()
        except Exception as error:
            if not is_transient(error):
                raise
            if number == ATTEMPTS - 1:
                raise unavailable(what, error) from error
            log.warning("%s: %s; retrying", what, error)
            pause(number)
    raise AssertionError("unreachable")
