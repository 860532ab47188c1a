"""Client keys on fakes of the ports: issued once, stored hashed, revoked; a key's scopes
say which games it may create, and it sees its own games only."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from bootstrap import FALLBACK, decide_here
from fakes import FakeDatabase, play_inline
from services.commands import CreateGame, CreateKey, ReadGame, SeatSpec, Turn
from services.domain import ANONYMOUS, Caller, PlayedFor, hash_token, origin_of
from services.errors import (
    BadKey, BadRate, BadScope, GameNotFound, KeyNotFound, MissingScope, QuotaExceeded,
)
from services.handlers.events import events_after
from services.handlers.games import create_game, list_games, read_game
from services.handlers.keys import PREFIX, authenticate, create_key, list_keys, revoke_key
from services.handlers.quotas import hour_of
from services.handlers.turns import take_ai_turn
from workers.ai import LEVELS

ALL = ("games:create-human", "games:create-ai", "games:read")
HUMANS = (SeatSpec("human"),) * 4
AIS = (SeatSpec("ai", "easy"),) * 4


def _key(db: FakeDatabase, scopes: tuple[str, ...] = ALL) -> tuple[Caller, str]:
    key, secret = create_key(CreateKey("app", scopes), db.uow())
    return Caller(key), secret


def test_a_key_is_shown_once_and_stored_as_its_hash_only() -> None:
    db = FakeDatabase()
    caller, secret = _key(db)
    assert secret.startswith(PREFIX) and len(secret) > 40
    assert list(db.keys_by_hash) == [hash_token(secret)]  # never the secret itself
    assert authenticate(secret, db.uow()) == caller.key
    assert [k.id for k in list_keys(db.uow())] == [caller.key.id]  # type: ignore[union-attr]
    with pytest.raises(BadKey):
        authenticate(secret + "x", db.uow())


def test_a_revoked_key_opens_nothing() -> None:
    db = FakeDatabase()
    caller, secret = _key(db)
    revoke_key(caller.key.id, db.uow())  # type: ignore[union-attr]
    with pytest.raises(BadKey):
        authenticate(secret, db.uow())
    assert list_keys(db.uow())[0].revoked
    with pytest.raises(KeyNotFound):
        revoke_key("nope", db.uow())


@pytest.mark.parametrize("scopes", [(), ("games:delete",), ("games:read", "admin")])
def test_a_key_has_known_scopes_only(scopes: tuple[str, ...]) -> None:
    db = FakeDatabase()
    with pytest.raises(BadScope):
        create_key(CreateKey("app", scopes), db.uow())
    assert db.keys_by_hash == {}


@pytest.mark.parametrize("rate", ["", "600", "600/fortnight", "0/minute", "ten/minute",
                                  "600/minute; DROP"])
def test_a_key_rate_is_a_count_per_unit(rate: str) -> None:
    db = FakeDatabase()
    with pytest.raises(BadRate):
        create_key(CreateKey("app", ("games:read",), rate=rate), db.uow())
    assert db.keys_by_hash == {}
    key, _ = create_key(CreateKey("app", ("games:read",), rate="600/minute"), db.uow())
    assert key.rate == "600/minute"


def test_ai_only_games_need_their_own_scope() -> None:
    db = FakeDatabase()
    humans_only, _ = _key(db, ("games:create-human",))
    create_game(CreateGame("classic", HUMANS), db.uow(), LEVELS, caller=humans_only)
    with pytest.raises(MissingScope, match="games:create-ai"):
        create_game(CreateGame("classic", AIS), db.uow(), LEVELS,
                    caller=humans_only)
    ai_only, _ = _key(db, ("games:create-ai",))
    with pytest.raises(MissingScope, match="games:create-human"):
        create_game(CreateGame("classic", HUMANS), db.uow(), LEVELS, caller=ai_only)
    assert len(db.games) == 1


def test_a_key_lists_and_watches_its_own_games_only() -> None:
    db = FakeDatabase()
    mine, _ = _key(db)
    theirs, _ = _key(db)
    made = {caller: create_game(CreateGame("classic", HUMANS), db.uow(), LEVELS,
                                caller=caller) for caller in (mine, theirs, ANONYMOUS)}
    for caller, created in made.items():
        page, _ = list_games(None, 10, None, db.uow(), caller)
        assert [g.game_id for g in page] == [created.game.game_id]
    other = made[theirs].game.game_id
    with pytest.raises(GameNotFound):
        read_game(ReadGame(other), db.reads(), caller=mine)
    with pytest.raises(GameNotFound):
        events_after(other, None, 0, db.reads(), caller=mine)
    token = made[theirs].tokens[0]  # a seat token opens its seat whoever asks
    assert read_game(ReadGame(other, token), db.reads(), caller=mine).seat == 0
    no_read, _ = _key(db, ("games:create-human",))
    with pytest.raises(MissingScope):
        list_games(None, 10, None, db.uow(), no_read)


def test_a_caller_holds_at_most_its_quota_of_games_under_way() -> None:
    db = FakeDatabase()
    key, _ = _key(db)
    capped = Caller(key.key, max_active_games=2)
    made = [create_game(CreateGame("classic", HUMANS), db.uow(), LEVELS,
                        caller=capped) for _ in range(2)]
    with pytest.raises(QuotaExceeded):
        create_game(CreateGame("classic", HUMANS), db.uow(), LEVELS, caller=capped)
    assert len(db.games) == 2
    stranger = Caller(origin=origin_of("192.0.2.7"), max_active_games=2)  # counted apart
    create_game(CreateGame("classic", HUMANS), db.uow(), LEVELS, caller=stranger)
    play_inline(db)
    finished = create_game(CreateGame("classic", AIS, rounds=1), db.uow(), LEVELS,
                           caller=stranger)
    assert db.games[finished.game.game_id].game.status == "over"  # over: not held
    create_game(CreateGame("classic", HUMANS), db.uow(), LEVELS, caller=stranger)
    assert [g.game_id for g in list_games(None, 10, None, db.uow(), capped)[0]] == \
        [m.game.game_id for m in reversed(made)]


def test_games_with_ai_seats_are_refused_once_the_hour_s_ai_time_is_used() -> None:
    db = FakeDatabase()
    key, _ = _key(db)
    caller = Caller(key.key, ai_seconds_per_hour=3)
    made = create_game(CreateGame("classic", AIS), db.uow(), LEVELS, caller=caller)
    game_id, to_act = made.game.game_id, made.game.view.to_act
    ticks = iter([10.0, 11.5, 20.0, 21.5])  # each decision "takes" 1.5 s of this clock
    for version in (0, 1):
        seat = db.games[game_id].game.state.to_act
        assert take_ai_turn(Turn(game_id, seat, version), db.uow(), decide_here,
                            FALLBACK, clock=lambda: next(ticks)) is not None
    this_hour = hour_of(datetime.now(timezone.utc))
    assert to_act >= 0 and db.ai_time == {(key.key.id, this_hour): 3.0}  # type: ignore[union-attr]
    with pytest.raises(QuotaExceeded, match="AI thinking"):
        create_game(CreateGame("classic", AIS), db.uow(), LEVELS, caller=caller)
    assert len(db.games) == 1  # nothing created
    # humans only ask for no AI time; another key's time is its own
    create_game(CreateGame("classic", HUMANS), db.uow(), LEVELS, caller=caller)
    other, _ = _key(db)
    create_game(CreateGame("classic", AIS), db.uow(), LEVELS,
                caller=Caller(other.key, ai_seconds_per_hour=3))


def test_a_game_under_way_plays_the_fallback_once_its_owner_s_ai_time_is_used() -> None:
    db = FakeDatabase()
    key, _ = _key(db)
    made = create_game(CreateGame("classic", AIS), db.uow(), LEVELS,
                       caller=Caller(key.key, ai_seconds_per_hour=3))
    game_id = made.game.game_id
    ticks = iter([10.0, 11.5, 20.0, 21.5])  # two decisions of 1.5 s: the hour's 3 s used

    def turn() -> Turn:
        game = db.games[game_id].game
        return Turn(game_id, game.state.to_act, game.version)

    for _ in range(2):
        assert take_ai_turn(turn(), db.uow(), decide_here, FALLBACK,
                            clock=lambda: next(ticks)) is not None

    def never(view: object, level: str) -> object:
        raise AssertionError("the engine was asked past the owner's AI time")

    seat = turn().seat
    played = take_ai_turn(turn(), db.uow(), never, FALLBACK)  # type: ignore[arg-type]
    assert played is not None and played.version == 3  # the game goes on, at once
    events, _ = events_after(game_id, None, 0, db.reads(), caller=Caller(key.key))
    assert [e.event for e in events if isinstance(e.event, PlayedFor)] == [
        PlayedFor(seat, "ai_quota", FALLBACK.name)]
    assert sum(db.ai_time.values()) == 3.0  # the fallback's moves cost the owner nothing
    # a game of an owner with time left still asks its engine
    other, _ = _key(db)
    theirs = create_game(CreateGame("classic", AIS), db.uow(), LEVELS,
                         caller=Caller(other.key, ai_seconds_per_hour=3)).game
    with pytest.raises(AssertionError, match="AI time"):
        take_ai_turn(Turn(theirs.game_id, theirs.view.to_act, 0), db.uow(), never, FALLBACK)  # type: ignore[arg-type]
