"""Review jobs on SQLite and PostgreSQL (``handlers.reviews`` on the store): asked for
once, computed once, taken up again when a worker is lost, sent again when its task is
lost but never piled up behind a backlog, failed once lost too often."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Iterator

import pytest
from sqlalchemy import Engine, select, update

from apps import inline_app
from bootstrap import AdviserHere
from engine import View, apply, new_series, observe
from engine.plays import Action
from services.commands import ReviewPolicy
from services.domain import ANONYMOUS, Hint
from services.errors import QuotaExceeded, Unavailable
from services.handlers.reviews import (
    ATTEMPTS, request_review, review_round, send_stale, weigh_round,
)
from services.store import Store
from services.store.models import ReviewRow
from played import new_game, play_until

POLICY = ReviewPolicy(budget_ms=10.0, expires_s=60.0)


class Sent:
    """A ``ReviewQueue`` that only records what it is handed."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []

    def review(self, game_id: str, round_no: int) -> None:
        self.sent.append((game_id, round_no))


class Counting(AdviserHere):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def advise(self, view: View, level: str, seed: int, budget_ms: float | None,
               also: Action | None = None) -> Hint:
        self.calls += 1
        return super().advise(view, level, seed, budget_ms, also)


class Unreachable:
    def advise(self, *_: Any, **__: Any) -> Hint:
        raise Unavailable("the AI workers cannot be reached")


@pytest.fixture
def finished(db: Engine) -> Iterator[tuple[str, dict[str, str]]]:
    """A game whose first round is over (two humans, one AI)."""
    with inline_app(db).test_client() as client:
        game_id, tokens = new_game(client)
        play_until(client, game_id, tokens, rounds_over=1)
        yield game_id, tokens


def _ask(db: Engine, game_id: str, token: str, queue: Sent) -> str:
    store = Store(db)
    return request_review(game_id, 1, token, ANONYMOUS, store.reads, store.uow, queue).state


def _expire_lease(db: Engine) -> None:
    with db.begin() as c:
        c.execute(update(ReviewRow).values(
            lease_until=datetime.now(timezone.utc) - timedelta(seconds=1)))


def _row(db: Engine) -> Any:
    with db.connect() as c:
        return c.execute(select(ReviewRow)).one()


def test_a_review_is_queued_once_and_computed_once(db: Engine,
                                                   finished: tuple[str, dict[str, str]]) -> None:
    game_id, tokens = finished
    queue, adviser, uow = Sent(), Counting(), Store(db).uow
    assert _ask(db, game_id, tokens["0"], queue) == "queued"
    assert _ask(db, game_id, tokens["1"], queue) == "queued"
    assert queue.sent == [(game_id, 1)]  # handed over once
    done = review_round(game_id, 1, uow, adviser, POLICY)
    assert done is not None and done.state == "done" and adviser.calls > 0
    calls = adviser.calls
    assert review_round(game_id, 1, uow, adviser, POLICY) is None  # a copy claims nothing
    assert review_round("", None, uow, adviser, POLICY) is None
    assert _ask(db, game_id, tokens["0"], queue) == "done"
    assert adviser.calls == calls and queue.sent == [(game_id, 1)]
    assert _row(db).attempts == 1


def test_a_review_lost_with_its_worker_is_taken_up_again(
        db: Engine, finished: tuple[str, dict[str, str]]) -> None:
    game_id, tokens = finished
    queue, uow = Sent(), Store(db).uow
    _ask(db, game_id, tokens["0"], queue)
    with uow() as unit:  # a worker claims it, then dies
        assert unit.reviews.claim(game_id, 1, POLICY.lease_s) is not None
        unit.commit()
    assert review_round(game_id, 1, uow, Counting(), POLICY) is None  # its lease holds
    assert send_stale(uow, queue, ReviewPolicy(10.0, expires_s=0.0)) == 0  # (idem)
    _expire_lease(db)
    assert send_stale(uow, queue, ReviewPolicy(10.0, expires_s=0.0)) == 1
    assert queue.sent == [(game_id, 1)] * 2
    done = review_round(game_id, 1, uow, Counting(), POLICY)
    assert done is not None and done.state == "done"
    assert _row(db).attempts == 2 and _row(db).state == "done"
    assert send_stale(uow, queue, ReviewPolicy(10.0, expires_s=0.0)) == 0  # done: never


def test_a_backlog_is_sent_again_once_an_expiry_not_at_every_sweep(
        db: Engine, finished: tuple[str, dict[str, str]]) -> None:
    game_id, tokens = finished
    queue, uow = Sent(), Store(db).uow
    _ask(db, game_id, tokens["0"], queue)
    for _ in range(3):  # sweeps within the task's expiry: it may still be waiting its turn
        assert send_stale(uow, queue, POLICY) == 0
    assert send_stale(uow, queue, ReviewPolicy(10.0, expires_s=0.0)) == 1  # expired: again
    assert send_stale(uow, queue, POLICY) == 0  # and not again within the new expiry
    assert len(queue.sent) == 2


def test_a_review_whose_runs_keep_being_lost_fails(
        db: Engine, finished: tuple[str, dict[str, str]]) -> None:
    game_id, tokens = finished
    queue, uow = Sent(), Store(db).uow
    _ask(db, game_id, tokens["0"], queue)
    for attempt in range(1, ATTEMPTS + 1):
        assert review_round(game_id, 1, uow, Unreachable(), POLICY) is None  # AI down
        assert (_row(db).state, _row(db).attempts) == ("running", attempt)
        _expire_lease(db)
    failed = review_round(game_id, 1, uow, Counting(), POLICY)
    assert failed is not None and failed.state == "failed" and failed.error
    assert _row(db).state == "failed" and _row(db).result["decisions"] == []


def test_expert_is_handed_each_reviewed_seat_s_view_at_the_time_and_nothing_more(
        db: Engine, finished: tuple[str, dict[str, str]]) -> None:
    game_id, _ = finished
    game = Store(db).reads.get(game_id)
    assert game is not None

    class Recording(Counting):
        def __init__(self) -> None:
            super().__init__()
            self.views: list[View] = []

        def advise(self, view: View, level: str, seed: int, budget_ms: float | None,
                   also: Action | None = None) -> Hint:
            self.views.append(view)
            assert also in view.legal_actions  # the action taken, from that very position
            return super().advise(view, level, seed, budget_ms, also)

    adviser = Recording()
    decisions = weigh_round(game, 1, adviser, 10.0)
    state, expected = new_series(game.state.rules, game.state.seed), []
    for entry, decision in zip(game.state.log_entries(), decisions):
        view = observe(state, entry.seat)
        if entry.seat in (0, 1) and len(view.legal_actions) > 1:  # the humans' choices
            expected.append(view)
        assert decision.best is None or entry.seat in (0, 1)  # the AI seat is not reviewed
        state, _ = apply(state, entry.action)
    assert adviser.views == expected and expected


def test_an_owner_has_at_most_so_many_reviews_waiting(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("services.handlers.reviews.OPEN_PER_OWNER", 2)
    with inline_app(db).test_client() as client:
        game_id, tokens = new_game(client, rounds=3)
        play_until(client, game_id, tokens, rounds_over=3)
    store, queue = Store(db), Sent()

    def ask(round_no: int) -> str:
        return request_review(game_id, round_no, tokens["0"], ANONYMOUS, store.reads,
                              store.uow, queue).state

    assert ask(1) == ask(2) == "queued"
    with pytest.raises(QuotaExceeded):
        ask(3)
    assert ask(1) == "queued"  # (one asked already is no new one)
    assert review_round(game_id, 1, store.uow, Counting(), POLICY) is not None  # one done
    assert ask(3) == "queued"
    assert len(queue.sent) == 3
