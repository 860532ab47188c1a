"""Round reviews on fakes (``tests/fakes.py``): asked twice, one review and one
hand-over; an owner's open reviews are bounded; computing it hands the adviser each
reviewed seat's view and nothing else, charges the owner, and a review whose runs keep
being lost fails rather than run for ever; the sweeper sends lost ones again."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from engine import View, apply, legal_actions
from engine.plays import Action
from fakes import FakeDatabase
from services.commands import CreateGame, ReviewPolicy, SeatSpec
from services.domain import ANONYMOUS, ApiKey, Caller, Hint, Review
from services.errors import QuotaExceeded
from services.handlers.games import create_game
from services.handlers.reviews import (
    ATTEMPTS, OPEN_PER_OWNER, request_review, review_round, send_stale,
)
from workers.ai import LEVELS

POLICY = ReviewPolicy(budget_ms=5.0, expires_s=60.0)
KEY = Caller(ApiKey("k1", "app", frozenset({"games:create-human", "games:read"})))


class Queue:
    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []

    def review(self, game_id: str, round_no: int) -> None:
        self.sent.append((game_id, round_no))


class Easy:
    """An adviser answering at once (the first legal action), noting every view."""

    def __init__(self) -> None:
        self.views: list[View] = []

    def advise(self, view: View, level: str, seed: int, budget_ms: float | None,
               also: Action | None = None) -> Hint:
        self.views.append(view)
        return Hint(level, str(view.legal_actions[0]), ())


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.at


def _played(db: FakeDatabase, seed: int = 3, caller: Caller = ANONYMOUS) -> tuple[str, str]:
    """A game of two humans and an AI whose first round is over; a human's token."""
    seats = (SeatSpec("human"), SeatSpec("human"), SeatSpec("ai", "easy"))
    created = create_game(CreateGame("classic", seats, rounds=3), db.uow(), LEVELS,
                          caller=caller, draw=lambda: seed)
    stored, rng = db.games[created.game.game_id], random.Random(seed)
    state = stored.game.state
    while state.round_no == 1:
        state, _ = apply(state, rng.choice(list(legal_actions(state))))
    stored.game = replace(stored.game, state=state)
    return created.game.game_id, created.tokens[0]


def test_asked_twice_a_round_is_reviewed_once_and_handed_over_once() -> None:
    db, queue = FakeDatabase(), Queue()
    game_id, token = _played(db)
    first = request_review(game_id, 1, token, ANONYMOUS, db.reads(), db.uow, queue)
    again = request_review(game_id, 1, token, ANONYMOUS, db.reads(), db.uow, queue)
    assert first.state == again.state == "queued"
    assert queue.sent == [(game_id, 1)] and len(db.reviews) == 1


def test_an_owner_has_a_bounded_number_of_reviews_open() -> None:
    db, queue = FakeDatabase(), Queue()
    game_id, token = _played(db, caller=KEY)
    for n in range(OPEN_PER_OWNER):
        db.reviews[(f"other{n}", 1)] = Review(f"other{n}", 1, "queued", "k1", Clock()())
    with pytest.raises(QuotaExceeded):
        request_review(game_id, 1, token, KEY, db.reads(), db.uow, queue)
    assert (game_id, 1) not in db.reviews and queue.sent == []


def test_a_review_weighs_each_human_decision_from_that_seat_s_view() -> None:
    db, queue, adviser = FakeDatabase(), Queue(), Easy()
    game_id, token = _played(db)
    request_review(game_id, 1, token, ANONYMOUS, db.reads(), db.uow, queue)
    done = review_round(game_id, 1, db.uow, adviser, POLICY)
    assert done is not None and done.state == "done" and done.seats == (0, 1)
    assert db.reviews[(game_id, 1)].state == "done"
    state = db.games[game_id].game.state
    assert adviser.views and {v.seat for v in adviser.views} <= {0, 1}  # never the AI's
    replayed = {(v.seat, len(v.history)) for v in adviser.views}
    assert len(replayed) == len(adviser.views)  # each decision once, at its own moment
    assert {d.seat for d in done.decisions} == {0, 1, 2}  # every decision is listed
    assert {d.seat for d in done.decisions if d.best is not None} == {0, 1}  # humans weighed
    assert set(done.totals) == {0, 1}
    assert review_round(game_id, 1, db.uow, adviser, POLICY) is None  # done: not again
    assert state.round_no == 2


def test_a_review_whose_runs_keep_being_lost_fails() -> None:
    clock = Clock()
    db, queue = FakeDatabase(now=clock), Queue()
    game_id, token = _played(db)
    request_review(game_id, 1, token, ANONYMOUS, db.reads(), db.uow, queue)
    for _ in range(ATTEMPTS):  # each run's worker dies: its lease runs out
        with db.uow() as uow:
            assert uow.reviews.claim(game_id, 1, POLICY.lease_s) is not None
            uow.commit()
        clock.at += timedelta(seconds=POLICY.lease_s + 1)
    failed = review_round(game_id, 1, db.uow, Easy(), POLICY)
    assert failed is not None and failed.state == "failed"
    assert db.reviews[(game_id, 1)].state == "failed"


def test_the_sweeper_sends_a_lost_review_again_once_an_expiry() -> None:
    clock = Clock()
    db, queue = FakeDatabase(now=clock), Queue()
    game_id, token = _played(db)
    request_review(game_id, 1, token, ANONYMOUS, db.reads(), db.uow, queue)
    assert send_stale(db.uow, queue, POLICY) == 0  # just sent
    clock.at += timedelta(seconds=POLICY.expires_s + 1)
    assert send_stale(db.uow, queue, POLICY) == 1
    assert send_stale(db.uow, queue, POLICY) == 0  # not twice in one expiry
    assert queue.sent == [(game_id, 1), (game_id, 1)]
