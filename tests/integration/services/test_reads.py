"""The read side (services.store.reads): the API's own autocommit reads find what the
write side stored, on SQLite and PostgreSQL."""

from __future__ import annotations

import sys
import threading
from typing import Callable

import pytest
from sqlalchemy import Engine, create_engine, text

from databases import UowReads
from dealt import create_dealt
from engine import RoundStarted, apply, legal_actions, new_series, observe, parse_action
from workers.ai import LEVELS
from services.commands import Act, CreateGame, ReadGame, SeatSpec
from services.domain import Game
from services.errors import StaleVersion
from services.handlers.events import round_events
from services.handlers.games import create_game, read_game
from services.handlers.moves import act
from services.ports import UnitOfWork
from services.store.reads import GameReads
from services.store.states import GameStates, Known
from services.versioned import VersionedCache

UowFactory = Callable[[], UnitOfWork]


def _played(uow_factory: UowFactory, moves: int) -> tuple[str, int]:
    created = create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=5),
                          uow_factory(), engines=LEVELS)
    TOKENS[created.game.game_id] = created.tokens
    return created.game.game_id, _play_on(uow_factory, created.game.game_id, 0, moves)


TOKENS: dict[str, dict[int, str]] = {}


def _play_on(uow_factory: UowFactory, game_id: str, version: int, moves: int) -> int:
    tokens = TOKENS[game_id]
    for played in range(version, version + moves):
        seat = read_game(ReadGame(game_id), UowReads(uow_factory)).view.to_act
        mine = read_game(ReadGame(game_id, tokens[seat]), UowReads(uow_factory)).view
        act(Act(game_id, tokens[seat], str(mine.legal_actions[-1]), played), uow_factory())
    return version + moves


def test_a_read_finds_the_stored_game_with_or_without_its_decoded_state(
        uow_factory: UowFactory, reads: GameReads) -> None:
    game_id, version = _played(uow_factory, 6)
    with uow_factory() as uow:
        stored = uow.games.get(game_id)
    for cached in (True, False):
        if not cached:  # the seats, the state from the stored row and snapshot this time
            reads.states.forget()
        read = reads.get(game_id)
        assert read is not None and stored is not None
        assert (read.version, read.events, read.seats, read.preset) == (
            version, stored.events, stored.seats, stored.preset)
        assert read.state == stored.state
        assert read.seats[0].token_hash is not None  # tokens are checked against these
    assert reads.get("0" * 32) is None


def test_events_after_n_are_the_stored_events_numbered_above_n(
        uow_factory: UowFactory, reads: GameReads) -> None:
    game_id, _ = _played(uow_factory, 4)
    with uow_factory() as uow:
        every = uow.games.events_after(game_id, 0, 1000)
    assert [seq for seq, _, _ in every] == list(range(1, len(every) + 1))
    assert reads.events_after(game_id, 0, 1000) == every
    assert reads.events_after(game_id, 3, 2) == every[3:5]
    assert reads.events_after(game_id, len(every), 10) == []


def test_the_cache_keeps_the_most_recently_used() -> None:
    cache: VersionedCache[str, int] = VersionedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recently used
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)


def test_the_cache_shared_by_threads_never_fails_a_lookup_nor_mixes_entries() -> None:
    """Lookups take no lock while other threads put and push entries out."""
    cache: VersionedCache[int, int] = VersionedCache(2)
    wrong: list[object] = []

    def churn(offset: int) -> None:
        try:
            for n in range(50_000):
                key = (n + offset) % 3  # three keys for two places: constant evictions
                cache.put(key, key * 10)
                found = cache.get((key + 1) % 3)
                if found is not None and found != (key + 1) % 3 * 10:
                    wrong.append((key, found))
        except Exception as error:  # noqa: BLE001 (a thread's failure fails the test)
            wrong.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter allows
    try:
        threads = [threading.Thread(target=churn, args=(k,)) for k in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == [] and len(cache._items) <= 2


@pytest.mark.parametrize("replay_at_most", [32, 2])  # a short gap replayed; a wide one not
def test_a_process_behind_catches_up_with_the_moves_made_elsewhere(
        uow_factory: UowFactory, reads: GameReads, monkeypatch: pytest.MonkeyPatch,
        replay_at_most: int) -> None:
    monkeypatch.setattr(reads.states, "replay_at_most", replay_at_most)
    game_id, _ = _played(uow_factory, 3)
    behind = reads.get(game_id)
    assert behind is not None and behind.version == 3
    _play_on(uow_factory, game_id, 3, 4)
    reads.states.forget(seatings=False)
    reads.states.remember(game_id, Known(3, behind.events, behind.state))  # 4 moves
    # behind, as another process would have left it
    caught_up = reads.get(game_id)
    reads.states.forget(seatings=False)
    stored = reads.get(game_id)  # from the stored snapshot
    assert caught_up is not None and stored is not None
    assert caught_up.version == stored.version == 7
    assert caught_up.state == stored.state and caught_up.events == stored.events


def test_a_game_read_cold_past_its_first_round_has_every_round_s_log(
        uow_factory: UowFactory, reads: GameReads) -> None:
    """The stored snapshot leaves the earlier rounds' logs out; a cold read (nothing
    known in the process) takes them from the action log."""
    game_id, version = _played(uow_factory, 0)
    while (game := reads.get(game_id)) is not None and game.state.round_no < 2:
        version = _play_on(uow_factory, game_id, version, 10)
    assert game is not None and game.state.past_logs
    reads.states.forget()
    cold = reads.get(game_id)
    assert cold is not None and cold.state == game.state


def _rewind(uow_factory: UowFactory, states: GameStates, game_id: str, version: int) -> Game:
    """This process's view of the game set back to ``version``, as if another process had
    made the moves since."""
    with uow_factory() as uow:
        states.forget(seatings=False)
        then = uow.games.get(game_id)
    assert then is not None
    with uow_factory() as uow:
        actions = uow.games.actions(game_id)[:version]
        events = sum(v <= version for _, v, _ in uow.games.events_after(game_id, 0, 10**6))
    state = new_series(then.state.rules, then.state.seed)
    for action in actions:
        state, _ = apply(state, parse_action(action))
    states.forget(seatings=False)
    states.remember(game_id, Known(version, events, state))
    return then


@pytest.mark.parametrize("legal", [True, False])
def test_a_move_on_a_state_known_here_but_stale_is_refused_as_stale(
        uow_factory: UowFactory, reads: GameReads, legal: bool) -> None:
    game_id, version = _played(uow_factory, 3)  # the database is at 3
    _rewind(uow_factory, reads.states, game_id, 2)  # this process knows the game at 2 only
    known = reads.get(game_id)  # (a read would catch up: make the process forget again)
    assert known is not None and known.version == 3
    _rewind(uow_factory, reads.states, game_id, 2)
    with uow_factory() as uow:
        at_two = uow.games.known(game_id, 2)
    assert at_two is not None
    seat = at_two.state.to_act if legal else (at_two.state.to_act + 1) % 4
    action = list(legal_actions(at_two.state))[-1]  # legal for the seat to act only
    with pytest.raises(StaleVersion):  # not "not your turn", even for the wrong seat
        act(Act(game_id, TOKENS[game_id][seat], str(action), 2), uow_factory())
    with uow_factory() as uow:
        assert len(uow.games.actions(game_id)) == 3  # nothing written


def test_a_move_on_the_state_known_here_reads_nothing_first(
        uow_factory: UowFactory, reads: GameReads, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id, version = _played(uow_factory, 2)
    game = reads.get(game_id)  # this process now knows the game at 2
    assert game is not None
    seat = game.state.to_act
    mine = read_game(ReadGame(game_id, TOKENS[game_id][seat]), reads).view
    queries: list[object] = []
    run = GameReads._run
    monkeypatch.setattr(GameReads, "_run", lambda self, query, **values: (
        queries.append(query), run(self, query, **values))[1])
    played = act(Act(game_id, TOKENS[game_id][seat], str(mine.legal_actions[-1]), version),
                 uow_factory())
    assert played.version == 3 and queries == []
    monkeypatch.undo()
    reads.states.forget(seatings=False)
    stored = reads.get(game_id)
    assert stored is not None and stored.version == 3
    assert observe(stored.state, seat, history=False) == played.view  # as stored


def test_a_connection_the_server_dropped_leaves_the_pool_and_the_read_is_retried(
        uow_factory: UowFactory, db: Engine) -> None:
    if db.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only: an SQLite file has no server to drop a connection")
    game_id, _ = _played(uow_factory, 1)
    url = db.url.render_as_string(hide_password=False)
    one = GameReads(create_engine(url, isolation_level="AUTOCOMMIT", pool_size=1,
                                  max_overflow=0), GameStates())
    with one.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    with db.connect() as connection:  # as a server restart or an idle timeout would
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    one.states.forget()  # (a state the change feed vouches for would need no connection)
    found = one.get(game_id)  # again on a new connection: the dead one did not go back
    assert found is not None and found.version == 1
    with one.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid
    one.engine.dispose()


def test_a_state_held_is_never_replaced_by_an_older_one(uow_factory: UowFactory,
                                                        reads: GameReads) -> None:
    """Checked and put under one lock: a slow reader cannot undo a newer write."""
    game_id, version = _played(uow_factory, 2)
    states = reads.states
    state = states.state(game_id)
    assert state is not None and state.version == version
    states.remember(game_id, state._replace(version=version - 1, seen_at=state.seen_at + 5))
    assert states.state(game_id) == state
    later = state._replace(seen_at=state.seen_at + 5)  # the same state, vouched for later
    states.remember(game_id, later)
    assert states.state(game_id) == later


def test_a_round_s_replay_reads_that_round_s_events_only(
        uow_factory: UowFactory, reads: GameReads, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id, version = _played(uow_factory, 0)
    while (game := reads.get(game_id)) is not None and game.state.round_no < 3:
        version = _play_on(uow_factory, game_id, version, 10)
    everything = reads.events_after(game_id, 0, 10**6)
    rounds = [reads.events_of_round(game_id, n) for n in (1, 2, 3)]
    assert [row for rows in rounds for row in rows] == everything  # each event once, in order
    for n, rows in zip((1, 2), rounds):
        assert isinstance(rows[0][2], RoundStarted) and rows[0][2].round_no == n
        assert not any(isinstance(e, RoundStarted) for _, _, e in rows[1:])
    assert reads.events_of_round(game_id, 9) == []
    scanned = round_events(game_id, None, 2, UowReads(uow_factory))  # the older way
    monkeypatch.setattr(GameReads, "events_after", None)  # must not be needed
    assert round_events(game_id, None, 2, reads) == scanned
