"""The change feed (services.store.feed): which states it vouches for, on a scripted
connection; then on PostgreSQL, with a move made by another process."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import Engine, make_url

from databases import PG_URL, fresh, services_on
import bootstrap
from dealt import create_dealt
from services.commands import Act, CreateGame, ReadGame, SeatSpec
from services.handlers.events import events_after, wait_for_events
from services.handlers.games import create_game, read_game
from services.handlers.moves import act
from services.views import EventView
from services.store import feed as feed_module
from services.store.db import make_engine
from services.store.feed import ChangeFeed, Notice, wait_until_live
from services.ports import UnitOfWork
from services.store.reads import GameReads
from workers.ai import LEVELS


class Scripted:
    """A listening connection whose notices (and failures) the test sends."""

    def __init__(self) -> None:
        self.incoming: queue.Queue[Notice | str | Exception] = queue.Queue()
        self.socket_lost = False

    def drain(self) -> list[str]:
        payloads = []
        while not self.incoming.empty():
            item = self.incoming.get()
            if isinstance(item, Exception):
                raise item
            payloads.append(item if isinstance(item, str) else item.payload())
        return payloads

    def wait_readable(self, timeout_s: float) -> None:
        if self.socket_lost:
            raise OSError("the connection is lost")
        deadline = time.monotonic() + timeout_s
        while self.incoming.empty() and time.monotonic() < deadline:
            time.sleep(0.001)

    def close(self) -> None:
        pass


class Deaf(Scripted):
    """A connection whose socket never says it is readable, until ``hear`` is set: the
    notices wait for a request to read them."""

    def __init__(self) -> None:
        super().__init__()
        self.hear = threading.Event()

    def wait_readable(self, timeout_s: float) -> None:
        self.hear.wait()


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ChangeFeed, list[Scripted]]]:
    monkeypatch.setattr(feed_module, "RECONNECT_AFTER_S", 0.01)
    connections: list[Scripted] = []

    def connect() -> Scripted:
        connections.append(Scripted())
        return connections[-1]

    feed = ChangeFeed(connect)
    assert wait_until_live(feed)
    yield feed, connections
    feed.stop()


def _until(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.002)


def _announce(feed: ChangeFeed, connection: Scripted, notice: Notice) -> None:
    arrived = feed.mark()
    connection.incoming.put(notice)
    _until(lambda: feed.mark() > arrived)


def test_a_state_is_vouched_for_until_a_newer_move_of_its_game_is_announced(
        scripted: tuple[ChangeFeed, list[Scripted]]) -> None:
    feed, connections = scripted
    seen = feed.mark()
    assert feed.fresh("a", 3, seen) and feed.fresh("b", 7, seen)
    _announce(feed, connections[0], Notice("b", 7, 8, 20, ("3H",)))
    assert feed.fresh("a", 3, seen)  # another game's move
    assert not feed.fresh("b", 7, seen)  # overtaken
    assert feed.fresh("b", 8, seen)  # e.g. brought up to date by that very notice


def test_a_read_takes_in_every_notice_that_arrived_before_it(
        scripted: tuple[ChangeFeed, list[Scripted]]) -> None:
    feed, connections = scripted
    seen = feed.mark()
    connections[0].incoming.put(Notice("b", 7, 8, 20, ("3H",)))
    feed.take_in()  # what a read does first: no waiting for the feed's thread
    assert not feed.fresh("b", 7, seen)


def test_a_mark_for_a_write_leaves_the_notices_for_the_next_read() -> None:
    """A write needs a mark but not the notices: one of a newer move of the game would
    make the write's version check fail anyway (``GameReads.mark``)."""
    connection = Deaf()
    feed = ChangeFeed(lambda: connection)
    assert wait_until_live(feed)
    try:
        seen = feed.mark()
        connection.incoming.put(Notice("b", 7, 8, 20, ("3H",)))
        written = feed.mark(take_in=False)
        assert written == seen and feed.fresh("b", 7, written)  # not taken in yet
        assert feed.mark() > written and not feed.fresh("b", 7, written)  # the next read's
    finally:
        feed.stop()
        connection.hear.set()


def test_an_unreadable_notice_distrusts_everything_and_loses_no_other(
        scripted: tuple[ChangeFeed, list[Scripted]]) -> None:
    feed, connections = scripted
    seen = feed.mark()
    connections[0].incoming.put("not a notice")  # e.g. a NOTIFY sent by hand
    connections[0].incoming.put(Notice("g", 3, 4, 9, ("3H",)))
    after = feed.mark()
    assert feed.live and not feed.fresh("a", 1, seen)  # a move of "a" may have been it
    assert not feed.fresh("g", 3, after) and feed.fresh("g", 4, after)


def test_a_listening_thread_whose_socket_fails_is_replaced(
        scripted: tuple[ChangeFeed, list[Scripted]]) -> None:
    feed, connections = scripted
    seen = feed.mark()
    connections[0].socket_lost = True
    with feed.watch("a"):  # the thread now waits on the socket, which fails
        _until(lambda: len(connections) == 2 and feed.live)
    assert not feed.fresh("a", 3, seen)


def test_nothing_seen_before_the_listener_was_connected_is_vouched_for() -> None:
    connected = []
    feed = ChangeFeed(lambda: connected.append(Scripted()) or connected[-1])
    assert not feed.fresh("a", 3, -1)
    before = feed.mark()  # starts the listener
    _until(lambda: feed.live)
    assert len(connected) == 1
    assert not feed.fresh("a", 3, before) and feed.fresh("a", 3, feed.mark())
    feed.stop()


def test_after_a_break_nothing_seen_before_it_is_vouched_for(
        scripted: tuple[ChangeFeed, list[Scripted]]) -> None:
    feed, connections = scripted
    seen = feed.mark()
    connections[0].incoming.put(ConnectionError("server closed the connection"))
    _until(lambda: len(connections) == 2 and feed.live)
    assert not feed.fresh("a", 3, seen)  # a notice may have been lost in the break
    assert feed.fresh("a", 3, feed.mark())


def test_a_state_is_not_vouched_for_while_the_listener_is_down(
        scripted: tuple[ChangeFeed, list[Scripted]], monkeypatch: pytest.MonkeyPatch) -> None:
    feed, connections = scripted
    seen = feed.mark()
    monkeypatch.setattr(feed_module, "RECONNECT_AFTER_S", 60)
    connections[0].incoming.put(ConnectionError("gone"))
    _until(lambda: not feed.live)
    assert not feed.fresh("a", 3, seen) and not feed.fresh("a", 3, feed.mark())


def test_when_it_has_too_many_games_in_mind_it_forgets_them_all_and_distrusts_all(
        scripted: tuple[ChangeFeed, list[Scripted]], monkeypatch: pytest.MonkeyPatch) -> None:
    feed, connections = scripted
    monkeypatch.setattr(feed_module, "REMEMBER_AT_MOST", 2)
    seen = feed.mark()
    for game in ("a", "b"):
        _announce(feed, connections[0], Notice(game, 0, 1, 1, ()))
    assert feed.fresh("c", 5, seen)
    _announce(feed, connections[0], Notice("c", 5, 6, 1, ()))  # forgets "a" and "b"
    assert not feed.fresh("a", 1, seen)  # it cannot tell any more: no
    assert feed.fresh("a", 0, feed.mark())  # read after: yes (nothing announced since)
    assert not feed.fresh("c", 5, feed.mark())  # what came with the forgetting counts


def test_a_waiter_wakes_when_its_game_moves_and_not_for_another(
        scripted: tuple[ChangeFeed, list[Scripted]]) -> None:
    feed, connections = scripted
    for game, timeout_s, woken in (("other", 0.3, False), ("mine", 5.0, True)):
        with feed.watch("mine") as moved:
            connections[0].incoming.put(Notice(game, 0, 1, 1, ()))
            assert moved.wait(timeout_s) == woken
    assert feed._waiting == {}  # nothing left behind


def test_a_notice_round_trips_and_drops_its_actions_when_too_long() -> None:
    notice = Notice("f" * 32, 41, 43, 100, ("3H 3S", "pass"))
    assert Notice.from_payload(notice.payload()) == notice
    long = notice._replace(actions=("10H 10S 10D 10C",) * 1000)
    assert Notice.from_payload(long.payload()) == long._replace(actions=None)


def test_a_forked_child_vouches_for_nothing_until_its_own_listener_is_up(
        scripted: tuple[ChangeFeed, list[Scripted]]) -> None:
    feed, _ = scripted
    seen = feed.mark()
    feed_module._FEEDS["scripted"] = feed  # where the fork hook finds it
    try:
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # the child: answer, then leave at once
            os.write(write, b"1" if feed.fresh("a", 3, seen) or feed.live else b"0")
            os._exit(0)
        os.waitpid(child, 0)
        assert os.read(read, 1) == b"0"
        assert feed.fresh("a", 3, seen)  # the parent's own feed is untouched
    finally:
        del feed_module._FEEDS["scripted"]


# --- on PostgreSQL ---------------------------------------------------------------------

ANOTHER_PROCESS = """
import sys
from fakes import Recorder
from services.commands import Act, ReadGame
from services.handlers.games import read_game
from services.handlers.moves import act
from services.store import Store

url, game_id, token, version = sys.argv[1:]
store = Store.open(url)
view = read_game(ReadGame(game_id, token), store.reads).view
act(Act(game_id, token, str(view.legal_actions[-1]), int(version)), store.uow())
"""


def _play_in_another_process(db: Engine, game_id: str, token: str, version: int) -> None:
    """The token's seat plays its last legal action, from a process of its own."""
    subprocess.run(
        [sys.executable, "-c", ANOTHER_PROCESS, db.url.render_as_string(hide_password=False),
         game_id, token, str(version)],
        check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).parents[2]), str(Path(__file__).parents[3])])})


def test_a_move_made_by_another_process_reaches_this_one(
        db: Engine, uow_factory: Callable[[], UnitOfWork], reads: GameReads,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL by its notice, with no read; on SQLite by the next read."""
    notified = db.dialect.name == "postgresql"
    assert (reads.feed is not None) == notified
    if reads.feed is not None:
        assert wait_until_live(reads.feed)
    created = create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=11),
                          uow_factory(), engines=LEVELS)
    game_id = created.game.game_id
    before = read_game(ReadGame(game_id), reads).view  # now held here
    queries: list[object] = []
    run = GameReads._run
    monkeypatch.setattr(GameReads, "_run", lambda self, query, **values: (
        queries.append(query), run(self, query, **values))[1])
    assert reads.get(game_id).version == 0  # type: ignore[union-attr]
    assert (queries == []) == notified  # vouched for by the feed: no read
    _play_in_another_process(db, game_id, created.tokens[before.to_act], 0)
    if notified:  # the notice's actions applied here
        _until(lambda: (reads.states.state(game_id) or (0,))[0] == 1)
    queries.clear()
    counted = _reads_counted()
    moved = reads.get(game_id)
    assert moved is not None and moved.version == 1
    assert (queries == []) == notified
    source = "memory" if notified else "database"  # (what /metrics shows)
    assert _reads_counted()[source] == counted[source] + 1
    monkeypatch.undo()
    reads.states.forget(seatings=False)
    stored = reads.get(game_id)  # from the stored snapshot
    assert stored is not None and stored.version == 1
    assert stored.state == moved.state


@pytest.fixture
def flood_db() -> Iterator[tuple[Engine, Callable[[], UnitOfWork], GameReads]]:
    """A database of its own: a flood of notices there reaches no other test's feed
    (notices are per database)."""
    assert PG_URL is not None
    name = f"president_flood_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    admin = make_engine(PG_URL, autocommit=True)
    with admin.connect() as connection:
        if not connection.exec_driver_sql(
                "SELECT 1 FROM pg_database WHERE datname = %(name)s", {"name": name}).all():
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    db = fresh(make_engine(make_url(PG_URL).set(database=name).render_as_string(
        hide_password=False)))
    with services_on(db) as (uow_factory, reads):
        yield db, uow_factory, reads
    db.dispose()


def test_a_backlog_of_notices_is_taken_in_though_nothing_reads(
        flood_db: tuple[Engine, Callable[[], UnitOfWork], GameReads]) -> None:
    """PostgreSQL sends notices only as fast as the listener reads them: a process whose
    requests read nothing for a while (its moves need no read) must still take a flood
    of them in, or a read that took in the first part alone would vouch for a state long
    gone. (Before the feed's thread followed the socket, this read found version 0.)"""
    db, uow_factory, reads = flood_db
    assert reads.feed is not None and wait_until_live(reads.feed)
    created = create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=13),
                          uow_factory(), engines=LEVELS)
    game_id = created.game.game_id
    seat = read_game(ReadGame(game_id), reads).view.to_act  # now held here
    flood = 60_000  # megabytes: more than the sockets between hold
    taken_in = REGISTRY.get_sample_value("president_change_feed_notices_total") or 0.0
    with db.connect() as connection:  # notices of other games first
        connection.exec_driver_sql(
            "SELECT count(pg_notify(%(channel)s, format('[\"other-%%s\",0,1,1,[\"3H\"]]', i)))"
            " FROM generate_series(1, %(flood)s) AS i",
            {"channel": feed_module.CHANNEL, "flood": flood})
        connection.commit()
    _play_in_another_process(db, game_id, created.tokens[seat], 0)
    _until(lambda: (REGISTRY.get_sample_value("president_change_feed_notices_total")
                    or 0.0) >= taken_in + flood + 1, timeout_s=60.0)  # (no read meanwhile)
    moved = reads.get(game_id)
    assert moved is not None and moved.version == 1


if not PG_URL:  # notices are PostgreSQL's: without it there is no case (not a skip)
    del flood_db, test_a_backlog_of_notices_is_taken_in_though_nothing_reads


def _reads_counted() -> dict[str, float]:
    return {source: REGISTRY.get_sample_value("president_game_reads_total",
                                              {"source": source}) or 0.0
            for source in ("memory", "database")}


def test_a_long_poll_wakes_on_the_move_it_waits_for(
        db: Engine, uow_factory: Callable[[], UnitOfWork], reads: GameReads,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL the waiting request reads once more, when the move is announced; on
    SQLite it polls."""
    notified = db.dialect.name == "postgresql"
    if reads.feed is not None:
        assert wait_until_live(reads.feed)
    created = create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=12),
                          uow_factory(), engines=LEVELS)
    game_id = created.game.game_id
    public = read_game(ReadGame(game_id), reads)
    seat = public.view.to_act
    mine = read_game(ReadGame(game_id, created.tokens[seat]), reads).view
    _, last = events_after(game_id, None, 0, reads)
    reads_of_events: list[int] = []
    events_of = GameReads.events_after
    monkeypatch.setattr(GameReads, "events_after", lambda self, *args: (
        reads_of_events.append(args[1]), events_of(self, *args))[1])
    answer: list[tuple[list[EventView], int]] = []
    waiter = threading.Thread(target=lambda: answer.append(
        wait_for_events(game_id, None, last, 30.0, reads)))
    waiter.start()
    _until(lambda: len(reads_of_events) == 1)  # found nothing: waits
    act(Act(game_id, created.tokens[seat], str(mine.legal_actions[-1]), 0), uow_factory())
    waiter.join(60)
    assert not waiter.is_alive()
    events, now_last = answer[0]
    assert events and now_last > last and events[0].seq == last + 1
    assert (len(reads_of_events) == 2) if notified else (len(reads_of_events) >= 2)


def test_a_version_the_caller_knows_of_is_read_even_before_its_notice_arrives(
        db: Engine, uow_factory: Callable[[], UnitOfWork], reads: GameReads,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The feed's window, and what closes it: a request or a task made against a version
    (``at_least``) is never answered from an older state. (SQLite has no window: every
    read asks the database.)"""
    created = create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=13),
                          uow_factory(), engines=LEVELS)
    game_id = created.game.game_id
    if reads.feed is not None:  # (a state read before the listener is up is never vouched for)
        assert wait_until_live(reads.feed)
    first = read_game(ReadGame(game_id), reads).view.to_act  # held here at version 0
    held = threading.Event()
    if reads.feed is not None:  # the notice of the next move is slow to arrive
        listening = reads.feed._listening
        assert listening is not None
        drain = listening.drain

        def late() -> list[str]:
            arrived = drain()
            if any(game_id in p for p in arrived):
                held.set()
            return [p for p in arrived if game_id not in p]

        monkeypatch.setattr(listening, "drain", late)
    _play_in_another_process(db, game_id, created.tokens[first], 0)
    if reads.feed is not None:
        assert held.wait(30)
        assert reads.get(game_id).version == 0  # type: ignore[union-attr]  # (the window)
    assert reads.get(game_id, at_least=1).version == 1  # type: ignore[union-attr]
    second = read_game(ReadGame(game_id), reads).view.to_act
    assert second != first
    mine = read_game(ReadGame(game_id, created.tokens[second]), reads).view
    played = act(Act(game_id, created.tokens[second], str(mine.legal_actions[-1]), 1),
                 uow_factory())
    assert played.version == 2  # not refused as stale


@pytest.mark.parametrize("listen", [None, "off", "elsewhere"])
def test_where_a_process_listens_is_a_setting(
        db: Engine, listen: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    url = db.url.render_as_string(hide_password=False)
    elsewhere = url.replace("127.0.0.1", "localhost")  # e.g. PostgreSQL past a pooler
    if listen is None:
        monkeypatch.delenv("PRESIDENT_CHANGE_FEED_URL", raising=False)
    else:
        monkeypatch.setenv("PRESIDENT_CHANGE_FEED_URL", elsewhere if listen == "elsewhere"
                           else listen)
    reads = bootstrap.open_store(url).reads
    if db.dialect.name != "postgresql" or listen == "off":
        assert reads.feed is None  # every read asks the database
        return
    expected = make_url(elsewhere if listen == "elsewhere" else url)
    assert reads.feed is feed_module._FEEDS[expected.render_as_string(hide_password=False)]
    assert wait_until_live(reads.feed)
    assert (REGISTRY.get_sample_value("president_change_feed_listening") or 0) >= 1
