"""No AI turn is played inside a request: without a broker, the API answers a create or
a move at once, whatever the seats, and the series goes on behind it."""

from __future__ import annotations

import time

from sqlalchemy import Engine

from apps import background_app
from engine import View
from engine.plays import Action
from workers.ai import Budget, decide


def _quick_expert(view: View, engine: str) -> Action:
    """Expert's search on a few simulations: the same code, a budget a test can afford."""
    return decide(view, engine, seed=len(view.history), budget=Budget(simulations=4))


def test_a_create_with_eight_expert_seats_answers_at_once_and_the_series_finishes(
        db: Engine) -> None:
    app, runner = background_app(db, _quick_expert)
    client = app.test_client()
    seats = [{"kind": "ai", "engine": "expert"}] * 8
    created = client.post("/v1/games", json={"preset": "classic", "seats": seats, "rounds": 1})
    assert created.status_code == 201
    assert created.get_json()["game"]["version"] == 0  # nothing played inside the request
    game_id = created.get_json()["game"]["game_id"]
    deadline, after, kinds = time.monotonic() + 120, 0, []
    while "series_ended" not in kinds and time.monotonic() < deadline:
        page = client.get(f"/v1/games/{game_id}/events?after={after}&wait=5").get_json()
        kinds += [e["type"] for e in page["events"]]
        after = page["last"]
    assert kinds[-1] == "series_ended"
    runner.join()
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "over"
