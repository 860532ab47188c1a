"""Moves written in batches (services.store.moves.MoveBatches, PostgreSQL's group
commit): first on a scripted cursor, then with real moves on PostgreSQL."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Callable, Iterator

import pytest
from psycopg import OperationalError
from psycopg.errors import UniqueViolation
from prometheus_client import REGISTRY

from databases import PG_URL, fresh, pg_url
from workers.ai import LEVELS
from dealt import create_dealt
from services.commands import Act, CreateGame, ReadGame, SeatSpec
from services.errors import StaleVersion, Unavailable
from services.handlers.games import create_game, read_game
from services.handlers.moves import act
from services.views import GameView
from services.store.db import make_engine
from services.store import transient
from services.store.moves import Move, MoveBatches
from services.store.transient import ATTEMPTS
from services.store import Store
from services.jsoncodec import loads


def _move(game_id: str) -> Move:
    now = datetime.now(timezone.utc)
    played = [{"seq": 1, "round": 1, "seat": 0, "action": "3C"}]
    return Move(game_id, 0, 0, 1, "active", 1, {}, 0, None, now, played, [], None, None, None,
                [])


class Scripted:
    """A cursor that records each statement's games; it can hold the first statement
    until the test lets it go, and refuses any batch holding the game "bad"."""

    def __init__(self, hold_first: bool = False) -> None:
        self.statements: list[list[str]] = []
        self.release = threading.Event()
        if not hold_first:
            self.release.set()
        self._moved: list[tuple[str, ...]] = []
        self.logged: dict[str, str] = {}  # game: its last action in the log

    @contextmanager
    def cursor(self) -> Iterator[Scripted]:
        yield self

    def execute(self, statement: str, params: dict[str, Any]) -> None:
        if "asked" in params:  # after a lost connection: what the log holds
            self._moved = [(row["game_id"], self.logged[row["game_id"]])
                           for row in loads(params["asked"]) if row["game_id"] in self.logged]
            return
        rows = loads(params["moves"])
        games = [row["game_id"] for row in rows]
        self.statements.append(games)
        self.release.wait(10)
        if "bad" in games:
            raise UniqueViolation("refused")
        if "lost" in games:
            raise OperationalError("the connection is lost")
        if "ack-lost" in games and "ack-lost" not in self.logged:  # committed, then lost
            self.logged["ack-lost"] = rows[games.index("ack-lost")]["actions"][-1]["action"]
            raise OperationalError("the connection is lost")
        self._moved = [(g,) for g in games if not g.startswith("moved-on")
                       and g not in self.logged]  # (a game written moved on)

    def fetchall(self) -> list[tuple[str, ...]]:
        return self._moved


def _in_threads(batches: MoveBatches, moves: list[Move]
                ) -> tuple[list[threading.Thread], dict[str, object]]:
    outcomes: dict[str, object] = {}

    def write(move: Move) -> None:
        try:
            outcomes[move.game_id] = batches.write(move)
        except Exception as error:  # noqa: BLE001 (the test looks at it)
            outcomes[move.game_id] = error

    threads = [threading.Thread(target=write, args=(m,)) for m in moves]
    return threads, outcomes


def _wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def _held_then(batches: MoveBatches, scripted: Scripted, first: Move,
               then: list[Move]) -> dict[str, object]:
    """Write ``first`` (held in its statement), queue ``then`` behind it, let go."""
    leader, outcomes = _in_threads(batches, [first])
    leader[0].start()
    _wait_until(lambda: len(scripted.statements) == 1)
    followers, more = _in_threads(batches, then)
    for thread in followers:
        thread.start()
        _wait_until(lambda: batches.queued == followers.index(thread) + 1)  # in order
    scripted.release.set()
    for thread in leader + followers:
        thread.join(10)
    return {**outcomes, **more}


def test_moves_that_arrive_while_a_statement_runs_go_in_the_next_one() -> None:
    scripted = Scripted(hold_first=True)
    batches = MoveBatches(scripted.cursor)
    outcomes = _held_then(batches, scripted, _move("a"),
                          [_move("moved-on"), _move("c"), _move("b")])
    assert scripted.statements == [["a"], ["b", "c", "moved-on"]]  # in game id order
    assert outcomes == {"a": True, "b": True, "moved-on": False, "c": True}
    assert batches.write(_move("d")) is True and batches.queued == 0  # not stuck


def test_a_statement_holds_one_move_per_game() -> None:
    scripted = Scripted(hold_first=True)
    batches = MoveBatches(scripted.cursor)
    _held_then(batches, scripted, _move("a"), [_move("c"), _move("b"), _move("c")])
    assert scripted.statements == [["a"], ["b", "c"], ["c"]]


def test_a_statement_holds_at_most_so_many_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MoveBatches, "AT_MOST", 2)
    scripted = Scripted(hold_first=True)
    batches = MoveBatches(scripted.cursor)
    _held_then(batches, scripted, _move("a"), [_move("c"), _move("b"), _move("d")])
    assert scripted.statements == [["a"], ["b", "c"], ["d"]]  # the first two to come


def test_a_move_that_cannot_be_written_fails_alone() -> None:
    scripted = Scripted(hold_first=True)
    batches = MoveBatches(scripted.cursor)
    outcomes = _held_then(batches, scripted, _move("a"), [_move("b"), _move("bad"), _move("c")])
    assert scripted.statements == [["a"], ["b", "bad", "c"], ["b"], ["bad"], ["c"]]
    assert outcomes["a"] is True and outcomes["b"] is True and outcomes["c"] is True
    assert isinstance(outcomes["bad"], UniqueViolation)
    assert batches.write(_move("d")) is True  # the queue goes on


def test_a_lost_connection_is_retried_and_a_move_that_had_committed_counts_as_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The statement may have committed before the connection went: written again, such
    a move would be refused as stale, which would be a lie; the log says it is there."""
    monkeypatch.setattr(transient, "BASE_S", 0.0)
    scripted = Scripted()
    batches = MoveBatches(scripted.cursor)
    assert batches.write(_move("ack-lost")) is True
    assert scripted.statements == [["ack-lost"], ["ack-lost"]]


def test_a_connection_lost_for_good_fails_the_batch_as_unavailable_after_the_retries(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transient, "BASE_S", 0.0)
    scripted = Scripted(hold_first=True)
    batches = MoveBatches(scripted.cursor)
    outcomes = _held_then(batches, scripted, _move("a"), [_move("b"), _move("lost")])
    assert scripted.statements == [["a"]] + [["b", "lost"]] * ATTEMPTS
    assert outcomes["a"] is True
    assert all(isinstance(outcomes[g], Unavailable) for g in ("b", "lost"))
    assert batches.write(_move("d")) is True


def test_a_failed_statement_of_one_move_raises_to_its_caller() -> None:
    batches = MoveBatches(Scripted().cursor)
    with pytest.raises(UniqueViolation, match="refused"):
        batches.write(_move("bad"))
    assert batches.write(_move("a")) is True


# --- on PostgreSQL (SQLite takes the unit of work's transaction: no batches) -------------

def _observed() -> tuple[float, float]:
    count = REGISTRY.get_sample_value("president_move_batch_moves_count") or 0.0
    total = REGISTRY.get_sample_value("president_move_batch_moves_sum") or 0.0
    return count, total


@pytest.fixture
def pg() -> Iterator[Store]:
    store = Store(fresh(make_engine(pg_url())))
    yield store
    store.close()


def test_concurrent_moves_commit_together_each_checked_against_its_own_game(
        pg: Store) -> None:
    """Game a's move holds the first statement; b's and c's moves and a second move of a
    (made on the version a's first move leaves behind) queue behind it and go in the next
    statement, where a's second is refused as stale: one move per game applies."""
    uow_factory, reads, moves = pg.uow, pg.reads, pg.moves
    assert moves is not None
    release, first = threading.Event(), threading.Event()
    real = moves._cursor

    @contextmanager
    def held() -> Iterator[Any]:
        if not first.is_set():
            first.set()
            release.wait(10)
        with real() as cursor:
            yield cursor

    moves._cursor = held
    games = {name: create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=i),
                               uow_factory(), engines=LEVELS) for i, name in enumerate("abc")}
    outcomes: dict[str, GameView | Exception] = {}

    def play(name: str, label: str) -> None:
        created = games[name]
        game_id = created.game.game_id
        seat = read_game(ReadGame(game_id), reads).view.to_act
        assert seat is not None
        view = read_game(ReadGame(game_id, created.tokens[seat]), reads).view
        try:
            outcomes[label] = act(Act(game_id, created.tokens[seat],
                                      str(view.legal_actions[-1]), 0), uow_factory())
        except StaleVersion as error:
            outcomes[label] = error

    before = _observed()
    leader = threading.Thread(target=play, args=("a", "a1"))
    leader.start()
    assert first.wait(10)
    followers = [threading.Thread(target=play, args=args)
                 for args in (("b", "b"), ("c", "c"), ("a", "a2"))]
    for thread in followers:
        thread.start()
    _wait_until(lambda: moves.queued == 3)
    release.set()
    for thread in [leader, *followers]:
        thread.join(10)
    count, total = (after - b for after, b in zip(_observed(), before))
    assert (count, total) == (2, 4)  # [a1], [b, c, a2]
    assert isinstance(outcomes["a2"], StaleVersion)
    for label in ("a1", "b", "c"):
        assert isinstance(outcomes[label], GameView) and outcomes[label].version == 1
    with uow_factory() as uow:
        for name in "abc":
            game_id = games[name].game.game_id
            assert len(uow.games.actions(game_id)) == 1
            stored = uow.games.stored_state(game_id)
            assert stored is not None and stored.version == 1


if not PG_URL:  # without PostgreSQL there is nothing to test here (not a skip: no case)
    del pg, test_concurrent_moves_commit_together_each_checked_against_its_own_game
