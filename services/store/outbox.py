"""How an outbox relay learns that there is something to hand over (the ``OutboxWake``
port of ``services.runtime.relay``).

- PostgreSQL: one relay at a time leads the whole deployment, holding a session advisory
  lock on a connection of its own, and listens on ``OUTBOX_CHANNEL``, which every commit
  that writes to the outbox notifies. The others try to take the lead every
  ``TAKE_LEAD_EVERY_S``: a leader whose process dies loses its connection, and the lock
  with it, so the next one takes over within that time and hands over what was left.
  One relay at a time: N processes racing for each message would cost N claims a move.
- SQLite (one machine): every relay relays, woken at once by its own process's commits
  and every ``POLL_S`` for the others'; SQLite lets one writer claim at a time.
"""

from __future__ import annotations

import logging
import select
import threading
from typing import Any, Callable

log = logging.getLogger(__name__)

OUTBOX_CHANNEL = "president_outbox"
# The advisory lock of the lead: this class, and the schema's name hashed (a lock is the
# database's: deployments in two schemas of one database each have their own leader).
LEAD_LOCK_CLASS = 0x70726573  # "pres"
TAKE_LEAD_EVERY_S = 0.5
POLL_S = 0.2


class LocalWake:
    """SQLite's: woken by this process's commits (``poke``), else every ``poll_s``."""

    def __init__(self, poll_s: float = POLL_S) -> None:
        self._poll_s = poll_s
        self._poked = threading.Event()

    def poke(self) -> None:
        self._poked.set()

    def wait(self, at_most_s: float) -> bool:
        self._poked.wait(min(at_most_s, self._poll_s))
        self._poked.clear()
        return True

    def close(self) -> None:
        self._poked.set()


class PostgresLead:
    """PostgreSQL's: ``wait`` answers True when this relay leads and may have something
    to hand over (a notice came, it just took the lead, or ``at_most_s`` passed), False
    while another relay leads or the database cannot be reached."""

    def __init__(self, connect: Callable[[], Any], take_lead_every_s: float = TAKE_LEAD_EVERY_S
                 ) -> None:
        self._connect = connect  # a psycopg connection in autocommit mode
        self._every_s = take_lead_every_s
        self._connection: Any = None
        self.leading = False
        self._closed = threading.Event()

    def poke(self) -> None:
        pass  # the commit's notice wakes the leader, wherever it runs

    def wait(self, at_most_s: float) -> bool:
        try:
            if self._connection is None:
                self._connection = self._connect()
            if not self.leading:
                return self._take_lead()
            select.select([self._connection.pgconn.socket], [], [], at_most_s)
            self._drain()
            return True
        except Exception as error:  # noqa: BLE001 - the connection broke: lead again later
            log.warning("outbox relay: %s; trying to lead again", error)
            self._drop()
            self._closed.wait(self._every_s)
            return False

    def _take_lead(self) -> bool:
        lock = self._connection.execute(
            "SELECT pg_try_advisory_lock(%s, hashtext(current_schema()))", (LEAD_LOCK_CLASS,))
        if not lock.fetchone()[0]:
            self._closed.wait(self._every_s)
            return False
        self._connection.execute(f"LISTEN {OUTBOX_CHANNEL}")
        self.leading = True
        log.info("outbox relay: leading")
        return True  # and hands over what the one before left

    def _drain(self) -> None:
        pgconn = self._connection.pgconn
        pgconn.consume_input()  # raises once the server has gone
        while pgconn.notifies() is not None:
            pass

    def _drop(self) -> None:
        connection, self._connection, self.leading = self._connection, None, False
        if connection is not None:
            try:
                connection.close()
            except Exception:  # noqa: BLE001 - already broken
                pass

    def close(self) -> None:
        self._closed.set()
        self._drop()  # the lock goes with the connection: another relay leads
