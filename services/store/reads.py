"""The read side (cosmicpython, chapter 12: views in plain SQL beside the ORM's write
model): a game and its events as a request needs them, on autocommit DBAPI connections
(a read needs no transaction: the version it returns says what it saw). The SQL is in
``queries``, what the process keeps between requests in ``states``."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from prometheus_client import Counter
from sqlalchemy import URL, Engine, make_url
from sqlalchemy.engine.interfaces import DBAPICursor

from engine.events import Event
from engine.snapshot import event_from_dict
from services.domain import Game, Seat, ServiceEvent, service_event, table_of
from services.ports import StoredEvent
from services.store.db import dedicated_connection
from services.store.feed import ChangeFeed, PsycopgListening, feed_for
from services.store.queries import (
    ACTIONS_BETWEEN, CATCH_UP, EVENTS_AFTER, GAME_AND_SEATS, NOTHING, REMEMBERED, ROUND_EVENTS,
    Query, Run,
)
from services.store.snapshots import json_value, load_stored
from services.store.states import GameStates, Known, Seating, game_of
from services.store.transient import is_disconnect, retried

GAME_READS = Counter("president_game_reads_total",
                     "Games read, by where their state came from (memory: the change feed "
                     "vouched for the state this process held)", ["source"])
_FROM_MEMORY, _FROM_DATABASE = GAME_READS.labels("memory"), GAME_READS.labels("database")
POLL_S = 0.1  # how often a waiting request looks for new events without the change feed


def polling(at_most_s: float) -> None:
    """A wait for a move, for readers without the change feed."""
    time.sleep(max(0.0, min(at_most_s, POLL_S)))


def decode_event(payload: dict[str, Any]) -> Event | ServiceEvent:
    return service_event(payload) or event_from_dict(payload)


def load_game(run: Run, states: GameStates, game_id: str, feed: ChangeFeed | None = None,
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
    seating, known = states.seating(game_id), states.state(game_id)
    if (feed is not None and seating is not None and known is not None
            and known.version >= at_least and feed.fresh(game_id, known.version, known.seen_at)):
        _FROM_MEMORY.inc()
        return game_of(game_id, seating, known)
    _FROM_DATABASE.inc()
    if seating is not None:
        rows = run(CATCH_UP, game_id=game_id,
                   known=NOTHING if known is None else known.version,
                   limit=states.replay_at_most + 1)
        if not rows:
            return None
        version, events, seated = rows[0][:3]
        since = [action for *_, action in rows if action is not None]
        if seated != seating.seated:  # its seats changed: read them again
            states.unseat(game_id)
            seating = None
    if seating is None:
        rows = run(GAME_AND_SEATS, game_id=game_id)
        if not rows:
            return None
        version, events = rows[0][1:3]
        seating = seating_of(rows)
        states.seat(game_id, seating, seen_at)
        since = [] if known is None else [a for (a,) in run(
            ACTIONS_BETWEEN, game_id=game_id, after=known.version, upto=version)]
    state = states.caught_up(known, version, since)
    if state is not None:
        now = Known(version, events, state, seen_at)
    else:  # read with its own version: a writer may have moved on since
        stored = load_stored(run, game_id)
        if stored is None:
            return None
        now = stored._replace(seen_at=seen_at)
    states.remember(game_id, now)
    return game_of(game_id, seating, now)


def seating_of(rows: list[Any]) -> Seating:
    """The seating from ``GAME_AND_SEATS``' rows (one per seat)."""
    (preset, _, _, pace_ms, turn_timeout_ms, owner, ai_seconds, seated, status, visibility,
     takeover, hints, seeded, max_active_games) = rows[0][:14]
    return Seating(
        preset=preset,
        seats=tuple(
            Seat(
                seat=seat,
                kind=kind,
                engine=engine,
                token_hash=token_hash,
                player=player,
                name=name,
                host=bool(host),
                player_key=player_key,
                connected=bool(connected),
            )
            for *_, seat, kind, engine, token_hash, player, name, host, player_key, connected
            in rows
        ),
        pace_ms=pace_ms,
        turn_timeout_ms=turn_timeout_ms,
        owner=owner,
        ai_seconds_per_hour=ai_seconds,
        seated=seated,
        table=table_of(status, visibility, takeover, owner, bool(hints), bool(seeded)),
        max_active_games=max_active_games,
    )


def load_events(run: Run, game_id: str, after: int, limit: int) -> list[StoredEvent]:
    """(seq, version, event) of the game's events numbered above ``after``."""
    return [(seq, version, decode_event(json_value(payload))) for seq, version, payload
            in run(EVENTS_AFTER, game_id=game_id, after=after, limit=limit)]


_CURSOR = "president.cursor"  # where a pooled connection keeps its cursor (its ``info``)


class GameReads:
    """Reads, each on a connection of its own from ``engine``, whose connections are in
    autocommit mode (``make_engine(url, autocommit=True)``): a read then sends no BEGIN
    and no ROLLBACK. On PostgreSQL, reads follow the change feed (``feed.py``)."""

    def __init__(self, engine: Engine, states: GameStates,
                 listen_url: str | None = None) -> None:
        """``states``: what this process keeps of the games it has seen; ``listen_url``:
        where the feed listens (default: ``engine``'s database; "off": nowhere, and every
        read asks the database)."""
        self.engine = engine
        self.states = states
        self.feed = None
        # where a listener connects (the outbox relay's lead too); None: "off"
        self.listen_url: URL | None = (None if listen_url == "off" else
                                       make_url(listen_url) if listen_url else engine.url)
        if engine.dialect.name == "postgresql" and self.listen_url is not None:
            self.feed = _feed(engine, self.listen_url)
            self.feed.on_notice_once(states.bring_up_to_date)

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
        except Exception as error:
            if is_disconnect(error):  # (a raw connection: the pool cannot tell by itself)
                connection.invalidate()
            raise
        finally:
            connection.close()

    def _run(self, query: Query, **values: Any) -> list[Any]:
        """A read, again on another connection after a transient error."""
        def attempt() -> list[Any]:
            with self.cursor() as cursor:
                return query.rows(cursor, self.engine.dialect, **values)

        return retried(attempt, "a read")

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        """The game; ``at_least``: a version the caller knows it has reached (the one a
        request or a task was made against), so an older state is not taken as newest."""
        return load_game(self._run, self.states, game_id, self.feed, at_least)

    def fresh(self, game_id: str) -> Game | None:
        """The game with its seats as stored now (those held here forgotten)."""
        self.states.unseat(game_id)
        return self.get(game_id)

    def events_after(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        return load_events(self._run, game_id, after, limit)

    def events_of_round(self, game_id: str, round_no: int) -> list[StoredEvent]:
        """The round's own events (none for a round not played, or written before the
        events said their round)."""
        return [(seq, version, decode_event(json_value(payload))) for seq, version, payload
                in self._run(ROUND_EVENTS, game_id=game_id, round=round_no)]

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
        return PsycopgListening(dedicated_connection(engine, url))

    return feed_for(url.render_as_string(hide_password=False), connect)
