"""The background runner (no broker): a create or a move answers before any AI plays;
the series goes on behind it; a failing engine is replaced by the fallback; a new
process picks up the turns an old one left waiting."""

from __future__ import annotations

import threading

from bootstrap import FALLBACK, decide_here
from fakes import FakeDatabase
from services.runtime.background import BackgroundScheduler
from services.commands import CreateGame, SeatSpec
from services.domain import PlayedFor
from services.handlers.games import create_game
from services.runtime.relay import Relay
from workers.ai import LEVELS


def _easy(view, engine):  # type: ignore[no-untyped-def]
    return decide_here(view, "easy")  # whatever the seat's level: quick


EXPERTS = (SeatSpec("ai", "expert"),) * 8


def _relayed(db: FakeDatabase, scheduler: BackgroundScheduler) -> BackgroundScheduler:
    """As ``bootstrap`` wires it: each commit's outbox handed to the runner."""
    db.outbox_written = Relay(db.uow, scheduler).drain
    return scheduler


def test_a_create_with_eight_ai_seats_answers_before_any_ai_plays_and_the_series_ends() -> None:
    db, gate = FakeDatabase(), threading.Event()

    def held(view, engine):  # type: ignore[no-untyped-def]
        gate.wait(10)  # no AI answers until the request has answered
        return _easy(view, engine)

    scheduler = _relayed(db, BackgroundScheduler(db.uow, held, FALLBACK))
    created = create_game(CreateGame("classic", EXPERTS, rounds=2, seed=1), db.uow(),
                          LEVELS)
    assert created.game.version == 0 and db.games[created.game.game_id].actions == []
    gate.set()
    scheduler.join()
    game = db.games[created.game.game_id].game
    assert game.status == "over" and len(game.state.results) == 2


def test_an_engine_that_fails_is_replaced_by_the_fallback_and_the_series_goes_on() -> None:
    db, calls = FakeDatabase(), []

    def broken(view, engine):  # type: ignore[no-untyped-def]
        calls.append(engine)
        raise RuntimeError("the engine fell over")

    scheduler = _relayed(db, BackgroundScheduler(db.uow, broken, FALLBACK))
    created = create_game(CreateGame("classic", (SeatSpec("ai", "hard"),) * 4, rounds=1,
                                     seed=2), db.uow(), LEVELS)
    scheduler.join()
    stored = db.games[created.game.game_id]
    assert stored.game.status == "over" and len(calls) == len(stored.actions)
    notes = [e for _, _, e in stored.events if isinstance(e, PlayedFor)]
    assert len(notes) == len(stored.actions) and notes[0].reason == "ai_failed"


def test_a_new_process_picks_up_the_turns_an_old_one_left_waiting() -> None:
    db = FakeDatabase()
    left = create_game(CreateGame("classic", (SeatSpec("ai", "normal"),) * 4, rounds=1,
                                  seed=3), db.uow(), LEVELS)  # nobody played it
    assert db.games[left.game.game_id].actions == []
    scheduler = _relayed(db, BackgroundScheduler(db.uow, _easy, FALLBACK))
    assert scheduler.recover() == 1
    scheduler.join()
    assert db.games[left.game.game_id].game.status == "over"
    assert scheduler.recover() == 0


def test_a_database_not_ready_at_start_up_does_not_stop_the_service() -> None:
    def broken():  # type: ignore[no-untyped-def]
        raise RuntimeError("no such table: games")

    assert BackgroundScheduler(broken, _easy, FALLBACK).recover() == 0
