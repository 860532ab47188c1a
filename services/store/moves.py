"""Moves on PostgreSQL in one statement: the version-checked update of each game row, its
new log entries, events and Idempotency-Keys, and its change-feed notice, as
data-modifying CTEs. Atomic by itself, it runs in autocommit mode: one round trip.
Concurrent moves of one process share a statement (``MoveBatches``, group commit), each
still checked against its own game's version. Other databases take the unit of work's
transaction (``SqlGameRepository._move_in_transaction``). Details: docs/storage.md."""

from __future__ import annotations

import threading
import time
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Callable, NamedTuple, Sequence

import psycopg
from prometheus_client import Histogram
from sqlalchemy.engine.interfaces import DBAPICursor

from config import tracing
from services.domain import Hook, TurnMessage
from services.jsoncodec import dumps
from services.store.feed import CHANNEL, Notice
from services.store.outbox import OUTBOX_CHANNEL
from services.store.transient import (
    ATTEMPTS, is_disconnect, is_transient, pause, unavailable,
)

MOVES = f"""
WITH asked AS (
    SELECT * FROM json_to_recordset(%(moves)s::json) AS m(
        game_id text, read_version integer, seated integer, version integer, status text,
        events integer,
        snapshot json, to_act integer, deadline_ms integer, actions json, new_events json,
        key_seat integer, key text, key_action text, notice text, message_seat integer,
        message_engine text, message_delay_ms integer, message_trace text, owner text,
        hooks json, rate_rounds json)
    LIMIT %(count)s
), moved AS (
    UPDATE games SET version = asked.version, status = asked.status, events = asked.events,
        snapshot = asked.snapshot, to_act = asked.to_act,
        turn_deadline = now() + asked.deadline_ms * interval '1 millisecond',
        turn_due_at = now() + asked.message_delay_ms * interval '1 millisecond',
        updated_at = now()
    FROM asked
    WHERE games.id = asked.game_id AND games.version = asked.read_version
        AND games.seated = asked.seated
    RETURNING asked.*
), logged AS (
    INSERT INTO actions (game_id, seq, round, seat, action, created_at)
    SELECT moved.game_id, a.seq, a.round, a.seat, a.action, now()
    FROM moved, json_to_recordset(moved.actions)
        AS a(seq integer, round integer, seat integer, action text)
), told AS (
    INSERT INTO events (game_id, seq, version, round, payload)
    SELECT moved.game_id, e.seq, moved.version, e.round, e.payload
    FROM moved, json_to_recordset(moved.new_events) AS e(seq integer, round integer,
                                                         payload json)
), kept AS (
    INSERT INTO idempotency_keys (game_id, seat, key, action, version)
    SELECT moved.game_id, moved.key_seat, moved.key, moved.key_action, moved.version
    FROM moved WHERE moved.key IS NOT NULL
), queued AS (
    INSERT INTO outbox (game_id, version, seat, engine, delay_ms, created_at, trace)
    SELECT moved.game_id, moved.version, moved.message_seat, moved.message_engine,
        moved.message_delay_ms, now(), moved.message_trace
    FROM moved WHERE moved.message_seat IS NOT NULL
    RETURNING 1
), hooked AS (
    INSERT INTO webhook_messages (webhook_id, endpoint_id, type, data, created_at, state,
                                  due_at, hand, attempts)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), endpoint.id, hook.type,
        hook.data, now(), 'pending', now(), 0, 0
    FROM moved
    CROSS JOIN json_to_recordset(moved.hooks) AS hook(type text, data json)
    JOIN webhook_endpoints AS endpoint ON endpoint.owner = moved.owner AND endpoint.enabled
        AND endpoint.event_types::jsonb ? hook.type
    WHERE moved.hooks IS NOT NULL
    RETURNING 1
), rated AS (
    INSERT INTO rating_queue (game_id, round, preset, players, result, created_at)
    SELECT moved.game_id, ended.round, ended.preset, ended.players, ended.result, now()
    FROM moved, json_to_recordset(moved.rate_rounds)
        AS ended(round integer, preset text, players json, result json)
    WHERE moved.rate_rounds IS NOT NULL
    RETURNING 1
)
SELECT game_id FROM (SELECT game_id, pg_notify('{CHANNEL}', notice) FROM moved) AS announced
UNION ALL
SELECT NULL FROM (SELECT pg_notify('{OUTBOX_CHANNEL}', '')
                  FROM (SELECT 1 FROM queued UNION ALL SELECT 1 FROM hooked
                        UNION ALL SELECT 1 FROM rated LIMIT 1) AS one
                  ) AS woken
"""


BATCHED = Histogram("president_move_batch_moves", "Moves written per statement (PostgreSQL)",
                    buckets=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32))


def delay_ms(message: TurnMessage | None) -> int | None:
    """How long after the move ``message`` is due, as stored (None: no message)."""
    return None if message is None else round(message.delay_s * 1000)


class Move(NamedTuple):
    """What one move writes (``GameRepository.save_actions``)."""

    game_id: str
    read_version: int  # the write happens only if the game is still here
    seated: int  # and its seats are still those read
    version: int
    status: str
    events: int  # the game's event count after the move
    snapshot: dict[str, Any]
    to_act: int
    deadline_ms: int | None  # a human's time to act, from the move (the database's clock)
    now: datetime  # (where the database is SQLite: this machine's clock)
    actions: list[dict[str, Any]]  # seq, round, seat, action
    new_events: list[dict[str, Any]]  # seq, round, payload
    key: tuple[int, str, str] | None  # Idempotency-Key: (seat, key, action text)
    message: TurnMessage | None  # the next turn's, for the outbox
    owner: str | None  # the game's: its webhook endpoints get ``hooks``
    hooks: Sequence[Hook]
    # the rounds it ended, of a rated game, to be rated: round, preset, players, result
    rate_rounds: Sequence[dict[str, Any]] = ()

    def row(self) -> dict[str, Any]:
        """The move as one record of ``MOVES``' input."""
        seat, key, action = self.key or (None, None, None)
        notice = Notice(self.game_id, self.read_version, self.version, self.events,
                        tuple(a["action"] for a in self.actions))
        fields = self._asdict()
        del fields["message"], fields["now"]
        message = self.message
        return {**fields, "notice": notice.payload(), "key_seat": seat, "key": key,
                "key_action": action,
                "message_seat": None if message is None else message.seat,
                "message_engine": None if message is None else message.engine,
                "message_delay_ms": delay_ms(message),
                "message_trace": None if message is None else message.trace,
                "hooks": [{"type": h.type, "data": h.data} for h in self.hooks] or None,
                "rate_rounds": list(self.rate_rounds) or None}


def moves_in_one_statement(cursor: DBAPICursor, moves: list[Move]) -> set[str]:
    """Write ``moves`` (one per game at most) with a cursor on an autocommit connection;
    the ids of the games moved (the others had moved on).

    ``LIMIT %(count)s`` (the count itself) is for the planner, which otherwise guesses
    100 rows from ``json_to_recordset`` and, on a table of a few hundred games, reads
    the whole table for every statement, dead row versions included, where looking each
    game up by its key is a fraction of the cost.

    The rows go in game id order. With the plan that walks the input and looks each game
    up by its key, that is the order the update locks them in, so two processes' batches
    that share games lock them in the same order and do not deadlock. (Were they to,
    PostgreSQL would refuse one statement, whose moves would then be written again one
    at a time: ``ONE_MOVE_MAY_BE_AT_FAULT``.)"""
    BATCHED.observe(len(moves))
    rows = [move.row() for move in sorted(moves, key=lambda move: move.game_id)]
    with tracing.span("president.moves", **{"db.system": "postgresql",
                                            "db.operation": "moves", "president.moves":
                                            str(len(rows))}):
        cursor.execute(MOVES, {"moves": dumps(rows), "count": len(rows)})
    return {game_id for (game_id,) in cursor.fetchall()}


# What the database says of a statement that another could pass: retry one move at a time.
ONE_MOVE_MAY_BE_AT_FAULT = (psycopg.IntegrityError, psycopg.DataError,
                            psycopg.errors.TransactionRollback)

# The last log entry of each move asked about, as the log has it: after a lost connection,
# whether the statement sent before committed.
LOGGED = """
SELECT actions.game_id, actions.action
FROM json_to_recordset(%(asked)s::json) AS asked(game_id text, seq integer)
JOIN actions ON actions.game_id = asked.game_id AND actions.seq = asked.seq
"""


def committed_before(cursor: DBAPICursor, moves: list[Move]) -> set[str]:
    """The games of ``moves`` whose move is in the log already: written by a statement
    whose answer the lost connection took with it. (Only the seat to act writes a game's
    next entry, so the same action at the same place is that move.)"""
    if not moves:
        return set()
    cursor.execute(LOGGED, {"asked": dumps([{"game_id": m.game_id, "seq": m.version}
                                            for m in moves])})
    logged = dict(cursor.fetchall())
    return {m.game_id for m in moves
            if m.actions and logged.get(m.game_id) == m.actions[-1]["action"]}


class _Waiter:
    """A move waiting in ``MoveBatches``, and what became of it."""

    __slots__ = ("move", "wake", "leads", "moved", "error")

    def __init__(self, move: Move) -> None:
        self.move = move
        # Held while the move waits; the writer releases it. (A bare lock: an Event
        # builds a Condition and more for each move.)
        self.wake: threading.Lock | None = None
        self.leads = False  # woken to write the next batch, not with its own outcome
        self.moved: bool | None = None
        self.error: BaseException | None = None

    def hold(self) -> None:
        self.wake = threading.Lock()
        self.wake.acquire()

    def wait(self) -> None:
        assert self.wake is not None
        self.wake.acquire()

    def settle(self) -> None:
        if self.wake is not None and self.wake.locked():
            self.wake.release()


class MoveBatches:
    """Group commit: a request that finds no batch being written writes its move at once;
    moves that arrive meanwhile wait, and the first of them then writes them all in one
    statement (at most ``AT_MOST``, one per game: a second move of a game waits for the
    next batch, where the version check refuses it unless the first failed).

    A batch whose statement the database refuses for what it holds (a constraint, a bad
    value, a deadlock) is written again one move at a time, so that a move that cannot be
    written fails alone. A transient error (``store.transient``: a lost connection, a
    deadlock of a single move) is retried with backoff on another connection; after a
    lost connection the statement may have committed, so a move the retry finds already
    in the log counts as written, not as stale. Past the retries each caller gets
    ``Unavailable``."""

    AT_MOST = 32

    def __init__(self, cursor: Callable[[], AbstractContextManager[DBAPICursor]]) -> None:
        self._cursor = cursor
        self._lock = threading.Lock()
        self._queue: list[_Waiter] = []
        self._writing = False

    @property
    def queued(self) -> int:
        """Moves waiting for the batch being written."""
        return len(self._queue)

    def write(self, move: Move) -> bool:
        """Write ``move``; False when its game had moved on from ``move.read_version``."""
        mine = _Waiter(move)
        with self._lock:
            self._queue.append(mine)
            leads, self._writing = not self._writing, True
            if not leads:
                mine.hold()
        if not leads:
            mine.wait()
            if not mine.leads:
                return _outcome(mine)
        self._write_next_batch()
        return _outcome(mine)

    def _write_next_batch(self) -> None:
        """Write the batch at the head of the queue (the caller's move is in it), then
        hand the writing over to the first move left waiting, if any."""
        time.sleep(0)  # let the process's other request threads queue theirs first
        with self._lock:
            batch = self._take_batch()
        try:
            self._write(batch)
        finally:
            with self._lock:
                if self._queue:
                    self._queue[0].leads = True
                    self._queue[0].settle()
                else:
                    self._writing = False
            for waiter in batch:
                if waiter.moved is None and waiter.error is None:  # (interrupted)
                    waiter.error = RuntimeError("the batch of moves was not written")
                waiter.settle()

    def _take_batch(self) -> list[_Waiter]:
        batch: list[_Waiter] = []
        left: list[_Waiter] = []
        games: set[str] = set()
        for waiter in self._queue:
            if len(batch) < self.AT_MOST and waiter.move.game_id not in games:
                games.add(waiter.move.game_id)
                batch.append(waiter)
            else:
                left.append(waiter)
        self._queue = left
        return batch

    def _write(self, batch: list[_Waiter], attempt: int = 0,
               maybe_committed: bool = False) -> None:
        moves = [w.move for w in batch]
        try:
            with self._cursor() as cursor:
                moved = moves_in_one_statement(cursor, moves)
                if maybe_committed:
                    moved |= committed_before(cursor, [m for m in moves
                                                       if m.game_id not in moved])
        except Exception as error:
            if len(batch) > 1 and isinstance(error, ONE_MOVE_MAY_BE_AT_FAULT):
                for waiter in batch:  # alone: only a move that cannot be written fails
                    self._write([waiter], attempt, maybe_committed)
                return
            if is_transient(error) and attempt + 1 < ATTEMPTS:
                pause(attempt)
                self._write(batch, attempt + 1, maybe_committed or is_disconnect(error))
                return
            failure = unavailable("a move", error) if is_transient(error) else error
            for waiter in batch:
                waiter.error = failure
            return
        for waiter in batch:
            waiter.moved = waiter.move.game_id in moved


def _outcome(waiter: _Waiter) -> bool:
    if waiter.error is not None:
        raise waiter.error
    assert waiter.moved is not None
    return waiter.moved
