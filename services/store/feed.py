"""The change feed: every move on PostgreSQL announces itself at commit (``NOTIFY``, in the
same statement as the move: ``moves.MOVE``), and each process listens.

A process keeps the newest state it has seen of each game (``reads.STATES``). Without the
feed it must ask the database, on every read, whether that state is still the newest:
one round trip, which on a small machine costs a request as much CPU as everything else
it does. With the feed it knows: PostgreSQL sends a move's notice to every listener when
the move commits, in commit order, so a state no notice has overtaken is the newest, and
the read needs no database at all. A notice also carries the move's actions, so a process
brings the states it holds up to date by itself, whichever process made the move.

What this gives up, and why it is safe:
- A move made through another process shows in this process's reads once its notice has
  arrived: on one host, well under a millisecond after the commit (a client's next request
  takes longer than that to arrive), more under heavy load. A client that acts gets the
  new view in the answer itself.
- Moves never rely on it: every write is conditional on the version it was made against
  (``moves.MOVE``), so a move made on a state that was not the newest gets 409.
- Whenever the feed cannot vouch for a state, the read goes to the database as before:
  before the listener is connected, while it reconnects (every state seen before the
  break is distrusted), and for a state read before a notice it may have missed.

SQLite has no notifications: there, every read asks the database.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NamedTuple

from services.jsoncodec import dumps, loads

CHANNEL = "president_moves"
NOTICE_BYTES_AT_MOST = 7000  # PostgreSQL's limit is 8000 bytes; the actions go beyond it
REMEMBER_AT_MOST = 100_000  # games whose newest version is kept; then all is forgotten
PING_EVERY_S = 1.0  # the listener checks its connection at least this often
RECONNECT_AFTER_S = 0.5

log = logging.getLogger(__name__)


class Notice(NamedTuple):
    """A move, as announced: the game went from version ``after`` to ``version``."""

    game_id: str
    after: int
    version: int
    events: int  # the game's event count at ``version``
    actions: tuple[str, ...] | None  # None when too long to announce

    def payload(self) -> str:
        text = dumps([self.game_id, self.after, self.version, self.events, self.actions])
        if len(text.encode()) <= NOTICE_BYTES_AT_MOST:
            return text
        return self._replace(actions=None).payload()

    @classmethod
    def from_payload(cls, payload: str) -> Notice:
        game_id, after, version, events, actions = loads(payload)
        return cls(game_id, after, version, events, None if actions is None else tuple(actions))


class _Vouching(NamedTuple):
    """What the feed vouches for, swapped as a whole so that a reader needs no lock."""

    live: bool
    trusted_from: int  # a state seen before this mark may have missed a notice
    newest: dict[str, int]  # the newest version announced of each game, since trusted_from


Listener = Callable[[Notice, int], None]  # (notice, mark after it)


class ChangeFeed:
    """One process's listener on ``CHANNEL``, on a connection of its own made by
    ``connect`` (a DBAPI connection in autocommit mode). It starts with the first
    ``mark`` in each process (a forked child starts its own)."""

    def __init__(self, connect: Callable[[], Any]) -> None:
        self._connect = connect
        self._lock = threading.Lock()
        self._started = False
        self._stopped = threading.Event()
        self._seq = 0  # notices received and reconnections: marks are taken from it
        self._vouching = _Vouching(False, 1, {})
        self._listeners: list[Listener] = []
        self._waiting: dict[str, list[threading.Event]] = {}

    # --- what reads and writes ask ------------------------------------------------------

    def mark(self) -> int:
        """Take this before reading or writing a game; ``fresh`` needs it."""
        if not self._started:
            self._start()
        return self._seq

    def fresh(self, game_id: str, version: int, seen_at: int) -> bool:
        """Is ``version`` of the game, read or written after ``mark()`` gave ``seen_at``,
        still its newest? Only when the feed has listened without a break since then."""
        live, trusted_from, newest = self._vouching
        return live and seen_at >= trusted_from and version >= newest.get(game_id, -1)

    @property
    def live(self) -> bool:
        return self._vouching.live

    def on_notice_once(self, listener: Listener) -> None:
        """Call ``listener`` (in the listener's thread) for every notice, from now on
        (once, however often it is asked)."""
        with self._lock:
            if listener not in self._listeners:
                self._listeners.append(listener)

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

    # --- the listener -------------------------------------------------------------------

    def _start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
            threading.Thread(target=self._listen, name="president-change-feed",
                             daemon=True).start()

    def _listen(self) -> None:
        while not self._stopped.is_set():
            try:
                connection = self._connect()
                try:
                    self._follow(connection)
                finally:
                    connection.close()
            except Exception as error:  # noqa: BLE001 (whatever broke, reads fall back)
                log.warning("change feed: %s; reads ask the database until it is back", error)
            self._went_down()
            self._stopped.wait(RECONNECT_AFTER_S)

    def _follow(self, connection: Any) -> None:
        connection.execute(f"LISTEN {CHANNEL}")
        self._came_up()
        while not self._stopped.is_set():
            for notify in connection.notifies(timeout=PING_EVERY_S):
                self._received(Notice.from_payload(notify.payload))
            connection.execute("SELECT 1")  # a broken connection shows here at the latest

    def _came_up(self) -> None:
        with self._lock:  # every state seen so far may have missed a notice
            self._seq += 1
            self._vouching = _Vouching(True, self._seq, {})

    def _went_down(self) -> None:
        with self._lock:
            self._vouching = self._vouching._replace(live=False)

    def _received(self, notice: Notice) -> None:
        with self._lock:
            vouching = self._vouching
            if len(vouching.newest) >= REMEMBER_AT_MOST:  # forget all, distrust all
                vouching = self._vouching = _Vouching(True, self._seq + 1, {})
            newest = vouching.newest
            if newest.get(notice.game_id, -1) < notice.version:
                newest[notice.game_id] = notice.version
            self._seq += 1
            waiters = self._waiting.pop(notice.game_id, [])
        for arrived in waiters:
            arrived.set()
        for listener in self._listeners:
            try:
                listener(notice, self._seq)
            except Exception:  # noqa: BLE001 (the state it concerns is just not updated)
                log.exception("change feed: a listener failed on %s", notice)


    def _forked(self) -> None:
        """In a child process: no listener runs here, and none of the parent's states
        can be vouched for; the next ``mark`` starts a listener of the child's own."""
        self._lock = threading.Lock()
        self._started = False
        self._seq += 1
        self._vouching = _Vouching(False, self._seq, {})
        self._waiting = {}


_FEEDS: dict[str, ChangeFeed] = {}
_FEEDS_LOCK = threading.Lock()


def _forked() -> None:
    global _FEEDS_LOCK
    _FEEDS_LOCK = threading.Lock()
    for feed in _FEEDS.values():
        feed._forked()


os.register_at_fork(after_in_child=_forked)


def feed_for(key: str, connect: Callable[[], Any]) -> ChangeFeed:
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
