"""Hints over HTTP, on SQLite and PostgreSQL: the level's choice for the seat to act,
legal and what the level decides from that view; what Hard weighed; nothing played;
refused when the game forbids hints, out of turn, past the seat's limit, past the
owner's AI time and while the AI pool (no broker) is full; thought in the pool's child
process from the seat's view only."""

from __future__ import annotations

import os
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import deal_next, inline_app
from engine import View, observe, parse_action
from engine.plays import Action
from services.commands import CreateKey
from services.handlers.keys import create_key
from services.handlers.quotas import ai_time_used, hour_of
from services.store import Store
from test_http import assert_problem, bearer
from workers.ai import Budget, decide
from workers.ai.processes import Analysis, Processes

SEATS = [{"kind": "human"}, {"kind": "human"}, {"kind": "ai", "engine": "easy"}]


@pytest.fixture
def client(db: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[FlaskClient]:
    monkeypatch.setenv("PRESIDENT_RATE_STORAGE", "memory://")
    monkeypatch.setenv("PRESIDENT_HINTS_RATE_SEAT", "5/hour")
    with inline_app(db).test_client() as c:
        yield c


def _acting(client: FlaskClient, **extra: Any) -> tuple[str, str, dict[str, Any]]:
    """A game, and the token of the human seat to act, with its view."""
    for seed in range(30):
        deal_next(client.application, seed)
        created = client.post("/v1/games", json={"preset": "classic", "seats": SEATS,
                                                 **extra}).get_json()
        game_id = created["game"]["game_id"]
        for token in created["tokens"].values():
            game = client.get(f"/v1/games/{game_id}", headers=bearer(token)).get_json()
            if game["view"]["legal_actions"]:
                return game_id, token, game
    raise AssertionError("no game where a human leads")


def test_a_hint_is_the_level_s_legal_choice_and_plays_nothing(client: FlaskClient,
                                                              db: Engine) -> None:
    game_id, token, game = _acting(client)
    answer = client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                         json={"level": "hard", "budget_ms": 200, "seed": 7})
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["action"] in game["view"]["legal_actions"]
    assert len(body["candidates"]) >= 2
    assert body["action"] in {c["action"] for c in body["candidates"]}
    assert all(c["simulations"] >= 1 and 0 <= c["expected_points"] <= 3
               for c in body["candidates"])
    normal = client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                         json={"level": "normal"}).get_json()
    stored = Store(db).reads.get(game_id)
    assert stored is not None and stored.version == game["version"]  # nothing played
    seat = game["view"]["seat"]
    assert parse_action(normal["action"]) == decide(observe(stored.state, seat), "normal")
    assert normal["candidates"] == []


def test_hints_are_refused_where_they_must_be(client: FlaskClient, db: Engine) -> None:
    game_id, token, game = _acting(client, hints=False)
    assert game["hints"] is False
    assert_problem(client.post(f"/v1/games/{game_id}/hint", headers=bearer(token), json={}),
                   403, "hints_forbidden")
    game_id, token, _ = _acting(client)
    other = next(t for t in client.post("/v1/games", json={
        "preset": "classic", "seats": SEATS}).get_json()["tokens"].values())
    assert_problem(client.post(f"/v1/games/{game_id}/hint", headers=bearer(other), json={}),
                   401, "bad_token")
    assert_problem(client.post(f"/v1/games/{game_id}/hint", json={}), 401, "bad_token")
    assert_problem(client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                               json={"level": "grandmaster"}), 400, "invalid_body")
    assert_problem(client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                               json={"budget_ms": 60_000}), 400, "invalid_body")
    for _ in range(5):  # the seat's limit is 5 an hour here (those refused as bad bodies
        # above were never counted)
        assert client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                           json={"level": "easy"}).status_code == 200
    assert_problem(client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                               json={"level": "easy"}), 429, "rate_limited")


def test_a_seat_not_to_act_gets_no_hint(client: FlaskClient) -> None:
    deal_next(client.application, 1)
    created = client.post("/v1/games", json={"preset": "classic",
                                             "seats": [{"kind": "human"}] * 3}).get_json()
    game_id = created["game"]["game_id"]
    to_act = client.get(f"/v1/games/{game_id}").get_json()["view"]["to_act"]
    waiting = created["tokens"][str((to_act + 1) % 3)]
    assert_problem(client.post(f"/v1/games/{game_id}/hint", headers=bearer(waiting),
                               json={}), 409, "not_your_turn")


def _keyed_game(client: FlaskClient, db: Engine
                ) -> tuple[str, str, str, Callable[[], float]]:
    """A game of a key's, the token of the seat to act, the key's id, and its AI time
    used."""
    key_row, secret = create_key(CreateKey("app", ("games:create-human", "games:read"),
                                           ai_seconds_per_hour=30), Store(db).uow())
    key = {"X-API-Key": secret}
    deal_next(client.application, 3)
    created = client.post("/v1/games", headers=key, json={
        "preset": "classic", "seats": [{"kind": "human"}] * 3}).get_json()
    game_id = created["game"]["game_id"]
    to_act = client.get(f"/v1/games/{game_id}", headers=key).get_json()["view"]["to_act"]

    def used() -> float:
        with Store(db).uow() as unit:
            return ai_time_used(unit, key_row.id)

    return game_id, created["tokens"][str(to_act)], key_row.id, used


def test_hints_count_against_the_owner_s_ai_time(client: FlaskClient, db: Engine) -> None:
    game_id, token, owner, used = _keyed_game(client, db)
    uow = Store(db).uow
    assert used() == 0
    first = client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                        json={"level": "hard", "budget_ms": 100})
    assert first.status_code == 200
    assert used() > 0  # its thinking counted for the owner
    with uow() as unit:  # the hour's allowance spent by other games
        unit.quotas.add_ai_time(owner, hour_of(datetime.now(timezone.utc)), 30.0)
        unit.commit()
    assert_problem(client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                               json={"level": "expert"}), 429, "quota_exceeded")
    spent = used()  # a heuristic level's hint costs microseconds: neither refused nor counted
    assert client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                       json={"level": "normal"}).status_code == 200
    assert used() == spent


class Recording(Processes):
    """The pool, noting what each call sends its child."""

    def __init__(self, workers: int, waiting: int) -> None:
        super().__init__(workers, waiting)
        self.sent: list[tuple[object, ...]] = []

    def analyse(self, view: View, level: str, seed: int, budget: Budget | None,
                also: Action | None = None, wait: bool = False) -> Analysis:
        self.sent.append((view, level, seed, budget, also))
        return super().analyse(view, level, seed, budget, also, wait)


@pytest.fixture
def pool() -> Iterator[Recording]:
    made = Recording(workers=1, waiting=0)
    yield made
    made.close()


def test_a_hint_thinks_in_the_pool_from_the_seat_s_view_alone(
        db: Engine, pool: Recording, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_RATE_STORAGE", "off")
    with inline_app(db, pool).test_client() as client:
        game_id, token, _, _ = _keyed_game(client, db)
        answer = client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                             json={"level": "hard", "budget_ms": 50})
    assert answer.status_code == 200, answer.get_json()
    stored = Store(db).reads.get(game_id)
    assert stored is not None
    ((view, level, seed, budget, also),) = pool.sent
    seat = next(s for s in range(3) if observe(stored.state, s).legal_actions)
    assert view == observe(stored.state, seat)  # what the seat sees: not the state
    assert (level, seed, budget, also) == ("hard", stored.version, Budget(milliseconds=50),
                                           None)
    assert parse_action(answer.get_json()["action"]) in view.legal_actions
    assert pool.pids() and os.getpid() not in pool.pids()


def test_a_full_pool_refuses_a_hint_at_once_and_changes_nothing(
        db: Engine, pool: Recording, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_RATE_STORAGE", "off")
    with inline_app(db, pool).test_client() as client:
        game_id, token, _, used = _keyed_game(client, db)
        before = client.get(f"/v1/games/{game_id}", headers=bearer(token)).get_json()
        stored = Store(db).reads.get(game_id)
        assert stored is not None
        view = observe(stored.state, before["view"]["seat"])
        thinking = threading.Thread(target=pool.analyse, args=(
            view, "expert", 1, Budget(milliseconds=3000)), kwargs={"wait": True})
        thinking.start()
        deadline = time.monotonic() + 30
        while pool.taken() < pool.places:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        refused = client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                              json={"level": "expert"})
        assert_problem(refused, 503, "ai_busy")
        assert refused.headers["Retry-After"] == "1"
        assert pool.taken() == pool.places  # it neither waited nor took a place
        thinking.join()
        after = client.get(f"/v1/games/{game_id}", headers=bearer(token)).get_json()
    assert after["version"] == before["version"]
    assert used() == 0  # no AI time charged for a hint not given
