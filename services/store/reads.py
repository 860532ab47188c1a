"""The read side (cosmicpython, chapter 12: views in plain SQL beside the ORM's write
model): a game and its events as a request needs them, run on the DBAPI connection
itself.

A game is read on every request. Through a Session, the same statement costs about
three times what it costs here (connection wrapper, execution context, events, result
rows: about 300 µs against 100 µs on PostgreSQL), and a read needs no transaction: each
statement sees committed data, and the version it returns says which.

The statements are SQLAlchemy Core, compiled once per dialect, so the SQL is written once
for SQLite and PostgreSQL alike; rows come back as the driver gives them, which is why
only integer, text and JSON columns are read here.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NamedTuple

from prometheus_client import Counter
from sqlalchemy import URL, Engine, Select, and_, bindparam, make_url, select
from sqlalchemy.engine.interfaces import DBAPICursor, Dialect

from engine import apply, apply_unchecked, parse_action
from engine.events import Event
from engine.snapshot import event_from_dict, state_from_dict
from engine.state import LogEntry, State
from services.domain import Game, PlayedFor, Seat
from services.jsoncodec import loads
from services.store.feed import ChangeFeed, Notice, PsycopgListening, feed_for
from services.store.models import ActionRow, EventRow, GameRow, IdempotencyRow, SeatRow
from services.versioned import VersionedCache
from services.store.moves import MoveBatches


class Query:
    """A Core statement, compiled once per dialect and run on a DBAPI connection."""

    def __init__(self, statement: Select[*tuple[Any, ...]]) -> None:  # any columns
        self.statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def rows(self, cursor: DBAPICursor, dialect: Dialect, **values: Any) -> list[Any]:
        compiled = self._compiled.get(dialect.name) or self._compile(dialect)
        cursor.execute(compiled.sql, compiled.params(values))
        return list(cursor.fetchall())

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled = self.statement.compile(dialect=dialect)
        order = tuple(compiled.positiontup or ()) if compiled.positional else None
        self._compiled[dialect.name] = _Compiled(compiled.string, order, compiled.params)
        return self._compiled[dialect.name]


class _Compiled(NamedTuple):
    sql: str
    order: tuple[str, ...] | None  # the parameters' order, for a positional paramstyle
    defaults: dict[str, Any]  # e.g. SQLite's OFFSET 0 after a LIMIT

    def params(self, values: dict[str, Any]) -> Any:
        values = {**self.defaults, **values}
        return values if self.order is None else tuple(values[name] for name in self.order)


GAME_AND_SEATS = Query(
    select(GameRow.preset, GameRow.version, GameRow.events, GameRow.pace_ms,
           GameRow.turn_timeout_ms, SeatRow.seat, SeatRow.kind, SeatRow.engine,
           SeatRow.token_hash)
    .join(SeatRow, SeatRow.game_id == GameRow.id)
    .where(GameRow.id == bindparam("game_id")).order_by(SeatRow.seat))
ACTIONS_BETWEEN = Query(
    select(ActionRow.action)
    .where(ActionRow.game_id == bindparam("game_id"), ActionRow.seq > bindparam("after"),
           ActionRow.seq <= bindparam("upto")).order_by(ActionRow.seq))
LOG_UP_TO = Query(  # the action log up to a version (a writer may have moved on since)
    select(ActionRow.round, ActionRow.seat, ActionRow.action)
    .where(ActionRow.game_id == bindparam("game_id"), ActionRow.seq <= bindparam("version"))
    .order_by(ActionRow.seq))
NOTHING = 2**31 - 1  # a version no game reaches: no actions to catch up with
CATCH_UP = Query(  # the version, and the actions after the one known (at most ``limit``)
    select(GameRow.version, GameRow.events, ActionRow.action)
    .outerjoin(ActionRow, and_(ActionRow.game_id == GameRow.id,
                               ActionRow.seq > bindparam("known")))
    .where(GameRow.id == bindparam("game_id")).order_by(ActionRow.seq)
    .limit(bindparam("limit")))
SNAPSHOT = Query(select(GameRow.version, GameRow.events, GameRow.snapshot, GameRow.rules)
                 .where(GameRow.id == bindparam("game_id")))
EVENTS_AFTER = Query(
    select(EventRow.seq, EventRow.version, EventRow.payload)
    .where(EventRow.game_id == bindparam("game_id"), EventRow.seq > bindparam("after"))
    .order_by(EventRow.seq).limit(bindparam("limit")))
REMEMBERED = Query(
    select(IdempotencyRow.action, IdempotencyRow.version)
    .where(IdempotencyRow.game_id == bindparam("game_id"),
           IdempotencyRow.seat == bindparam("seat"), IdempotencyRow.key == bindparam("key")))


# --- what a process keeps between requests -------------------------------------------

class Known(NamedTuple):
    version: int
    events: int  # the game's event count at that version
    state: State
    seen_at: int = -1  # the change feed's mark taken before it was read or written


# The newest state this process has seen of each game: a read brings it up to date by
# replaying the few actions since (another process may have played them), much cheaper
# than decoding the stored snapshot, which is read only when the gap is wide.
STATES: VersionedCache[str, Known] = VersionedCache(4096)
GAME_READS = Counter("president_game_reads_total",
                     "Games read, by where their state came from (memory: the change feed "
                     "vouched for the state this process held)", ["source"])
_FROM_MEMORY, _FROM_DATABASE = GAME_READS.labels("memory"), GAME_READS.labels("database")
REPLAY_AT_MOST = 32
POLL_S = 0.1  # how often a waiting request looks for new events without the change feed


def remember_state(game_id: str, known: Known) -> None:
    """Keep ``known`` unless this process knows a newer state of the game already (or the
    same one, seen later: the feed vouches for the one seen last)."""
    STATES.put_if(game_id, known, _older)


def _older(held: Known, new: Known) -> bool:
    return (held.version, held.seen_at) < (new.version, new.seen_at)


def bring_up_to_date(notice: Notice, mark: int) -> None:
    """A move announced by the change feed (whichever process made it): a state held
    here at the version it starts from moves on with it, no database read needed. (The
    actions were checked by the process that wrote them, before the write: committed,
    they are the log itself, so they are applied without checking again.)"""
    known = STATES.get(notice.game_id)
    if known is None or known.version != notice.after or notice.actions is None:
        return
    state = known.state
    for action in notice.actions:
        state = apply_unchecked(state, parse_action(action))
    remember_state(notice.game_id, Known(notice.version, notice.events, state, mark))


class Seating(NamedTuple):
    """What a game is created with and keeps: its preset, seats and pace."""

    preset: str
    seats: tuple[Seat, ...]
    pace_ms: int
    turn_timeout_ms: int | None


SEATINGS: VersionedCache[str, Seating] = VersionedCache(8192)


def known_game(game_id: str, version: int) -> Game | None:
    """The game as this process last saw it, if that was at ``version``: no database
    read, and no promise that the game is still there (``act`` writes on it only on
    condition that it is)."""
    seating, known = SEATINGS.get(game_id), STATES.get(game_id)
    if seating is None or known is None or known.version != version:
        return None
    return _game(game_id, seating, known)


def _game(game_id: str, seating: Seating, known: Known) -> Game:
    return Game(game_id, seating.preset, seating.seats, known.state, known.version,
                known.events, seating.pace_ms, seating.turn_timeout_ms)


# --- reading ---------------------------------------------------------------------------

Run = Callable[..., list[Any]]  # run(query, **values) -> rows


def polling(at_most_s: float) -> None:
    """A wait for a move, for readers without the change feed."""
    time.sleep(max(0.0, min(at_most_s, POLL_S)))


def json_value(value: Any) -> Any:
    """psycopg decodes JSON columns itself; sqlite3 hands back their text."""
    return loads(value) if isinstance(value, (str, bytes)) else value


def decode_event(payload: dict[str, Any]) -> Event | PlayedFor:
    if payload.get("type") == PlayedFor.TYPE:
        return PlayedFor.from_dict(payload)
    return event_from_dict(payload)


def load_game(run: Run, game_id: str, feed: ChangeFeed | None = None,
              at_least: int = 0) -> Game | None:
    """The game with its state. No query when the change ``feed`` vouches for the newest
    state known here, and it is at version ``at_least`` at least (a move another process
    has just made and said so, in a request or a task, may not be announced here yet);
    otherwise usually one small query: the seating never changes, and the newest state
    known here is brought up to date with the actions since (read in the same query);
    the stored snapshot is read when no state is known or the gap is wide."""
    # The mark first: it takes in the notices arrived so far (one may bring the state held
    # up to date), and it is taken before any database read, as ``seen_at`` must be.
    seen_at = -1 if feed is None else feed.mark()
    seating, known = SEATINGS.get(game_id), STATES.get(game_id)
    if (feed is not None and seating is not None and known is not None
            and known.version >= at_least and feed.fresh(game_id, known.version, known.seen_at)):
        _FROM_MEMORY.inc()
        return _game(game_id, seating, known)
    _FROM_DATABASE.inc()
    if seating is None:
        rows = run(GAME_AND_SEATS, game_id=game_id)
        if not rows:
            return None
        preset, version, events, pace_ms, turn_timeout_ms = rows[0][:5]
        seating = Seating(preset, tuple(Seat(seat, kind, engine, token_hash)
                                        for *_, seat, kind, engine, token_hash in rows),
                          pace_ms, turn_timeout_ms)
        SEATINGS.put(game_id, seating)
        since = [] if known is None else [a for (a,) in run(
            ACTIONS_BETWEEN, game_id=game_id, after=known.version, upto=version)]
    else:
        rows = run(CATCH_UP, game_id=game_id,
                   known=NOTHING if known is None else known.version, limit=REPLAY_AT_MOST + 1)
        if not rows:
            return None
        version, events = rows[0][:2]
        since = [action for *_, action in rows if action is not None]
    state = _brought_up_to(known, version, since)
    if state is not None:
        now = Known(version, events, state, seen_at)
    else:  # read with its own version: a writer may have moved on since
        stored = load_stored(run, game_id)
        if stored is None:
            return None
        now = stored._replace(seen_at=seen_at)
    remember_state(game_id, now)
    return _game(game_id, seating, now)


def load_stored(run: Run, game_id: str) -> Known | None:
    """The game's stored snapshot, decoded, with its version: no cache involved."""
    rows = run(SNAPSHOT, game_id=game_id)
    if not rows:
        return None
    version, events, snapshot, rules = rows[0]
    return Known(version, events,
                 _decoded(run, game_id, version, json_value(snapshot), json_value(rules)))


def _decoded(run: Run, game_id: str, version: int, snapshot: dict[str, Any],
             rules: dict[str, Any]) -> State:
    """The stored snapshot (at ``version``) as a state. What it leaves out
    (``GameRepository`` writes it so) comes from elsewhere: the action logs from the
    action log, the rules from the game's row, written once."""
    if "past_logs" in snapshot:  # written before they were left out
        return state_from_dict(snapshot)
    return state_from_dict(snapshot, (
        LogEntry(round_no, seat, parse_action(action)) for round_no, seat, action
        in run(LOG_UP_TO, game_id=game_id, version=version)), rules)


def _brought_up_to(known: Known | None, version: int, since: list[str]) -> State | None:
    """The known state with the actions ``since`` applied, if they take it exactly to
    ``version``."""
    if known is None or known.version + len(since) != version or len(since) > REPLAY_AT_MOST:
        return None
    state = known.state
    for action in since:
        state, _ = apply(state, parse_action(action))
    return state


def load_events(run: Run, game_id: str, after: int,
                limit: int) -> list[tuple[int, int, Event | PlayedFor]]:
    """(seq, version, event) of the game's events numbered above ``after``."""
    return [(seq, version, decode_event(json_value(payload))) for seq, version, payload
            in run(EVENTS_AFTER, game_id=game_id, after=after, limit=limit)]


_CURSOR = "president.cursor"  # where a pooled connection keeps its cursor (its ``info``)


class GameReads:
    """Reads, each on a connection of its own from ``engine``, whose connections are in
    autocommit mode (``make_engine(url, autocommit=True)``): a read then sends no BEGIN
    and no ROLLBACK. On PostgreSQL, reads follow the change feed (``feed.py``)."""

    def __init__(self, engine: Engine, listen_url: str | None = None) -> None:
        """``listen_url``: where the feed listens (default: ``engine``'s database; "off":
        nowhere, and every read asks the database)."""
        self.engine = engine
        self.feed = None
        # (moves go through the same pool: on PostgreSQL one statement, with no transaction)
        self.moves = MoveBatches(self.cursor) if engine.dialect.name == "postgresql" else None
        if engine.dialect.name == "postgresql" and listen_url != "off":
            self.feed = _feed(engine, make_url(listen_url) if listen_url else engine.url)

    def mark(self) -> int:
        """The feed's mark, to take before writing a game (``Known.seen_at``), without
        taking notices in: a write needs none (``ChangeFeed.mark``)."""
        return -1 if self.feed is None else self.feed.mark(take_in=False)

    @contextmanager
    def cursor(self) -> Iterator[DBAPICursor]:
        """A cursor on a connection from the pool. Each pooled connection keeps its own
        (making one costs psycopg about as much as running a small query), and a new
        connection starts with an empty ``info``."""
        connection = self.engine.raw_connection()
        try:
            cursor = connection.info.get(_CURSOR)
            if cursor is None:
                cursor = connection.info[_CURSOR] = connection.cursor()
            yield cursor
        finally:
            connection.close()

    def _run(self, query: Query, **values: Any) -> list[Any]:
        with self.cursor() as cursor:
            return query.rows(cursor, self.engine.dialect, **values)

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        """The game; ``at_least``: a version the caller knows it has reached (the one a
        request or a task was made against), so an older state is not taken as newest."""
        return load_game(self._run, game_id, self.feed, at_least)

    def events_after(self, game_id: str, after: int,
                     limit: int) -> list[tuple[int, int, Event | PlayedFor]]:
        return load_events(self._run, game_id, after, limit)

    @contextmanager
    def watching(self, game_id: str) -> Iterator[Callable[[float], None]]:
        """``wait(at_most_s)`` for the game's next move, registered before the caller
        reads, so that a move made in between still wakes it: on the move's notice
        (re-reading every second at most, in case the feed went down meanwhile); without a
        live feed, after ``POLL_S``, since any process may have added events."""
        if self.feed is None or not self.feed.live:
            yield polling
            return
        with self.feed.watch(game_id) as moved:
            def wait(at_most_s: float) -> None:
                moved.wait(max(0.0, min(at_most_s, 1.0)))

            yield wait

    def stored_state(self, game_id: str) -> Known | None:
        return load_stored(self._run, game_id)

    def remembered(self, game_id: str, seat: int, key: str) -> tuple[str, int] | None:
        """(action text, resulting version) of an earlier action sent with ``key``."""
        rows = self._run(REMEMBERED, game_id=game_id, seat=seat, key=key)
        return (rows[0][0], rows[0][1]) if rows else None


def _feed(engine: Engine, url: URL) -> ChangeFeed:
    """The process's change feed for ``engine``'s database, listening at ``url`` on a
    connection of its own (TCP keepalives and a user timeout: a silent network failure
    breaks the connection within seconds, and the feed with it)."""
    def connect() -> PsycopgListening:
        cargs, cparams = engine.dialect.create_connect_args(url)
        connection = engine.dialect.loaded_dbapi.connect(
            *cargs, **{**cparams, "keepalives": 1, "keepalives_idle": 5,
                       "keepalives_interval": 1, "keepalives_count": 3, "connect_timeout": 5,
                       "tcp_user_timeout": 10_000})
        connection.autocommit = True
        return PsycopgListening(connection)

    feed = feed_for(url.render_as_string(hide_password=False), connect)
    feed.on_notice_once(bring_up_to_date)
    return feed
