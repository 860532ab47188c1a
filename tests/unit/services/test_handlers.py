"""The handlers on fakes of their ports (``tests/fakes.py``): no database, milliseconds a
test. What they must do whatever the adapters: check every action through the engine,
write on condition of the version read, say whose turn it is, hide what a seat may not
see. (``tests/integration/services`` runs the same service layer on SQLite and
PostgreSQL.)"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from bootstrap import FALLBACK, decide_here
from engine import PASS, Played, RoundStarted, mask_of
from engine.errors import PresidentError, UnknownPreset
from fakes import FakeDatabase, Recorder, play_inline, relay_all, state_of
from services.commands import Act, CreateGame, ReadGame, SeatSpec, TableDefaults, Turn
from services.domain import PlayedFor, TurnMessage
from services.errors import (
    BadCursor, BadStatus, BadToken, GameNotFound, InvalidSeat, KeyReused,
    OptionsContradictSeats, RoundNotFound, StaleVersion,
)
from services.handlers.audit import check_all, rebuilt_state
from services.handlers.events import events_after, round_events, wait_for_events
from services.handlers.games import create_game, list_games, read_game
from services.handlers.moves import act
from services.handlers.turns import Sweep, play_instead, sweep, take_ai_turn
from services.views import CreatedGame
from workers.ai import LEVELS

HUMANS = (SeatSpec("human"),) * 4


def _create(db: FakeDatabase, seats: tuple[SeatSpec, ...] = HUMANS,
            **kwargs: object) -> CreatedGame:
    return create_game(CreateGame("classic", seats, **kwargs),  # type: ignore[arg-type]
                       db.uow(), LEVELS, draw=lambda: 7)  # (others sit: a seed is drawn)


def _move(db: FakeDatabase, created: CreatedGame, **act_kwargs: object) -> tuple[Act, int]:
    """The seat to act's last legal action, as a command at the game's version."""
    game_id = created.game.game_id
    spectator = read_game(ReadGame(game_id), db.reads())
    seat = spectator.view.to_act
    mine = read_game(ReadGame(game_id, created.tokens[seat]), db.reads()).view
    return Act(game_id, created.tokens[seat], str(mine.legal_actions[-1]), spectator.version,
               **act_kwargs), seat  # type: ignore[arg-type]


def test_a_created_game_is_stored_and_its_first_turn_scheduled() -> None:
    moment = datetime(2026, 1, 1, tzinfo=timezone.utc)
    db = FakeDatabase(now=lambda: moment)
    created = _create(db, (SeatSpec("ai", "hard"),) * 4)
    assert created.tokens == {} and db.commits == 1
    game = db.games[created.game.game_id].game
    assert db.outbox == [TurnMessage(game.id, 0, game.state.to_act, "hard", 0.0, db.now())]
    recorder = Recorder()
    assert relay_all(db, recorder) == 1 and db.outbox == []  # handed over, and gone
    assert recorder.calls == [("ai", game.id, game.state.to_act, 0, "hard", 0.0)]


def test_each_human_seat_gets_a_token_the_store_keeps_only_hashed() -> None:
    db = FakeDatabase()
    created = _create(db)
    assert sorted(created.tokens) == [0, 1, 2, 3]
    stored = db.games[created.game.game_id].game.seats
    assert all(s.token_hash and s.token_hash not in created.tokens.values() for s in stored)
    assert [s.seat for s in stored if s.accepts("nope")] == []


@pytest.mark.parametrize("seats", [(SeatSpec("ai", "grandmaster"),) + HUMANS[:3],
                                   (SeatSpec("robot"),) + HUMANS[:3]])
def test_a_seat_of_no_known_kind_or_engine_is_refused_and_nothing_stored(
        seats: tuple[SeatSpec, ...]) -> None:
    db = FakeDatabase()
    with pytest.raises(InvalidSeat, match="seat 0"):
        _create(db, seats)
    assert db.games == {} and db.commits == 0


def test_an_unknown_preset_is_refused() -> None:
    db = FakeDatabase()
    with pytest.raises(UnknownPreset, match="unknown preset"):
        create_game(CreateGame("poker", HUMANS), db.uow(), LEVELS)


def test_defaults_apply_where_the_creator_says_nothing_and_zero_means_no_limit() -> None:
    db = FakeDatabase()
    defaults = TableDefaults(pace_ms=250, turn_timeout_ms=30_000)
    made = create_game(CreateGame("classic", HUMANS), db.uow(), LEVELS, defaults)
    assert (made.game.pace_ms, made.game.turn_timeout_ms) == (250, 30_000)
    unlimited = create_game(CreateGame("classic", HUMANS, pace_ms=0, turn_timeout_ms=0),
                            db.uow(), LEVELS, defaults)
    assert (unlimited.game.pace_ms, unlimited.game.turn_timeout_ms) == (0, None)


def test_a_seat_sees_its_own_hand_and_a_spectator_none() -> None:
    db = FakeDatabase()
    created = _create(db)
    game_id = created.game.game_id
    state = state_of(db, game_id)
    for seat, token in created.tokens.items():
        view = read_game(ReadGame(game_id, token), db.reads()).view
        assert view.seat == seat and mask_of(view.hand) == state.hands[seat]
    spectator = read_game(ReadGame(game_id), db.reads()).view
    assert spectator.seat is None and spectator.hand == ()
    with pytest.raises(BadToken):
        read_game(ReadGame(game_id, "not-a-token"), db.reads())
    with pytest.raises(GameNotFound):
        read_game(ReadGame("f" * 32), db.reads())


def test_an_action_is_played_once_at_its_version_and_the_next_turn_scheduled() -> None:
    db, recorder = FakeDatabase(), Recorder()
    created = _create(db, turn_timeout_ms=5_000)
    cmd, seat = _move(db, created)
    relay_all(db, recorder)
    played = act(cmd, db.uow())
    relay_all(db, recorder)
    assert played.version == 1 and played.seat == seat
    assert db.games[cmd.game_id].actions == [cmd.action]
    nxt = played.view.to_act
    assert recorder.calls[-1] == ("human", cmd.game_id, nxt, 1, 5.0)
    with pytest.raises(StaleVersion):  # the same command again: the game moved on
        act(cmd, db.uow())
    assert len(db.games[cmd.game_id].actions) == 1


def test_an_illegal_action_is_the_engine_s_error_and_changes_nothing() -> None:
    db = FakeDatabase()
    created = _create(db)
    cmd, seat = _move(db, created)
    other = created.tokens[(seat + 1) % 4]
    for bad in (Act(cmd.game_id, other, cmd.action, 0),  # not that seat's turn
                Act(cmd.game_id, cmd.token, "2C 2C", 0)):  # a duplicate card
        with pytest.raises(PresidentError):
            act(bad, db.uow())
    assert db.games[cmd.game_id].actions == [] and db.games[cmd.game_id].game.version == 0


def test_a_retry_with_its_idempotency_key_returns_the_first_result_and_plays_nothing() -> None:
    db = FakeDatabase()
    created = _create(db)
    cmd, _ = _move(db, created, idempotency_key="k1")
    first = act(cmd, db.uow())
    again = act(cmd, db.uow())
    assert (again.version, again.view) == (first.version, first.view)
    assert db.games[cmd.game_id].actions == [cmd.action]
    with pytest.raises(KeyReused, match="another action"):
        act(Act(cmd.game_id, cmd.token, "pass", cmd.version, "k1"), db.uow())
    with pytest.raises(KeyReused, match="at version 0, not 1"):  # later, the same action
        act(Act(cmd.game_id, cmd.token, cmd.action, 1, "k1"), db.uow())
    assert db.games[cmd.game_id].actions == [cmd.action]


@pytest.mark.parametrize("options", [{"players": 5}, {"rounds": 3}])
def test_an_option_that_contradicts_the_seats_or_rounds_is_refused(
        options: dict[str, int]) -> None:
    db = FakeDatabase()
    with pytest.raises(OptionsContradictSeats):
        create_game(CreateGame("classic", HUMANS, options=options, rounds=2), db.uow(),
                    LEVELS)
    agreeing = create_game(CreateGame("classic", HUMANS, options={"players": 4, "rounds": 2},
                                      rounds=2), db.uow(), LEVELS)
    assert db.games == {agreeing.game.game_id: db.games[agreeing.game.game_id]}


def test_events_are_numbered_and_read_after_a_number() -> None:
    db = FakeDatabase()
    created = _create(db)
    game_id = created.game.game_id
    act(_move(db, created)[0], db.uow())
    events, last = events_after(game_id, None, 0, db.reads())
    assert [e.seq for e in events] == list(range(1, last + 1))
    assert isinstance(events[-1].event, Played) and events[-1].version == 1
    later, _ = events_after(game_id, None, last - 1, db.reads())
    assert [e.seq for e in later] == [last]


def test_a_long_poll_with_nothing_new_waits_its_time_then_answers_empty() -> None:
    db = FakeDatabase()
    created = _create(db)
    reads = db.reads()
    _, last = events_after(created.game.game_id, None, 0, reads)
    events, _ = wait_for_events(created.game.game_id, None, last, 0.05, reads)
    assert events == [] and reads.waits and max(reads.waits) <= 0.05


def test_a_round_s_replay_starts_at_its_start_and_an_unplayed_round_is_not_found() -> None:
    db = FakeDatabase()
    created = _create(db)
    replay = round_events(created.game.game_id, None, 1, db.reads())
    assert isinstance(replay[0].event, RoundStarted) and replay[0].event.round_no == 1
    with pytest.raises(RoundNotFound, match="round 2"):
        round_events(created.game.game_id, None, 2, db.reads())


def test_games_are_listed_newest_first_a_page_at_a_time() -> None:
    moments = iter(datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=n)
                   for n in range(100))
    db = FakeDatabase(now=lambda: next(moments))
    ids = [_create(db).game.game_id for _ in range(5)]
    seen, cursor = [], None
    while True:
        page, cursor = list_games(None, 2, cursor, db.uow())
        seen += [g.game_id for g in page]
        if cursor is None:
            break
    assert seen == ids[::-1]
    with pytest.raises(BadCursor):
        list_games(None, 2, "not-ours", db.uow())
    with pytest.raises(BadStatus):
        list_games("finished", 2, None, db.uow())


def test_an_ai_turn_is_decided_from_the_seat_s_view_and_played_once() -> None:
    db = FakeDatabase()
    created = _create(db, (SeatSpec("ai", "normal"),) * 4)
    game_id, seat = created.game.game_id, created.game.view.to_act
    asked = []

    def decide_spy(view, engine):  # type: ignore[no-untyped-def]
        asked.append((view.seat, engine))
        return decide_here(view, engine)

    turn = Turn(game_id, seat, 0)
    assert take_ai_turn(turn, db.uow(), decide_spy, FALLBACK) is not None
    assert asked == [(seat, "normal")] and len(db.games[game_id].actions) == 1
    assert take_ai_turn(turn, db.uow(), decide_spy, FALLBACK) is None  # a redelivery
    assert len(asked) == 1 and len(db.games[game_id].actions) == 1


def test_the_inline_scheduler_plays_an_all_ai_series_to_its_end() -> None:
    db = FakeDatabase()
    play_inline(db)
    created = create_game(CreateGame("classic", (SeatSpec("ai", "easy"),) * 4, rounds=2,
                                     seed=3), db.uow(), LEVELS)
    game = db.games[created.game.game_id].game
    assert game.status == "over" and len(game.state.results) == 2
    snapshot, rebuilt = rebuilt_state(game.id, db.uow())
    assert snapshot == rebuilt
    assert check_all(db.uow) == (1, [])


def test_a_human_out_of_time_passes_or_the_fallback_plays_and_the_event_says_so() -> None:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    db = FakeDatabase(now=lambda: now)
    created = _create(db, turn_timeout_ms=1_000)
    game_id, seat = created.game.game_id, created.game.view.to_act
    turn = Turn(game_id, seat, 0)
    made = now
    now = made + timedelta(milliseconds=999)
    assert play_instead(turn, "turn_timeout", db.uow(), FALLBACK) is None
    now = made + timedelta(seconds=1)
    assert play_instead(turn, "turn_timeout", db.uow(), FALLBACK) is not None
    events, _ = events_after(game_id, None, 0, db.reads())
    note = next(e.event for e in events if isinstance(e.event, PlayedFor))
    policy = "pass" if db.games[game_id].actions == [str(PASS)] else FALLBACK.name
    assert note == PlayedFor(seat, "turn_timeout", policy)


def test_the_sweeper_sends_stalled_turns_again_once_each() -> None:
    clock = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    db = FakeDatabase(now=lambda: clock[0])
    ai = _create(db, (SeatSpec("ai", "hard"),) * 4)
    human = _create(db, turn_timeout_ms=10_000)
    _create(db)  # no time limit: never swept
    db.outbox.clear()  # (as if handed over and lost)
    clock[0] += timedelta(seconds=60)
    assert sweep(db.uow(), 60.0) == Sweep(0, 0)  # the AI's turn is due 60 s ago, not more
    clock[0] += timedelta(seconds=11)  # the human's time (10 s) is 61 s out too
    assert sweep(db.uow(), 60.0) == Sweep(1, 1)
    recorder = Recorder()
    relay_all(db, recorder)
    assert sorted(c[:2] for c in recorder.calls) == [("ai", ai.game.game_id),
                                                    ("human", human.game.game_id)]
    assert sorted(recorder.resent) == sorted([(ai.game.game_id, 0), (human.game.game_id, 0)])
    assert sweep(db.uow(), 60.0) == Sweep(0, 0)  # each is due now: no second live copy
    clock[0] += timedelta(seconds=61)
    assert sweep(db.uow(), 60.0) == Sweep(1, 1)