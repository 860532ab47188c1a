"""A move on PostgreSQL as one statement: the version-checked update of the game row, the
new log entries, the new events and the Idempotency-Key, in data-modifying CTEs.

The same statement announces the move on the change feed (``feed.py``): PostgreSQL
delivers the notice when the move commits, and only if it does.

One statement is atomic by itself, so it runs in autocommit mode: one round trip where
the same work as separate statements in a transaction takes six (BEGIN, the read, the
update, two inserts, COMMIT), and a fraction of the database's CPU. The inserts select
from the update's RETURNING, so when another writer moved the game on first (no row
updated) nothing at all is written and the answer is 0.

Other databases take the unit of work's transaction instead
(``GameRepository._move_in_transaction``); the same tests run on both.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy.engine.interfaces import DBAPICursor

from services.jsoncodec import dumps
from services.store.feed import CHANNEL, Notice

MOVE = f"""
WITH moved AS (
    UPDATE games SET version = %(version)s, status = %(status)s, events = %(events)s,
        snapshot = %(snapshot)s::json, to_act = %(to_act)s,
        turn_deadline = %(turn_deadline)s, updated_at = %(now)s
    WHERE id = %(game_id)s AND version = %(read_version)s
    RETURNING id
), logged AS (
    INSERT INTO actions (game_id, seq, round, seat, action, created_at)
    SELECT moved.id, a.seq, a.round, a.seat, a.action, %(now)s
    FROM moved, json_to_recordset(%(actions)s::json)
        AS a(seq integer, round integer, seat integer, action text)
), told AS (
    INSERT INTO events (game_id, seq, version, payload)
    SELECT moved.id, e.seq, %(version)s, e.payload
    FROM moved, json_to_recordset(%(new_events)s::json) AS e(seq integer, payload json)
), kept AS (
    INSERT INTO idempotency_keys (game_id, seat, key, action, version)
    SELECT moved.id, %(key_seat)s, %(key)s::text, %(key_action)s, %(version)s
    FROM moved WHERE %(key)s::text IS NOT NULL
)
SELECT count(*) FROM (SELECT pg_notify('{CHANNEL}', %(notice)s) FROM moved) AS announced
"""


class Move(NamedTuple):
    """What one move writes (``GameRepository.save_actions``)."""

    game_id: str
    read_version: int  # the write happens only if the game is still here
    version: int
    status: str
    events: int  # the game's event count after the move
    snapshot: dict[str, Any]
    to_act: int
    turn_deadline: datetime | None
    now: datetime
    actions: list[dict[str, Any]]  # seq, round, seat, action
    new_events: list[dict[str, Any]]  # seq, payload
    key: tuple[int, str, str] | None  # Idempotency-Key: (seat, key, action text)


def move_in_one_statement(cursor: DBAPICursor, move: Move) -> bool:
    """Write ``move`` with a cursor on an autocommit connection; False when the game had
    moved on."""
    seat, key, action = move.key or (None, None, None)
    notice = Notice(move.game_id, move.read_version, move.version, move.events,
                    tuple(a["action"] for a in move.actions))
    params = {**move._asdict(), "snapshot": dumps(move.snapshot), "notice": notice.payload(),
              "actions": dumps(move.actions), "new_events": dumps(move.new_events),
              "key_seat": seat, "key": key, "key_action": action}
    cursor.execute(MOVE, params)
    (moved,) = cursor.fetchone()
    return bool(moved == 1)
