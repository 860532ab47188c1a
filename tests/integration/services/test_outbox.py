"""The transactional outbox (services.handlers.outbox, services.runtime.relay, services.store.outbox):
a move's next turn is written in the move's own transaction, handed over exactly once by
whichever relay claims it, kept when the scheduler fails, and picked up by another relay
when the process that committed it died before handing it over."""

from __future__ import annotations

import os
import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import pytest
from sqlalchemy import Engine, func, select, text, update

from databases import PG_URL, fresh
from dealt import create_dealt
from engine import observe
from fakes import Recorder
from services.commands import Act, CreateGame, SeatSpec
from services.domain import TurnMessage
from services.errors import StaleVersion
from services.handlers.games import create_game
from services.handlers.moves import act
from services.handlers.outbox import relay
from services.handlers.turns import Sweep, sweep
from services.runtime.relay import Relay
from services.store import Store
from services.store.db import in_schema, make_engine
from services.store.models import GameRow, OutboxRow
from services.store.outbox import PostgresLead
from services.store.timing import aware
from workers.ai import LEVELS, decide

HUMANS = (SeatSpec("human"),) * 4
AIS = (SeatSpec("ai", "easy"),) * 4


def _waiting(db: Engine) -> int:
    with db.connect() as c:
        return int(c.scalar(select(func.count()).select_from(OutboxRow)) or 0)


def _first_move(store: Store, created: Any) -> Act:
    seat = created.game.view.to_act
    with store.uow() as uow:
        game = uow.games.get(created.game.game_id)
    assert game is not None
    return Act(game.id, created.tokens[seat], str(decide(observe(game.state, seat), "easy")), 0)


def _until(condition: Callable[[], bool], at_most_s: float) -> bool:
    deadline = time.monotonic() + at_most_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_move_writes_its_next_turn_in_its_own_transaction_and_a_refused_one_nothing(
        store: Store, db: Engine) -> None:
    created = create_dealt(CreateGame("classic", HUMANS, seed=3, turn_timeout_ms=9000),
                          store.uow(), LEVELS)
    assert _waiting(db) == 1  # the first human's time limit
    move = _first_move(store, created)
    act(move, store.uow())
    assert _waiting(db) == 2
    with pytest.raises(StaleVersion):  # the same move again: refused, and nothing written
        act(move, store.uow())
    assert _waiting(db) == 2
    no_limit = create_dealt(CreateGame("classic", HUMANS, seed=4), store.uow(), LEVELS)
    act(_first_move(store, no_limit), store.uow())
    assert _waiting(db) == 2  # no time limit, no AI: nothing to set in motion

    recorder = Recorder()
    assert relay(store.uow(), recorder) == 2 and _waiting(db) == 0
    game_id = created.game.game_id
    assert [c[:4] for c in recorder.calls] == [("human", game_id, created.game.view.to_act, 0),
                                               ("human", game_id, recorder.calls[1][2], 1)]
    assert relay(store.uow(), recorder) == 0 and len(recorder.calls) == 2


class Flaky(Recorder):
    """Takes ``good`` messages, then fails (a broker going down mid-batch)."""

    def __init__(self, good: int) -> None:
        super().__init__()
        self.good = good

    def ai_turn(self, *args: Any, **kwargs: Any) -> None:
        if len(self.calls) >= self.good:
            raise ConnectionError("the broker went away")
        super().ai_turn(*args, **kwargs)


def test_messages_the_scheduler_could_not_take_stay_and_those_it_took_go(
        store: Store, db: Engine) -> None:
    ids = [create_dealt(CreateGame("classic", AIS, seed=n), store.uow(), LEVELS).game.game_id
           for n in range(5)]
    flaky = Flaky(good=2)
    with pytest.raises(ConnectionError):
        relay(store.uow(), flaky)
    assert [c[1] for c in flaky.calls] == ids[:2] and _waiting(db) == 3
    recorder = Recorder()
    assert relay(store.uow(), recorder) == 3
    assert sorted(c[1] for c in recorder.calls) == sorted(ids[2:]) and _waiting(db) == 0


def test_relays_racing_hand_each_message_over_exactly_once(store: Store, db: Engine) -> None:
    ids = {create_dealt(CreateGame("classic", AIS, seed=n), store.uow(), LEVELS).game.game_id
           for n in range(60)}
    recorders = [Recorder() for _ in range(4)]
    start = threading.Barrier(len(recorders))

    def race(recorder: Recorder) -> None:
        start.wait()
        while relay(store.uow(), recorder, limit=7):
            pass

    threads = [threading.Thread(target=race, args=(r,)) for r in recorders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    handed = [c[1] for r in recorders for c in r.calls]
    assert sorted(handed) == sorted(ids) and _waiting(db) == 0


def test_a_message_left_by_a_process_that_died_is_handed_over_by_another_relay(
        store: Store, db: Engine) -> None:
    """The committing process's relay never ran (it died after the commit): a relay
    running elsewhere finds the message within 2 s."""
    game_id = create_dealt(CreateGame("classic", AIS, seed=1), store.uow(),
                          LEVELS).game.game_id  # (no relay here: outbox_written does nothing)
    assert _waiting(db) == 1
    elsewhere = Store(db)  # another process's
    recorder = Recorder()
    relay_thread = Relay(elsewhere.uow, recorder, elsewhere.outbox_wake()).start()
    try:
        assert _until(lambda: len(recorder.calls) == 1 and _waiting(db) == 0, 2.0)
        assert recorder.calls[0][:2] == ("ai", game_id)
    finally:
        relay_thread.stop()
        elsewhere.close()


def test_the_sent_time_is_the_database_s(store: Store) -> None:
    create_dealt(CreateGame("classic", AIS, seed=1), store.uow(), LEVELS)
    with store.uow() as uow:
        claimed = uow.outbox.claim(10)
    assert len(claimed) == 1 and isinstance(claimed[0], TurnMessage)
    sent = claimed[0].sent_at
    assert isinstance(sent, datetime) and sent.tzinfo is not None


def _times(db: Engine, game_id: str) -> tuple[datetime, datetime]:
    """The game's turn due time and its message's writing time."""
    with db.connect() as c:
        due = c.scalar(select(GameRow.turn_due_at).where(GameRow.id == game_id))
        written = c.scalar(select(OutboxRow.created_at).where(OutboxRow.game_id == game_id))
    assert due is not None and written is not None
    return aware(due), aware(written)


def _written_ago(db: Engine, game_id: str, seconds: float) -> None:
    """The game's move and its message written ``seconds`` earlier than they were."""
    due, written = _times(db, game_id)
    back = timedelta(seconds=seconds)
    with db.begin() as c:
        c.execute(update(GameRow).where(GameRow.id == game_id)
                  .values(turn_due_at=due - back, updated_at=due - back))
        c.execute(update(OutboxRow).where(OutboxRow.game_id == game_id)
                  .values(created_at=written - back))


def test_a_message_handed_over_late_moves_its_turn_s_due_time_to_the_hand_over(
        store: Store, db: Engine) -> None:
    """A relay held up (or a slow broker): the copy it hands over expires counted from the
    hand-over, so the game's turn is due from then, and the sweeper leaves it alone until
    that copy can no longer be live. A message handed over in time moves nothing."""
    late, on_time = (create_dealt(CreateGame("classic", AIS, seed=seed), store.uow(),
                                 LEVELS).game.game_id for seed in (1, 2))
    _written_ago(db, late, 5.0)
    due_on_time = _times(db, on_time)[0]
    before = datetime.now(timezone.utc)
    with store.uow() as uow:
        assert {m.game_id for m in uow.outbox.claim(10)} == {late, on_time}
        uow.commit()
    with db.connect() as c:
        dues = dict(c.execute(select(GameRow.id, GameRow.turn_due_at)
                              .where(GameRow.id.in_([late, on_time]))).all())
    assert aware(dues[on_time]) == due_on_time
    assert aware(dues[late]) >= before - timedelta(seconds=1)  # was 5 s before
    assert sweep(store.uow(), after_s=2.0) == Sweep(0, 0)  # neither stalled


# --- PostgreSQL: one leader, woken by the commit's notice ---------------------------------


@pytest.fixture
def pg_store(store: Store) -> Store:
    if store.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only: SQLite's relays all relay, woken by their own commits")
    return store


def test_one_relay_leads_and_another_takes_over_when_it_goes(pg_store: Store) -> None:
    first, second = pg_store.outbox_wake(), pg_store.outbox_wake()
    assert isinstance(first, PostgresLead) and isinstance(second, PostgresLead)
    try:
        assert first.wait(0.1) is True and first.leading
        assert second.wait(0.1) is False and not second.leading  # the lock is taken
        first.close()  # its process died: the connection, and the lock, are gone
        # (the server frees the lock once it has seen the connection go: a moment later
        # on a loaded machine, so the second relay may need another try or two)
        deadline = time.monotonic() + 30
        while not second.wait(0.1):
            assert time.monotonic() < deadline, "the second relay never took the lead"
        assert second.leading
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("writes", ["a create", "a move", "the sweeper"])
def test_the_leader_is_woken_by_another_process_s_commit(pg_store: Store, db: Engine,
                                                        writes: str) -> None:
    """Every way a message is written notifies the leader at commit: a wait for an hour
    returns at once."""
    wake = pg_store.outbox_wake()
    other = Store(db)  # another process
    try:
        assert wake.wait(0.1) and wake.leading
        created = create_dealt(CreateGame("classic", HUMANS, seed=2, turn_timeout_ms=1),
                              other.uow(), LEVELS)
        if writes == "a move":
            relay(other.uow(), Recorder())
            wake.wait(0.1)  # (the create's notice)
            act(_first_move(other, created), other.uow())
        elif writes == "the sweeper":
            relay(other.uow(), Recorder())
            wake.wait(0.1)
            time.sleep(0.01)  # the 1 ms time limit is out
            assert sweep(other.uow(), 0.0) == Sweep(0, 1)
        started = time.monotonic()
        assert wake.wait(3600.0)
        assert time.monotonic() - started < 60  # woken by the notice, not the timeout
    finally:
        wake.close()
        other.close()


def test_each_schema_of_a_database_has_its_own_leader(pg_store: Store) -> None:
    """An advisory lock is the whole database's: deployments in two schemas of one
    database (or two test workers) must not wait on each other's leader."""
    assert PG_URL is not None
    schema = f"outbox_other_{os.getpid()}"
    other = Store(fresh(make_engine(in_schema(PG_URL, schema))))
    mine, theirs = pg_store.outbox_wake(), other.outbox_wake()
    try:
        assert mine.wait(0.1) and theirs.wait(0.1)
        assert isinstance(mine, PostgresLead) and mine.leading
        assert isinstance(theirs, PostgresLead) and theirs.leading
    finally:
        mine.close()
        theirs.close()
        other.close()
        with pg_store.engine.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
