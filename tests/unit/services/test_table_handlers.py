"""Tables on fakes (``tests/fakes.py``): open seats, joins, the start, leaving, a seat
taken over after its time ran out too often, rematches, invite codes, table events."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from bootstrap import FALLBACK, decide_here
from engine import observe
from fakes import FakeDatabase, Recorder, play_inline, relay_all
from services.commands import Act, CreateGame, Join, ReadGame, SeatSpec, Start, Turn
from services.domain import (
    ANONYMOUS, INVITE_ALPHABET, ApiKey, Caller, PlayedFor, TableEvent, invite_hash,
    new_invite_code, service_event,
)
from services.errors import (
    BadToken, GameFull, GameNotFound, InviteNotFound, NotHost, NotWaiting, QuotaExceeded,
    SeriesNotOver,
)
from services.handlers.events import events_after
from services.handlers.games import create_game, read_game
from services.handlers.presence import TOUCH_EVERY_S, WINDOW_S, Presence, expire
from services.handlers.moves import act
from services.handlers.tables import retried, join, leave, rematch, start
from services.handlers.turns import play_instead, timed_out_in_a_row
from services.handlers.followups import hooks_of
from services.runtime.inline import InlineScheduler
from services.ports import VersionConflict
from services.views import CreatedGame, GameView
from workers.ai import LEVELS

KEY = Caller(ApiKey("k1", "app", frozenset({"games:create-human", "games:create-ai",
                                             "games:read"})))


def _create(db: FakeDatabase, *seats: SeatSpec, caller: Caller = ANONYMOUS,
            **kwargs: object) -> CreatedGame:
    return create_game(CreateGame("classic", seats, **kwargs),  # type: ignore[arg-type]
                       db.uow(), LEVELS, caller=caller, draw=lambda: 7)  # (others sit: drawn)


def _ai_turns(db: FakeDatabase) -> None:
    """Hand over what the outbox holds and play the AI turns it sets in motion."""
    inline = InlineScheduler(db.uow, decide_here, FALLBACK)
    relay_all(db, inline)
    inline.play_queued()


def _play_out(db: FakeDatabase, game_id: str, tokens: dict[int, str]) -> None:
    """Humans play the fallback's choice, the AI seats theirs, to the series' end."""
    _ai_turns(db)
    while (game := db.games[game_id].game).status != "over":
        seat = game.seat_to_act
        assert seat is not None and seat.kind == "human"
        action = FALLBACK.decide(observe(game.state, seat.seat))
        act(Act(game_id, tokens[seat.seat], str(action), game.version), db.uow())
        _ai_turns(db)


def _table_events(db: FakeDatabase, game_id: str) -> list[TableEvent]:
    events, _ = events_after(game_id, None, 0, db.reads())
    return [e.event for e in events if isinstance(e.event, TableEvent)]


def test_invite_codes_read_aloud_and_typed_back_any_way_open_the_same_game() -> None:
    code = new_invite_code()
    assert len(code) == 14 and set(code.replace("-", "")) <= set(INVITE_ALPHABET)
    typed = code.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert invite_hash(typed) == invite_hash(code) is not None
    assert invite_hash(code[:-1]) is None and invite_hash(code.replace(code[0], "U")) is None
    assert len({new_invite_code() for _ in range(1000)}) == 1000


@pytest.mark.parametrize("event", [
    TableEvent("seat_joined", 2, name="Ann"), TableEvent("game_started", filled=(1, 3),
                                                          engine="easy"),
    TableEvent("game_cancelled"), TableEvent("seat_left", 0),
    TableEvent("seat_taken_over", 1, engine="normal", reason="timeouts"),
    TableEvent("rematch_created", rematch="abc"), PlayedFor(1, "turn_timeout", "pass")])
def test_service_events_round_trip_through_their_stored_form(
        event: TableEvent | PlayedFor) -> None:
    assert service_event(event.to_dict()) == event
    assert service_event({"type": "played", "seat": 1, "play": "3C"}) is None


def test_a_waiting_game_starts_when_its_last_open_seat_is_taken() -> None:
    db = FakeDatabase()
    created = _create(db, SeatSpec("human"), SeatSpec("open"), SeatSpec("ai", "easy"))
    assert created.game.status == "waiting" and created.invite is not None
    recorder = Recorder()
    assert relay_all(db, recorder) == 0  # nobody's turn is set in motion yet
    seated = join(Join(created.invite, name="Bob"), db.uow(), ANONYMOUS)
    assert seated.seat == 1 and seated.game.status == "active"
    assert [e.type for e in _table_events(db, created.game.game_id)] == [
        "seat_joined", "game_started"]
    relay_all(db, recorder)
    assert len(recorder.calls) == (1 if created.game.view.to_act == 2 else 0)
    with pytest.raises(NotWaiting):
        join(Join(created.invite), db.uow(), ANONYMOUS)


def test_a_full_game_refuses_a_join_and_nothing_changes() -> None:
    db = FakeDatabase()
    created = _create(db, SeatSpec("human"), SeatSpec("open"), SeatSpec("open"))
    assert created.invite is not None
    join(Join(created.invite), db.uow(), ANONYMOUS)
    game_id = created.game.game_id
    start(Start(game_id, created.tokens[0], "easy"), db.uow(), ANONYMOUS, LEVELS)
    before = list(db.games[game_id].events)
    with pytest.raises(NotWaiting):
        join(Join(created.invite), db.uow(), ANONYMOUS)
    assert db.games[game_id].events == before
    full = _create(db, SeatSpec("open"), SeatSpec("open"), SeatSpec("open"))
    game = db.games[full.game.game_id].game
    game.seats = tuple(replace(s, kind="human") for s in game.seats)  # taken, still waiting
    with pytest.raises(GameFull):
        join(Join(full.invite or ""), db.uow(), ANONYMOUS)


def test_a_conflicting_write_is_tried_again_then_given_up() -> None:
    tries = []

    def change() -> int:
        tries.append(1)
        if len(tries) < 3:
            raise VersionConflict("someone else wrote")
        return len(tries)

    assert retried(change) == 3


def test_only_the_host_starts_and_a_started_game_plays_its_ai_fill() -> None:
    db = FakeDatabase()
    created = _create(db, SeatSpec("human"), SeatSpec("open"), SeatSpec("open"),
                      caller=KEY, visibility="public")
    game_id, host = created.game.game_id, created.tokens[0]
    assert created.invite is not None
    guest = join(Join(created.invite), db.uow(), ANONYMOUS).token
    with pytest.raises(NotHost):
        start(Start(game_id, guest), db.uow(), ANONYMOUS, LEVELS)
    other = Caller(ApiKey("k2", "other", KEY.key.scopes))  # type: ignore[union-attr]
    with pytest.raises(NotHost):  # (it may watch this public game)
        start(Start(game_id), db.uow(), other, LEVELS)
    private = _create(db, SeatSpec("open"), SeatSpec("open"), SeatSpec("open"), caller=KEY)
    with pytest.raises(GameNotFound):  # nor may it learn that a private game exists
        start(Start(private.game.game_id), db.uow(), other, LEVELS)
    started = start(Start(game_id, None, "hard"), db.uow(), KEY, LEVELS)
    assert [(s.kind, s.engine) for s in started.seats] == [
        ("human", None), ("human", None), ("ai", "hard")]
    assert _table_events(db, game_id)[-1] == TableEvent("game_started", filled=(2,),
                                                        engine="hard")
    with pytest.raises(NotWaiting):
        start(Start(game_id, host), db.uow(), ANONYMOUS, LEVELS)


def test_a_token_of_no_seat_tells_a_private_game_to_its_owner_s_key_only() -> None:
    db = FakeDatabase()
    private = _create(db, SeatSpec("human"), SeatSpec("ai", "easy"), SeatSpec("ai", "easy"),
                      caller=KEY)
    public = _create(db, SeatSpec("human"), SeatSpec("ai", "easy"), SeatSpec("ai", "easy"),
                     caller=KEY, visibility="public")
    elsewhere = public.tokens[0]  # a token of another game
    other = Caller(ApiKey("k2", "other", KEY.key.scopes))  # type: ignore[union-attr]
    game_id = private.game.game_id
    for caller in (ANONYMOUS, other):
        with pytest.raises(GameNotFound):
            read_game(ReadGame(game_id, elsewhere), db.reads(), caller=caller)
        with pytest.raises(GameNotFound):
            act(Act(game_id, elsewhere, "pass", 0), db.uow(), caller)
        with pytest.raises(GameNotFound):
            leave(game_id, elsewhere, db.uow(), caller)
    with pytest.raises(BadToken):  # its owner's key may know of it: the token is bad
        read_game(ReadGame(game_id, elsewhere), db.reads(), caller=KEY)
    with pytest.raises(BadToken):  # anybody may know of a public game
        read_game(ReadGame(public.game.game_id, private.tokens[0]), db.reads())


def test_a_seat_timed_out_three_times_in_a_row_is_taken_over() -> None:
    now = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    db = FakeDatabase(now=lambda: now[0])
    created = _create(db, SeatSpec("human"), SeatSpec("ai", "easy"), SeatSpec("ai", "easy"),
                      turn_timeout_ms=1_000, takeover="easy")
    game_id = created.game.game_id
    timeouts = 0
    play_inline(db)  # each commit's AI turns played at once
    _ai_turns(db)
    while (game := db.games[game_id].game).seats[0].kind == "human":
        assert game.seat_to_act is not None and game.seat_to_act.seat == 0
        now[0] += timedelta(seconds=2)
        with db.uow() as uow:
            assert timed_out_in_a_row(uow, game, 0) == timeouts
        assert play_instead(Turn(game_id, 0, game.version), "turn_timeout", db.uow(),
                            FALLBACK, take_over_after=3) is not None
        timeouts += 1
        _ai_turns(db)  # the AI seats play in between (and seat 0, once taken over)
    assert timeouts == 3
    final = db.games[game_id].game
    assert (final.seats[0].kind, final.seats[0].engine, final.seats[0].token_hash) == (
        "ai", "easy", None)
    assert _table_events(db, game_id) == [
        TableEvent("seat_taken_over", 0, engine="easy", reason="timeouts")]
    notes = [e.event for e in events_after(game_id, None, 0, db.reads())[0]
             if isinstance(e.event, PlayedFor)]
    assert len(notes) == 2  # the third time out, the AI took the seat over instead


def test_leaving_a_waiting_game_opens_the_seat_again() -> None:
    db = FakeDatabase()
    created = _create(db, SeatSpec("human"), SeatSpec("open"), SeatSpec("open"))
    assert created.invite is not None
    bob = join(Join(created.invite, name="Bob"), db.uow(), ANONYMOUS)
    left = leave(created.game.game_id, bob.token, db.uow())
    assert left.status == "waiting" and left.seats[1].kind == "open"
    again = join(Join(created.invite), db.uow(), ANONYMOUS)
    assert again.seat == 1


def test_a_rematch_keeps_ai_seats_and_waits_for_its_humans() -> None:
    db = FakeDatabase()
    created = _create(db, SeatSpec("human", name="Ann"), SeatSpec("human"),
                      SeatSpec("ai", "easy"), rounds=1)
    game_id = created.game.game_id
    with pytest.raises(SeriesNotOver):
        rematch(game_id, created.tokens[0], db.uow())
    _play_out(db, game_id, created.tokens)
    first = rematch(game_id, created.tokens[1], db.uow())
    assert first.game.status == "waiting" and first.seat == 1
    assert [(s.kind, s.name) for s in first.game.seats] == [
        ("open", "Ann"), ("human", None), ("ai", None)]
    with pytest.raises(InviteNotFound):  # its open seats are kept for its humans
        join(Join(new_invite_code()), db.uow(), ANONYMOUS)
    second = rematch(game_id, created.tokens[0], db.uow())
    assert second.game.game_id == first.game.game_id and second.game.status == "active"
    again = rematch(game_id, created.tokens[0], db.uow())
    assert again.game.game_id == first.game.game_id and again.token != second.token
    assert _table_events(db, game_id) == [TableEvent("rematch_created",
                                                     rematch=first.game.game_id)]


def test_a_seat_heard_from_is_connected_until_it_goes_quiet() -> None:
    now = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    ticks = [0.0]
    db = FakeDatabase(now=lambda: now[0])
    created = _create(db, SeatSpec("human"), SeatSpec("human"), SeatSpec("ai", "easy"))
    game_id, token = created.game.game_id, created.tokens[1]
    presence = Presence(db.uow, clock=lambda: ticks[0])
    reads: list[int] = []

    def seen() -> GameView:
        reads.append(1)
        return read_game(ReadGame(game_id, token), db.reads())

    presence.heard(game_id, token, seen)
    assert db.games[game_id].game.seats[1].connected
    assert not db.games[game_id].game.seats[0].connected
    for _ in range(50):  # a busy seat writes once per TOUCH_EVERY_S
        ticks[0] += 0.1
        presence.heard(game_id, token, seen)
    assert len(reads) == 1
    ticks[0] += TOUCH_EVERY_S
    presence.heard(game_id, token, seen)
    assert len(reads) == 2 and db.seen[(game_id, 1)] == now[0]
    now[0] += timedelta(seconds=WINDOW_S - 1)
    assert expire(db.uow) == 0
    now[0] += timedelta(seconds=2)
    assert expire(db.uow) == 1 and not db.games[game_id].game.seats[1].connected
    ticks[0] += WINDOW_S
    presence.heard(game_id, token, seen)  # back
    assert db.games[game_id].game.seats[1].connected
    assert [e.type for e in _table_events(db, game_id)] == [
        "seat_connected", "seat_disconnected", "seat_connected"]


def test_a_seat_change_leaves_the_turn_alone_unless_the_seat_to_act_changes_hands() -> None:
    now = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    db = FakeDatabase(now=lambda: now[0])
    for seed in range(20):  # a deal where a human seat leads
        created = create_game(CreateGame("classic", (SeatSpec("human"), SeatSpec("human"),
                                                     SeatSpec("ai", "easy")),
                                         turn_timeout_ms=10_000, takeover="easy"),
                              db.uow(), LEVELS, draw=lambda: seed)
        if created.game.view.to_act in (0, 1):
            break
    game_id, acting = created.game.game_id, created.game.view.to_act
    other = 1 - acting
    recorder = Recorder()
    relay_all(db, recorder)
    deadline = db.games[game_id].deadline
    now[0] += timedelta(seconds=5)
    leave(game_id, created.tokens[other], db.uow())
    assert relay_all(db, recorder) == 0  # no second timer, no AI turn
    assert db.games[game_id].deadline == deadline  # the acting seat's clock runs on
    leave(game_id, created.tokens[acting], db.uow())
    relay_all(db, recorder)
    assert recorder.calls[-1] == ("ai", game_id, acting, 0, "easy", 0.0)
    assert db.games[game_id].deadline is None


def test_leaving_and_taking_over_tell_the_owner_s_webhooks() -> None:
    db = FakeDatabase()
    created = _create(db, SeatSpec("human"), SeatSpec("human"), SeatSpec("ai", "easy"),
                      caller=KEY)
    game = db.games[created.game.game_id].game
    events = [TableEvent("seat_left", 1),
              TableEvent("seat_taken_over", 1, engine="normal", reason="left")]
    hooks = hooks_of(game, events, 7, turn=False)
    assert [(h.type, h.data["seq"], h.data["seat"]) for h in hooks] == [
        ("seat.left", 8, 1), ("seat.taken_over", 9, 1)]
    assert hooks[1].data["engine"] == "normal" and hooks[1].data["reason"] == "left"


def test_waiting_games_count_against_the_games_a_caller_may_hold() -> None:
    db = FakeDatabase()
    bounded = Caller(KEY.key, max_active_games=2)
    for _ in range(2):
        _create(db, SeatSpec("open"), SeatSpec("open"), SeatSpec("open"), caller=bounded)
    with pytest.raises(QuotaExceeded):
        _create(db, SeatSpec("open"), SeatSpec("open"), SeatSpec("open"), caller=bounded)
