"""Turns the service plays itself (services.handlers.turns) and the TurnScheduler port it is driven
through: AI turns played exactly once, the Easy fallback and human time limits recorded as
``played_for`` events, the sweeper, and the in-process scheduler."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import pytest
from sqlalchemy import Engine, select

from databases import UowReads, play_inline, set_last_move
from fakes import Told
from dealt import create_dealt
from engine import PASS, Passed, Played, Rules, View, new_series, observe
from engine.plays import Action
from services.commands import CreateGame, ReadGame, SeatSpec, TableDefaults, Turn
from services.domain import Game, PlayedFor
from services.handlers.events import events_after
from services.handlers.games import create_game, read_game
from services.views import CreatedGame
from bootstrap import FALLBACK, decide_here
from services.handlers.turns import Sweep, play_instead, postpone, sweep, take_ai_turn
from services.runtime.inline import InlineScheduler
from services.ports import UnitOfWork
from services.store import Store
from services.store.models import ActionRow, EventRow, GameRow
from workers.ai import LEVELS, decide as ai_decide
from workers.rpc.client import AiUnavailable

UowFactory = Callable[[], UnitOfWork]
HUMAN = SeatSpec("human")


class CountingDecide:
    """The in-process AI, counting its calls; ``fail`` raises instead of answering."""

    def __init__(self, fail: Exception | None = None) -> None:
        self.calls = 0
        self.fail = fail

    def __call__(self, view: View, engine: str) -> Action:
        self.calls += 1
        if self.fail is not None:
            raise self.fail
        return decide_here(view, engine)


def _first_to_act(seed: int, players: int = 4) -> int:
    return new_series(Rules.preset("classic", players=players), seed).to_act


def _create(uow_factory: UowFactory, seats: tuple[SeatSpec, ...], seed: int,
            **kwargs: Any) -> CreatedGame:
    created = create_dealt(CreateGame("classic", seats, seed=seed, **kwargs), uow_factory(),
                          engines=LEVELS)
    assert created.game.view.to_act == _first_to_act(seed, len(seats))
    return created


def _with_ai_at(seat: int, engine: str = "easy", others: SeatSpec = HUMAN) -> tuple[SeatSpec, ...]:
    return tuple(SeatSpec("ai", engine) if n == seat else others for n in range(4))


def _load(uow_factory: UowFactory, game_id: str) -> Game:
    with uow_factory() as uow:
        game = uow.games.get(game_id)
    assert game is not None
    return game


def _since(uow_factory: UowFactory, game_id: str) -> datetime:
    """The game's last move, as stored."""
    with uow_factory() as uow:
        since = uow.session.scalar(select(GameRow.updated_at).where(GameRow.id == game_id))
    assert since is not None
    return since if since.tzinfo else since.replace(tzinfo=timezone.utc)


def _actions(db: Engine, game_id: str) -> list[str]:
    with db.connect() as c:
        return list(c.scalars(select(ActionRow.action).where(ActionRow.game_id == game_id)
                              .order_by(ActionRow.seq)))


def _easy_move(game: Game, seat: int) -> Action:
    """What the Easy fallback plays for ``seat`` in this position."""
    view = observe(game.state, seat)
    return ai_decide(view, "easy", seed=len(view.history))


# --- the scheduler is told whose turn it is --------------------------------------------


def test_create_game_tells_the_scheduler_of_the_ai_to_act_with_its_engine_and_pace(
        uow_factory: UowFactory) -> None:
    for seed in (1, 2):
        recorder = Told(uow_factory)
        seats = tuple(SeatSpec("ai", level) for level in LEVELS)
        created = _create(uow_factory, seats, seed, pace_ms=1500,
                          turn_timeout_ms=20_000)
        first = created.game.view.to_act
        assert recorder.calls == [("ai", created.game.game_id, first, 0, LEVELS[first], 1.5)]


def test_create_game_gives_the_human_to_act_its_time_limit_and_none_without_one(
        uow_factory: UowFactory) -> None:
    recorder = Told(uow_factory)
    created = _create(uow_factory, (HUMAN,) * 4, 3, pace_ms=700,
                      turn_timeout_ms=2500)
    assert recorder.calls == [("human", created.game.game_id, created.game.view.to_act, 0, 2.5)]

    recorder = Told(uow_factory)
    _create(uow_factory, (HUMAN,) * 4, 3)
    assert recorder.calls == []


def test_a_game_that_says_nothing_gets_the_service_defaults_and_0_means_no_limit(
        uow_factory: UowFactory) -> None:
    defaults = TableDefaults(pace_ms=250, turn_timeout_ms=4000)
    seats = (SeatSpec("ai", "easy"),) + (HUMAN,) * 3

    def made(**kwargs: Any) -> Game:
        created = create_dealt(CreateGame("classic", seats, seed=5, **kwargs), uow_factory(),
                              defaults=defaults, engines=LEVELS)
        return _load(uow_factory, created.game.game_id)

    plain = made()
    assert (plain.pace_ms, plain.turn_timeout_ms) == (250, 4000)
    chosen = made(pace_ms=0, turn_timeout_ms=0)
    assert (chosen.pace_ms, chosen.turn_timeout_ms) == (0, None)
    own = made(pace_ms=40, turn_timeout_ms=9000)
    assert (own.pace_ms, own.turn_timeout_ms) == (40, 9000)


# --- take_ai_turn: exactly once ----------------------------------------------------------


def test_take_ai_turn_plays_once_and_a_redelivered_turn_is_a_no_op(
        uow_factory: UowFactory, db: Engine) -> None:
    recorder = Told(uow_factory)
    created = _create(uow_factory, tuple(SeatSpec("ai", "easy") for _ in range(4)), 5)
    game_id, seat = created.game.game_id, created.game.view.to_act
    expected = _easy_move(_load(uow_factory, game_id), seat)
    recorder.calls.clear()
    decide = CountingDecide()
    turn = Turn(game_id, seat, 0)

    played = take_ai_turn(turn, uow_factory(), decide, FALLBACK)
    assert played is not None and played.version == 1
    assert _actions(db, game_id) == [str(expected)]
    after = _load(uow_factory, game_id)
    assert after.version == 1 and after.state.to_act != seat
    assert recorder.calls == [("ai", game_id, after.state.to_act, 1, "easy", 0.0)]

    assert take_ai_turn(turn, uow_factory(), decide, FALLBACK) is None  # redelivered
    assert _actions(db, game_id) == [str(expected)]
    assert _load(uow_factory, game_id).version == 1
    assert decide.calls == 1  # the duplicate did not even ask the engine
    assert len(recorder.calls) == 1


def test_a_turn_at_a_stale_version_for_the_wrong_seat_or_of_a_human_is_a_no_op(
        uow_factory: UowFactory, db: Engine) -> None:
    seed = 5
    leader = _first_to_act(seed)
    # the leader and the seat after it are AI seats; the two others are human
    seats = tuple(SeatSpec("ai", "normal") if n in (leader, (leader + 1) % 4) else HUMAN
                  for n in range(4))
    recorder = Told(uow_factory)
    created = _create(uow_factory, seats, seed)
    game_id = created.game.game_id
    before = _load(uow_factory, game_id)
    recorder.calls.clear()
    decide = CountingDecide()
    human = (leader + 2) % 4

    for turn in (Turn(game_id, leader, 1),                # a version not reached yet
                 Turn(game_id, leader, -1),               # an old one
                 Turn(game_id, (leader + 1) % 4, 0),      # an AI seat, not the one to act
                 Turn(game_id, human, 0),                 # a human seat
                 Turn("0" * 32, leader, 0)):              # no such game
        assert take_ai_turn(turn, uow_factory(), decide, FALLBACK) is None, turn

    assert decide.calls == 0 and recorder.calls == []
    assert _actions(db, game_id) == []
    after = _load(uow_factory, game_id)
    assert (after.version, after.events, after.state) == (before.version, before.events,
                                                          before.state)


def test_an_engine_that_raises_leaves_the_game_unchanged(uow_factory: UowFactory,
                                                         db: Engine) -> None:
    recorder = Told(uow_factory)
    created = _create(uow_factory, _with_ai_at(_first_to_act(7), "hard"), 7)
    game_id, seat = created.game.game_id, created.game.view.to_act
    before = _load(uow_factory, game_id)
    recorder.calls.clear()
    decide = CountingDecide(fail=AiUnavailable("the worker is down"))

    with pytest.raises(AiUnavailable):
        take_ai_turn(Turn(game_id, seat, 0), uow_factory(), decide, FALLBACK)

    assert decide.calls == 1 and recorder.calls == []
    assert _actions(db, game_id) == []
    after = _load(uow_factory, game_id)
    assert (after.version, after.events, after.state) == (before.version, before.events,
                                                          before.state)
    with db.connect() as c:
        assert len(c.execute(select(EventRow.seq).where(EventRow.game_id == game_id)).all()) \
            == before.events
    # and the turn can still be played afterwards
    assert take_ai_turn(Turn(game_id, seat, 0), uow_factory(), CountingDecide(),
                        FALLBACK) is not None


def test_a_turn_played_by_someone_else_while_the_engine_thinks_is_not_played_again(
        uow_factory: UowFactory, db: Engine) -> None:
    created = _create(uow_factory, _with_ai_at(_first_to_act(9)), 9)
    game_id, seat = created.game.game_id, created.game.view.to_act
    turn = Turn(game_id, seat, 0)

    def slow_decide(view: View, engine: str) -> Action:
        # meanwhile the fallback (a redelivered task that gave up) plays the same turn
        assert play_instead(turn, "ai_failed", uow_factory(), FALLBACK) is not None
        return view.legal_actions[0]

    assert take_ai_turn(turn, uow_factory(), slow_decide, FALLBACK) is None
    assert len(_actions(db, game_id)) == 1
    assert _load(uow_factory, game_id).version == 1
    events, _ = events_after(game_id, None, 0, UowReads(uow_factory))
    assert [e.event for e in events if isinstance(e.event, PlayedFor)] == [
        PlayedFor(seat, "ai_failed", "easy")]


# --- play_instead: the Easy fallback -------------------------------------------------------


def test_ai_failed_plays_the_easy_move_after_a_played_for_event_no_reader_loses(
        uow_factory: UowFactory, db: Engine) -> None:
    seed = 11
    seat = _first_to_act(seed)
    recorder = Told(uow_factory)
    created = _create(uow_factory, _with_ai_at(seat, "expert"), seed,
                      turn_timeout_ms=45_000)
    game_id = created.game.game_id
    before = _load(uow_factory, game_id)
    expected = _easy_move(before, seat)
    assert expected != PASS  # a lead
    recorder.calls.clear()

    game = play_instead(Turn(game_id, seat, 0), "ai_failed", uow_factory(), FALLBACK)

    assert game is not None and game.version == 1
    assert _actions(db, game_id) == [str(expected)]
    assert recorder.calls == [("human", game_id, game.state.to_act, 1, 45.0)]
    note = PlayedFor(seat, "ai_failed", "easy")
    human = next(n for n in created.tokens if n != seat)
    for token in (None, created.tokens[human]):  # a spectator, a player
        events, last = events_after(game_id, token, before.events, UowReads(uow_factory))
        assert last == game.events > before.events + 1
        assert [e.seq for e in events] == list(range(before.events + 1, last + 1))
        assert events[0].event == note and events[0].version == 1
        assert events[1].event == Played(seat, expected)  # type: ignore[arg-type]
        assert all(e.version == 1 for e in events)
        assert [e.event for e in events].count(note) == 1
    with db.connect() as c:
        stored = c.scalar(select(EventRow.payload).where(EventRow.game_id == game_id,
                                                         EventRow.seq == before.events + 1))
    assert stored == {"type": "played_for", "seat": seat, "reason": "ai_failed",
                      "policy": "easy"}
    earlier, _ = events_after(game_id, None, 0, UowReads(uow_factory), limit=before.events)
    assert not [e for e in earlier if isinstance(e.event, PlayedFor)]


def test_ai_failed_refuses_a_human_seat(uow_factory: UowFactory, db: Engine) -> None:
    recorder = Told(uow_factory)
    created = _create(uow_factory, (HUMAN,) * 4, 11, turn_timeout_ms=1)
    game_id, seat = created.game.game_id, created.game.view.to_act
    recorder.calls.clear()
    set_last_move(db, game_id, datetime.now(timezone.utc) - timedelta(days=1))
    assert play_instead(Turn(game_id, seat, 0), "ai_failed", uow_factory(), FALLBACK) is None
    assert _actions(db, game_id) == [] and recorder.calls == []
    assert _load(uow_factory, game_id).version == 0


# --- play_instead: human time limits, by the database's clock ---------------------------------


def test_turn_timeout_does_nothing_without_a_time_limit(uow_factory: UowFactory,
                                                        db: Engine) -> None:
    recorder = Told(uow_factory)
    created = _create(uow_factory, (HUMAN,) * 4, 13)
    game_id, seat = created.game.game_id, created.game.view.to_act
    set_last_move(db, game_id, datetime.now(timezone.utc) - timedelta(days=365))
    assert play_instead(Turn(game_id, seat, 0), "turn_timeout", uow_factory(), FALLBACK) is None
    assert _actions(db, game_id) == [] and recorder.calls == []


def test_turn_timeout_waits_for_the_deadline_then_leads_with_easy_then_passes(
        uow_factory: UowFactory, db: Engine) -> None:
    """The deadline is the database's: a timer that fires early (another machine's clock
    ahead) plays nothing."""
    recorder = Told(uow_factory)
    created = _create(uow_factory, (HUMAN,) * 4, 13, turn_timeout_ms=30_000)
    game_id, leader = created.game.game_id, created.game.view.to_act
    recorder.calls.clear()
    limit = timedelta(milliseconds=30_000)

    # the leader, leading a trick (passing is not legal): the Easy level plays for it
    before = _load(uow_factory, game_id)
    expected = _easy_move(before, leader)
    assert PASS not in observe(before.state, leader).legal_actions
    turn = Turn(game_id, leader, 0)
    early = play_instead(turn, "turn_timeout", uow_factory(), FALLBACK)  # 30 s early
    assert early is None and _actions(db, game_id) == [] and recorder.calls == []

    # The time is out, by a second: the deadline was written with the database's clock
    # (at the creation's first statement), the last move's time with this process's (a
    # moment before it), so a shift of exactly the limit can leave it a few ms ahead.
    set_last_move(db, game_id, datetime.now(timezone.utc) - limit - timedelta(seconds=1))
    game = play_instead(turn, "turn_timeout", uow_factory(), FALLBACK)
    assert game is not None and game.version == 1
    assert _actions(db, game_id) == [str(expected)]
    nxt = game.state.to_act
    assert recorder.calls == [("human", game_id, nxt, 1, 30.0)]
    events, _ = events_after(game_id, None, before.events, UowReads(uow_factory))
    assert [e.event for e in events[:2]] == [PlayedFor(leader, "turn_timeout", "easy"),
                                             Played(leader, expected)]  # type: ignore[arg-type]
    # the same turn again (a duplicate timer) plays nothing
    set_last_move(db, game_id, datetime.now(timezone.utc) - timedelta(hours=1))
    assert play_instead(turn, "turn_timeout", uow_factory(), FALLBACK) is None
    assert len(_actions(db, game_id)) == 1

    # the next seat, with a trick in progress: it passes
    assert PASS in observe(game.state, nxt).legal_actions
    recorder.calls.clear()
    turn = Turn(game_id, nxt, 1)
    set_last_move(db, game_id, datetime.now(timezone.utc) - limit + timedelta(seconds=5))
    assert play_instead(turn, "turn_timeout", uow_factory(), FALLBACK) is None  # 5 s early
    assert len(_actions(db, game_id)) == 1
    set_last_move(db, game_id, datetime.now(timezone.utc) - limit - timedelta(seconds=5))
    game = play_instead(turn, "turn_timeout", uow_factory(), FALLBACK)
    assert game is not None and game.version == 2
    assert _actions(db, game_id)[1] == str(PASS)
    events, _ = events_after(game_id, None, _load(uow_factory, game_id).events - 2,
                             UowReads(uow_factory))
    assert [e.event for e in events] == [PlayedFor(nxt, "turn_timeout", "pass"), Passed(nxt)]
    assert recorder.calls == [("human", game_id, game.state.to_act, 2, 30.0)]


def test_turn_timeout_is_for_human_seats_only(uow_factory: UowFactory, db: Engine) -> None:
    created = _create(uow_factory, _with_ai_at(_first_to_act(13)), 13, turn_timeout_ms=10)
    game_id, seat = created.game.game_id, created.game.view.to_act
    set_last_move(db, game_id, datetime.now(timezone.utc) - timedelta(days=1))
    assert play_instead(Turn(game_id, seat, 0), "turn_timeout", uow_factory(), FALLBACK) is None
    assert _actions(db, game_id) == []


# --- the sweeper ----------------------------------------------------------------------------


def test_sweep_resends_stalled_turns_once_each_never_finished_games_nor_unlimited_humans(
        uow_factory: UowFactory, db: Engine, store: Store) -> None:
    recorder = Told(uow_factory)
    ais = tuple(SeatSpec("ai", level) for level in LEVELS)
    stalled = _create(uow_factory, ais, 1)
    recent = _create(uow_factory, ais, 2)
    human_first = _create(uow_factory, _with_ai_at((_first_to_act(3) + 1) % 4, "hard"), 3,
                          turn_timeout_ms=60_000)
    no_limit = _create(uow_factory, (HUMAN,) * 4, 4)
    recorder.calls.clear()
    play_inline(store)
    over_id = _create(uow_factory, tuple(SeatSpec("ai", "easy") for _ in range(4)), 5,
                      rounds=1).game.game_id
    store.outbox_written = lambda: None
    assert read_game(ReadGame(over_id), UowReads(uow_factory)).status == "over"

    now = datetime.now(timezone.utc)
    for game_id in (stalled.game.game_id, no_limit.game.game_id, over_id):
        set_last_move(db, game_id, now - timedelta(hours=2))

    # only the AI turn due more than 30 s ago is sent again, and only once: the copy sent
    # is due now, so the next sweeps leave it alone until 30 s more have passed
    assert recorder.resent == []  # (the moves' own turns are new ones)
    assert sweep(uow_factory(), 30.0) == Sweep(1, 0)
    seat = stalled.game.view.to_act
    assert recorder.calls == [("ai", stalled.game.game_id, seat, 0, LEVELS[seat], 0.0)]
    assert recorder.resent == [(stalled.game.game_id, 0)]  # served before new turns
    recorder.calls.clear()
    assert sweep(uow_factory(), 30.0) == Sweep(0, 0)
    assert recorder.calls == []
    set_last_move(db, stalled.game.game_id, now - timedelta(hours=4))  # all 2 h older: again
    assert sweep(uow_factory(), 30.0) == Sweep(1, 0)
    recorder.calls.clear()

    # the human's time out 25 s ago: not yet; 35 s ago: its time limit is sent again
    human_id = human_first.game.game_id
    set_last_move(db, human_id, now - timedelta(seconds=60 + 25))
    assert sweep(uow_factory(), 30.0) == Sweep(0, 0)
    set_last_move(db, human_id, now - timedelta(seconds=60 + 35))
    assert sweep(uow_factory(), 30.0) == Sweep(0, 1)
    assert recorder.calls == [("human", human_id, human_first.game.view.to_act, 0, 0.0)]
    assert recorder.resent[-1] == (human_id, 0)

    # the recent AI turn, once due long enough; never the finished game nor the human
    # without a time limit
    recorder.calls.clear()
    set_last_move(db, recent.game.game_id, now - timedelta(minutes=1))
    assert sweep(uow_factory(), 30.0) == Sweep(1, 0)
    seat = recent.game.view.to_act
    assert recorder.calls == [("ai", recent.game.game_id, seat, 0, LEVELS[seat], 0.0)]
    assert sweep(uow_factory(), 30.0) == Sweep(0, 0)


def test_a_turn_whose_task_retries_is_left_alone_by_the_sweeper_until_the_retry_is_due(
        uow_factory: UowFactory, db: Engine) -> None:
    """The retry is the turn's one live copy: it pushes the turn's due time to itself."""
    created = _create(uow_factory, tuple(SeatSpec("ai", "easy") for _ in range(4)), 8)
    game_id, seat = created.game.game_id, created.game.view.to_act
    now = datetime.now(timezone.utc)
    set_last_move(db, game_id, now - timedelta(hours=1))
    assert postpone(Turn(game_id, seat, 0), uow_factory(), 60.0)
    assert sweep(uow_factory(), 30.0) == Sweep(0, 0)
    assert not postpone(Turn(game_id, seat, 5), uow_factory(), 60.0)  # not where it is
    set_last_move(db, game_id, now - timedelta(hours=3))  # 2 h on: the retry is long past
    assert sweep(uow_factory(), 30.0) == Sweep(1, 0)


def test_sweep_follows_the_game_after_a_move(uow_factory: UowFactory, db: Engine) -> None:
    """The version and seat sent are the ones the game waits on now, not at creation."""
    recorder = Told(uow_factory)
    created = _create(uow_factory, tuple(SeatSpec("ai", "easy") for _ in range(4)), 6)
    game_id = created.game.game_id
    game = take_ai_turn(Turn(game_id, created.game.view.to_act, 0), uow_factory(),
                        CountingDecide(), FALLBACK)
    assert game is not None
    recorder.calls.clear()
    set_last_move(db, game_id, datetime.now(timezone.utc) - timedelta(days=1))
    assert sweep(uow_factory(), 30.0) == Sweep(1, 0)
    assert recorder.calls == [("ai", game_id, game.state.to_act, 1, "easy", 0.0)]


# --- the in-process scheduler -------------------------------------------------------------


def test_inline_scheduler_plays_an_all_ai_series_without_recursing_per_move(
        uow_factory: UowFactory, db: Engine, inline: InlineScheduler) -> None:
    margin = 200  # frames above this test's own: far more than one move needs
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back  # type: ignore[assignment]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + margin)
    try:
        created = create_game(CreateGame("classic", tuple(SeatSpec("ai", "easy")
                                                          for _ in range(4)),
                                         rounds=2, seed=21),
                              uow_factory(), engines=LEVELS)
    finally:
        sys.setrecursionlimit(old)
    final = read_game(ReadGame(created.game.game_id), UowReads(uow_factory))
    assert final.status == "over" and len(final.view.results) == 2
    moves = len(_actions(db, created.game.game_id))
    # a scheduler recursing once per move would need ~4 frames a move: far beyond the limit
    assert moves == final.version and moves * 4 > 2 * margin
