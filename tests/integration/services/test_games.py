"""The service layer on a real database: games, seats, tokens, the action log, versions."""

from __future__ import annotations

import threading
from typing import Callable

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, func, select, text

from dealt import create_dealt
from engine import NotYourTurn, UnknownCard, WrongPhase
from engine.errors import CannotPassLead, IllegalAction
from databases import UowReads
from services.commands import Act, CreateGame, ReadGame, SeatSpec
from services.domain import hash_token
from services.errors import BadToken, GameNotFound, InvalidSeat, StaleVersion
from services.commands import Turn
from services.handlers.audit import rebuilt_state
from services.handlers.games import create_game, read_game
from services.handlers.moves import act
from services.views import GameView
from bootstrap import FALLBACK
from services.handlers.turns import take_ai_turn
from fakes import Told
from services.runtime.inline import InlineScheduler
from services.ports import UnitOfWork
from services.store.db import schema_readable
from services.store.models import ActionRow, Base
from workers.ai import decide, LEVELS

UowFactory = Callable[[], UnitOfWork]
HUMANS = (SeatSpec("human"),) * 4


def _new(uow_factory: UowFactory, seats: tuple[SeatSpec, ...] = HUMANS, **kwargs: object):  # type: ignore[no-untyped-def]
    cmd = CreateGame(kwargs.pop("preset", "classic"), seats, **kwargs)  # type: ignore[arg-type]
    return create_dealt(cmd, uow_factory(), engines=LEVELS)


def _turn(uow_factory: UowFactory, game_id: str, tokens: dict[int, str]) -> GameView:
    """The view of the seat to act."""
    spectator = read_game(ReadGame(game_id), UowReads(uow_factory))
    if spectator.status == "over":
        return spectator
    return read_game(ReadGame(game_id, tokens[spectator.view.to_act]), UowReads(uow_factory))


def _action_count(db: Engine, game_id: str) -> int:
    with db.connect() as c:
        return c.scalar(select(func.count()).select_from(ActionRow)
                        .where(ActionRow.game_id == game_id)) or 0


def test_migrations_are_current(db: Engine) -> None:
    assert schema_readable(db)


def test_the_migrations_build_what_the_models_describe(db: Engine) -> None:
    """Tables, columns, indexes (partial ones included) and keys alike."""
    with db.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []


def test_four_humans_play_a_series_and_the_log_rebuilds_the_snapshot(
        uow_factory: UowFactory, db: Engine) -> None:
    created = _new(uow_factory, rounds=2, seed=11)
    game_id = created.game.game_id
    moves = 0
    while True:
        turn = _turn(uow_factory, game_id, created.tokens)
        if turn.status == "over":
            break
        action = decide(turn.view, "normal")
        after = act(Act(game_id, created.tokens[turn.view.seat], str(action), turn.version),
                    uow_factory())
        assert after.version == turn.version + 1
        moves += 1
    assert moves == _action_count(db, game_id) > 50
    snapshot, rebuilt = rebuilt_state(game_id, uow_factory())
    assert snapshot == rebuilt and snapshot.is_over and len(snapshot.results) == 2


def test_one_human_and_three_inline_ais_finish_three_rounds_with_exchanges(
        uow_factory: UowFactory, inline: InlineScheduler) -> None:
    seats = (SeatSpec("human"), SeatSpec("ai", "easy"), SeatSpec("ai", "normal"),
             SeatSpec("ai", "hard"))
    created = create_dealt(CreateGame("classic", seats, rounds=3, seed=4), uow_factory(),
                          engines=LEVELS)
    token = created.tokens[0]
    assert set(created.tokens) == {0}
    while True:
        mine = read_game(ReadGame(created.game.game_id, token), UowReads(uow_factory))
        if mine.status == "over":
            break
        assert mine.view.my_turn  # the inline AIs have played up to the human's turn
        act(Act(mine.game_id, token, str(decide(mine.view, "easy")), mine.version),
            uow_factory())
    final, rebuilt = rebuilt_state(created.game.game_id, uow_factory())
    assert final == rebuilt and len(final.results) == 3
    assert any(e.automatic for r in final.results[1:] for e in r.exchanges)


def test_tokens_are_stored_hashed(uow_factory: UowFactory, db: Engine) -> None:
    created = _new(uow_factory)
    with db.connect() as c:
        stored = c.execute(text("SELECT seat, token_hash FROM seats")).all()
    assert {seat: h for seat, h in stored} == {s: hash_token(t) for s, t in created.tokens.items()}
    assert not set(created.tokens.values()) & {h for _, h in stored}


def test_a_token_reads_only_its_own_seat(uow_factory: UowFactory) -> None:
    created = _new(uow_factory)
    for seat, token in created.tokens.items():
        view = read_game(ReadGame(created.game.game_id, token), UowReads(uow_factory)).view
        assert view.seat == seat and len(view.hand) == 13
    spectator = read_game(ReadGame(created.game.game_id), UowReads(uow_factory)).view
    assert spectator.seat is None and spectator.hand == ()
    with pytest.raises(BadToken):
        read_game(ReadGame(created.game.game_id, "not-a-token"), UowReads(uow_factory))
    with pytest.raises(GameNotFound):
        read_game(ReadGame("0" * 32), UowReads(uow_factory))


@pytest.mark.parametrize("problem", ["not_your_turn", "stale", "unknown_card", "illegal",
                                     "wrong_phase", "bad_token"])
def test_a_rejected_action_changes_nothing(uow_factory: UowFactory, db: Engine,
                                           problem: str) -> None:
    created = _new(uow_factory, seed=3)
    game_id = created.game.game_id
    turn = _turn(uow_factory, game_id, created.tokens)
    other = created.tokens[(turn.view.seat + 1) % 4]
    token, text_, version, error = {
        "not_your_turn": (other, str(turn.view.legal_actions[0]), turn.version, NotYourTurn),
        "stale": (created.tokens[turn.view.seat], str(turn.view.legal_actions[0]), 7, StaleVersion),
        "unknown_card": (created.tokens[turn.view.seat], "ZZ", turn.version, UnknownCard),
        "illegal": (created.tokens[turn.view.seat], "pass", turn.version, CannotPassLead),
        "wrong_phase": (created.tokens[turn.view.seat], "give 3C 4C", turn.version, WrongPhase),
        "bad_token": ("nope", "pass", turn.version, BadToken),
    }[problem]
    with pytest.raises(error):
        act(Act(game_id, token, text_, version), uow_factory())
    again = _turn(uow_factory, game_id, created.tokens)
    assert again.version == turn.version and again.view == turn.view
    assert _action_count(db, game_id) == 0


def test_an_ai_seat_cannot_be_played_by_hand_nor_twice(uow_factory: UowFactory) -> None:
    seats = (SeatSpec("human"), SeatSpec("ai", "easy"), SeatSpec("human"), SeatSpec("human"))
    told = Told(uow_factory)
    created = create_dealt(CreateGame("cardverse", seats, seed=2), uow_factory(), engines=LEVELS)
    game_id = created.game.game_id
    while not told.calls:  # humans play until the AI seat is to act
        turn = _turn(uow_factory, game_id, created.tokens)
        act(Act(game_id, created.tokens[turn.view.seat], str(decide(turn.view, "easy")),
                turn.version), uow_factory())
    _, _, seat, version, *_ = told.calls[0]
    assert seat == 1
    turn = Turn(game_id, seat, version)
    played = take_ai_turn(turn, uow_factory(), decide, FALLBACK)
    assert played is not None and played.version == version + 1
    # the same request again (a redelivered task) is a no-op
    assert take_ai_turn(turn, uow_factory(), decide, FALLBACK) is None
    with pytest.raises(InvalidSeat):  # only configured engines may sit at a table
        _new(uow_factory, seats=(SeatSpec("ai", "grandmaster"),) + HUMANS[1:])


def test_two_moves_at_once_exactly_one_applies(uow_factory: UowFactory, db: Engine) -> None:
    created = _new(uow_factory, seed=8)
    game_id = created.game.game_id
    turn = _turn(uow_factory, game_id, created.tokens)
    token = created.tokens[turn.view.seat]
    moves = [str(a) for a in turn.view.legal_actions[:2]]
    outcomes: list[object] = []
    barrier = threading.Barrier(len(moves))

    def move(text_: str) -> None:
        barrier.wait()
        try:
            outcomes.append(act(Act(game_id, token, text_, turn.version), uow_factory()))
        except (StaleVersion, IllegalAction) as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=move, args=(m,)) for m in moves]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(o, GameView) for o in outcomes) == 1
    assert sum(isinstance(o, StaleVersion) for o in outcomes) == 1
    assert _action_count(db, game_id) == 1
    snapshot, rebuilt = rebuilt_state(game_id, uow_factory())
    assert snapshot == rebuilt


def test_check_all_finds_a_snapshot_that_drifted_from_its_log(uow_factory: UowFactory,
                                                              db: Engine) -> None:
    from services.handlers.audit import check_all

    created = _new(uow_factory, seed=31)
    game_id = created.game.game_id
    turn = _turn(uow_factory, game_id, created.tokens)
    act(Act(game_id, created.tokens[turn.view.seat], str(turn.view.legal_actions[0]),
            turn.version), uow_factory())
    assert check_all(uow_factory) == (1, [])
    with db.begin() as c:  # corrupt the stored log: the snapshot no longer follows from it
        c.execute(text("DELETE FROM actions WHERE game_id = :g"), {"g": game_id})
    assert check_all(uow_factory) == (1, [game_id])


def test_ai_time_is_counted_by_owner_and_hour(uow_factory: UowFactory) -> None:
    """The store's side of the AI quota: an upsert that adds up, by owner and hour."""
    from datetime import datetime, timedelta, timezone

    hour = datetime(2026, 12, 1, 20, tzinfo=timezone.utc)
    for owner, when, seconds in (("k1", hour, 1.5), ("k1", hour, 2.0),
                                 ("k1", hour - timedelta(hours=2), 50.0), ("k2", hour, 9.0)):
        with uow_factory() as uow:
            uow.quotas.add_ai_time(owner, when, seconds)
            uow.commit()
    with uow_factory() as uow:
        assert uow.quotas.ai_time_since("k1", hour - timedelta(hours=1)) == 3.5
        assert uow.quotas.ai_time_since("k1", hour - timedelta(hours=2)) == 53.5
        assert uow.quotas.ai_time_since("nobody", hour) == 0.0
