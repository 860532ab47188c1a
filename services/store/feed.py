"""The change feed: each move on PostgreSQL announces itself at commit (``NOTIFY``, in the
move's own statement), and each process listens, so a read can trust the state it holds
without asking the database, and bring it up to date from the notice's actions. Whenever
the feed cannot vouch for a state (not connected yet, reconnecting, a notice missed), the
read goes to the database; moves never rely on it (each write checks its version).
SQLite has no notifications: there every read asks the database. Why and what it costs:
docs/storage.md."""

from __future__ import annotations

import itertools
import logging
import os
import select
import threading
import time
import weakref
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NamedTuple, Protocol

from prometheus_client import Counter, Gauge

from services.jsoncodec import dumps, loads

CHANNEL = "president_moves"
NOTICE_BYTES_AT_MOST = 7000  # PostgreSQL's limit is 8000 bytes; the actions go beyond it
REMEMBER_AT_MOST = 100_000  # games whose newest version is kept; then all is forgotten
FOLLOW_TIMEOUT_S = 1.0  # the feed's thread checks for a stop at least this often
GATHER_S = 0.02  # the thread lets notices gather this long: a busy process wakes it less
DRAIN_READS_AT_MOST = 100  # socket reads per drain: notices keep coming under load
RECONNECT_AFTER_S = 0.5

log = logging.getLogger(__name__)
NOTICES = Counter("president_change_feed_notices_total", "Moves announced to this process")
LISTENING = Gauge("president_change_feed_listening",
                  "Change feeds connected (one per process that reads from memory)",
                  multiprocess_mode="livesum")


class Notice(NamedTuple):
    """A move, as announced: the game went from version ``after`` to ``version``; or,
    with ``after == version`` and no actions, a change of its seats (code before seat
    changes reads it as a move of no action, which changes nothing it holds)."""

    game_id: str
    after: int
    version: int
    events: int  # the game's event count at ``version``
    actions: tuple[str, ...] | None  # None when too long to announce

    def payload(self) -> str:
        text = dumps([self.game_id, self.after, self.version, self.events, self.actions])
        if len(text.encode()) <= NOTICE_BYTES_AT_MOST or self.actions is None:
            return text  # (without actions: a game id and three numbers)
        return self._replace(actions=None).payload()

    @classmethod
    def from_payload(cls, payload: str) -> Notice:
        game_id, after, version, events, actions = loads(payload)
        return cls(game_id, after, version, events, None if actions is None else tuple(actions))


    @property
    def reseated(self) -> bool:
        return self.after == self.version


class _Vouching(NamedTuple):
    """What the feed vouches for, swapped as a whole so that a reader needs no lock."""

    live: bool
    trusted_from: int  # a state seen before this mark may have missed a notice
    newest: dict[str, int]  # the newest version announced of each game, since trusted_from


Listener = Callable[[Notice, int], None]  # (notice, mark after it)


class Listening(Protocol):
    """A connection that listens on ``CHANNEL`` (``PsycopgListening``; tests script one)."""

    def drain(self) -> list[str]:
        """The payloads of the notices arrived so far, without waiting; raises when the
        connection is broken."""

    def wait_readable(self, timeout_s: float) -> None:
        """Return when something arrives, or after ``timeout_s``."""

    def close(self) -> None: ...


class PsycopgListening:
    """``Listening`` on a psycopg connection in autocommit mode, through libpq: a drain
    is one non-blocking read of the socket. A connection the server drops, or that TCP
    keepalives find dead, fails the next drain."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._got: list[str] = []
        connection.add_notify_handler(lambda notify: self._got.append(notify.payload))
        connection.execute(f"LISTEN {CHANNEL}")
        # A transaction-mode pooler would take LISTEN and never deliver a notice: refuse a
        # session that does not say it listens (the feed then stays down, reads ask the
        # database, and the log says why).
        listening = connection.execute("SELECT pg_listening_channels()").fetchall()
        if (CHANNEL,) not in listening:
            connection.close()
            raise RuntimeError(f"LISTEN {CHANNEL} did not hold: is a transaction-mode "
                               "pooler in the way? (PRESIDENT_CHANGE_FEED_URL)")

    def drain(self) -> list[str]:
        """Read the socket until it has nothing more (PostgreSQL sends a backlog as the
        socket makes room for it)."""
        pgconn = self._connection.pgconn
        for _ in range(DRAIN_READS_AT_MOST):
            pgconn.consume_input()
            before = len(self._got)
            while (notify := pgconn.notifies()) is not None:
                pgconn.notify_handler(notify)  # psycopg's: decodes, then calls ours
            if len(self._got) == before:
                break
        got, self._got = self._got, []
        return got

    def wait_readable(self, timeout_s: float) -> None:
        select.select([self._connection.pgconn.socket], [], [], timeout_s)

    def close(self) -> None:
        self._connection.close()


_MARKS = itertools.count(1)  # one sequence for every feed of the process: marks compare


class ChangeFeed:
    """One process's listener on ``CHANNEL``, on a connection of its own (``connect``
    makes a ``Listening``). It starts with the first ``mark`` in each process (a forked
    child starts its own).

    A thread of the feed's own connects, reconnects, and takes each notice in as it comes
    (``_follow``). The requests take in the notices arrived so far too (``take_in``)
    before they ask whether a state is fresh: one non-blocking read of the socket, so a
    notice that reached the process before the request did counts even when the thread
    has not run yet."""

    def __init__(self, connect: Callable[[], Listening]) -> None:
        self._connect = connect
        self._lock = threading.Lock()  # the feed's state
        self._draining = threading.Lock()  # the connection, and notices in order
        self._listening: Listening | None = None
        self._started = False
        self._stopped = threading.Event()
        self._seq = 0  # the mark: notices taken in, reconnections, forgettings
        self._vouching = _Vouching(False, 1, {})
        self._listeners: list[weakref.WeakMethod[Listener]] = []
        self._waiting: dict[str, list[threading.Event]] = {}

    # --- what reads and writes ask ------------------------------------------------------

    def mark(self, take_in: bool = True) -> int:
        """Take this before reading or writing a game; ``fresh`` needs it.

        ``take_in=False``: the mark as it stands, without taking in the notices arrived
        (enough before a write: a notice still unread of a newer move of the game means
        the write's version check fails; a break of the feed moves the mark on)."""
        if not self._started:
            self._start()
        if take_in:
            self.take_in()
        return self._seq

    def fresh(self, game_id: str, version: int, seen_at: int) -> bool:
        """Is ``version`` of the game, read or written after ``mark()`` gave ``seen_at``,
        still its newest, as far as the notices taken in (``take_in``) say? Only when the
        feed has listened without a break since then."""
        live, trusted_from, newest = self._vouching
        return live and seen_at >= trusted_from and version >= newest.get(game_id, -1)

    @property
    def live(self) -> bool:
        return self._vouching.live

    def on_notice_once(self, listener: Listener) -> None:
        """Call ``listener``, a bound method, for every notice, from now on (once, however
        often it is asked), in the order of the notices, for as long as its object lives
        (the feed is the process's; a read side made and dropped is not kept by it)."""
        ref = weakref.WeakMethod(listener)
        with self._lock:
            self._listeners = [r for r in self._listeners if r() is not None]
            if ref not in self._listeners:
                self._listeners.append(ref)

    @contextmanager
    def watch(self, game_id: str) -> Iterator[threading.Event]:
        """An event set by the game's next notice: watch before reading, and a move made
        between the read and the wait still wakes the waiter."""
        moved = threading.Event()
        with self._lock:
            self._waiting.setdefault(game_id, []).append(moved)
        try:
            yield moved
        finally:
            with self._lock:
                waiters = self._waiting.get(game_id, [])
                if moved in waiters:
                    waiters.remove(moved)
                if not waiters:
                    self._waiting.pop(game_id, None)

    def stop(self) -> None:
        self._stopped.set()
        with self._lock:
            self._vouching = self._vouching._replace(live=False)

    # --- taking notices in --------------------------------------------------------------

    def take_in(self) -> None:
        """Take in the notices arrived so far, one drain at a time: in order, and a
        request that finds another draining waits for it, since it may be taking in a
        notice that request needs."""
        if self._listening is None:
            return
        with self._draining:
            listening = self._listening
            if listening is None:
                return
            try:
                payloads = listening.drain()
            except Exception as error:  # noqa: BLE001 (whatever broke, reads fall back)
                self._broke(listening, error)
                return
            for payload in payloads:
                try:
                    notice = Notice.from_payload(payload)
                except (ValueError, TypeError) as error:  # (e.g. a NOTIFY by hand)
                    log.warning("change feed: unreadable notice %.200r (%s): every state "
                                "held is read again", payload, error)
                    self._distrust_all()
                else:
                    self._received(notice)

    def _received(self, notice: Notice) -> None:
        with self._lock:
            if len(self._vouching.newest) >= REMEMBER_AT_MOST:
                self._forget_all()
            newest = self._vouching.newest
            if newest.get(notice.game_id, -1) < notice.version:
                newest[notice.game_id] = notice.version
            self._seq = mark = next(_MARKS)
            waiters = self._waiting.pop(notice.game_id, [])
        NOTICES.inc()
        for moved in waiters:
            moved.set()
        for ref in self._listeners:
            listener = ref()
            if listener is None:
                continue
            try:
                listener(notice, mark)
            except Exception:  # noqa: BLE001 (the state it concerns is just not updated)
                log.exception("change feed: a listener failed on %s", notice)

    def _distrust_all(self) -> None:
        with self._lock:
            self._forget_all()

    def _forget_all(self) -> None:
        """(With ``_lock`` held.) Vouch for no state seen so far: the feed may have missed
        a notice about it, or no longer remembers one."""
        self._seq = next(_MARKS)
        self._vouching = _Vouching(self._vouching.live, self._seq, {})

    # --- the feed's own thread ----------------------------------------------------------

    def _start(self) -> None:
        with self._lock:
            if self._started:
                return
            thread = threading.Thread(target=self._run, name="president-change-feed",
                                      daemon=True)
            thread.start()
            self._started = True

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                listening = self._connect()
            except Exception as error:  # noqa: BLE001
                log.warning("change feed: %s; reads ask the database until it is back", error)
            else:
                self._came_up(listening)
                try:
                    self._follow(listening)
                except Exception as error:  # noqa: BLE001 (e.g. the socket went away)
                    with self._draining:
                        self._broke(listening, error)
                finally:
                    with self._draining:
                        if self._listening is listening:  # (stopped while up)
                            self._broke(listening, RuntimeError("stopped"))
                        listening.close()
            self._stopped.wait(RECONNECT_AFTER_S)

    def _follow(self, listening: Listening) -> None:
        """Take the notices in as they come, up to GATHER_S' worth at a time. Left to
        the requests alone, a process that reads little (its moves need no read) let
        notices pile up in PostgreSQL, which sends them only as fast as they are read:
        its reads then vouched for states seconds old. Kept drained, the socket holds
        every notice sent, and a read takes them all in itself."""
        while not self._stopped.is_set() and self._listening is listening:
            listening.wait_readable(FOLLOW_TIMEOUT_S)
            if not self._waiting:  # (a long poll wakes at once; a read drains for itself)
                time.sleep(GATHER_S)
            self.take_in()

    def _came_up(self, listening: Listening) -> None:
        with self._draining, self._lock:  # every state seen so far may have missed a notice
            self._listening = listening
            self._seq = next(_MARKS)
            self._vouching = _Vouching(True, self._seq, {})
        LISTENING.inc()

    def _broke(self, listening: Listening, error: Exception) -> None:
        """(With ``_draining`` held.)"""
        with self._lock:
            if self._listening is not listening:
                return
            self._listening = None
            self._vouching = self._vouching._replace(live=False)
        log.warning("change feed: %s; reads ask the database until it is back", error)
        LISTENING.dec()

    def _forked(self) -> None:
        """In a child process: no listener runs here, and none of the parent's states
        can be vouched for; the next ``mark`` starts a listener of the child's own."""
        self._lock, self._draining = threading.Lock(), threading.Lock()
        self._stopped = threading.Event()
        self._listening = None
        self._started = False
        self._seq = next(_MARKS)
        self._vouching = _Vouching(False, self._seq, {})
        self._waiting = {}


_FEEDS: dict[str, ChangeFeed] = {}
_FEEDS_LOCK = threading.Lock()


def _forked() -> None:
    global _FEEDS_LOCK
    _FEEDS_LOCK = threading.Lock()
    LISTENING.set(0)
    for feed in _FEEDS.values():
        feed._forked()


os.register_at_fork(after_in_child=_forked)


def feed_for(key: str, connect: Callable[[], Listening]) -> ChangeFeed:
    """The process's feed for a database (``key``: its URL), made on first use."""
    with _FEEDS_LOCK:
        if key not in _FEEDS:
            _FEEDS[key] = ChangeFeed(connect)
        return _FEEDS[key]


def wait_until_live(feed: ChangeFeed, timeout_s: float = 10.0) -> bool:
    """For tests and probes: start the feed and wait for its listener to be connected."""
    feed.mark()
    deadline = time.monotonic() + timeout_s
    while not feed.live and time.monotonic() < deadline:
        time.sleep(0.005)
    return feed.live
