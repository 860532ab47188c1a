"""Webhooks with real processes (API under gunicorn, Celery workers, a gRPC AI worker) on
the embedded default and on PostgreSQL + Redis, delivered to a receiver in the test:
a Celery worker killed with SIGKILL in the middle of an attempt, and an API killed
after committing moves it could not hand over, lose no message; a message attempted
again keeps its webhook-id."""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

import requests
from sqlalchemy import select

from receiver import Receiver
from services.commands import CreateKey
from services.handlers.keys import create_key
from services.store.models import WebhookMessageRow
from stack import Stack

SETTINGS = {"PRESIDENT_WEBHOOK_PRIVATE_URLS": "loopback", "PRESIDENT_WEBHOOK_TIMEOUT_S": "1",
            "PRESIDENT_WEBHOOK_RETRY_S": "0.5,1,1,1,1"}


def _key(stack: Stack) -> dict[str, str]:
    store = stack.store()
    try:
        _, secret = create_key(CreateKey("e2e", ("games:create-human", "games:create-ai",
                                                 "games:read", "webhooks")), store.uow())
    finally:
        store.close()
    return {"X-API-Key": secret}


def _register(stack: Stack, key: dict[str, str], url: str, types: list[str]) -> str:
    made = requests.post(f"{stack.api_urls[0]}/v1/webhooks", headers=key, timeout=10,
                         json={"url": url, "event_types": types})
    assert made.status_code == 201, made.text
    return str(made.json()["secret"])


def _messages(stack: Stack) -> dict[str, str]:
    """webhook-id: state, of every message written."""
    store = stack.store()
    try:
        with store.engine.connect() as c:
            return dict(c.execute(select(WebhookMessageRow.webhook_id,  # type: ignore[arg-type]
                                         WebhookMessageRow.state)).all())
    finally:
        store.close()


def _until(condition: Any, timeout_s: float, stack: Stack) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out\n{stack.logs()}")
        time.sleep(0.1)


def test_a_celery_worker_killed_mid_attempt_loses_no_message(stack: Stack) -> None:
    # An attempt waits 3 s for its answer: the worker is killed well within it (its
    # message is due again once its lease, 14 s, has run out).
    stack.settings.update(SETTINGS, PRESIDENT_WEBHOOK_TIMEOUT_S="3")
    receiver = Receiver(hold=threading.Event())
    try:
        stack.start_ai_worker()
        stack.start_celery_worker("--queues", "ai.easy,turns.maintenance")
        attempts = stack.start_celery_worker("--queues", "webhooks")
        stack.start_beat()
        stack.start_api()
        key = _key(stack)
        secret = _register(stack, key, receiver.url, ["round.ended", "series.ended"])
        made = requests.post(f"{stack.api_urls[0]}/v1/games", headers=key, timeout=10, json={
            "preset": "classic", "rounds": 2, "seats": [{"kind": "ai", "engine": "easy"}] * 4,
            "visibility": "public"})  # (watched without the key below)
        assert made.status_code == 201, made.text
        _until(lambda: receiver.holding >= 1, 60, stack)  # the first attempt is under way
        attempts.kill(signal.SIGKILL)
        assert receiver.hold is not None
        receiver.hold.set()  # (its answer goes to a process that is no more)
        stack.start_celery_worker("--queues", "webhooks")
        stack.wait_over(made.json()["game"]["game_id"])
        _until(lambda: len(_messages(stack)) == 3
               and set(_messages(stack).values()) == {"delivered"}, 60, stack)
    finally:
        receiver.close()
    written = _messages(stack)
    got: dict[str, list[str]] = {}
    for request in receiver.received:
        got.setdefault(request.webhook_id, []).append(request.verified(secret)["type"])
    assert set(got) == set(written)  # none missing, none made up
    assert sorted(t[0] for t in got.values()) == ["round.ended", "round.ended", "series.ended"]
    killed = receiver.received[0].webhook_id
    assert len(got[killed]) >= 2  # attempted again, with the same id


def test_moves_committed_by_an_api_killed_before_the_hand_off_are_delivered(
        stack: Stack) -> None:
    stack.settings.update(SETTINGS)
    receiver = Receiver()
    try:
        real_broker = stack.backend.broker_url
        # The API's broker cannot be reached: every hand-off fails and its messages wait.
        stack.settings["CELERY_BROKER_URL"] = ("redis://127.0.0.1:9/0"
                                               if real_broker.startswith("redis")
                                               else "sqla+sqlite:////nonexistent/broker.db")
        api = stack.start_api()
        key = _key(stack)
        secret = _register(stack, key, receiver.url, ["seat.turn"])
        url = stack.api_urls[0]
        made = requests.post(f"{url}/v1/games", headers=key, timeout=10, json={
            "preset": "classic", "seats": [{"kind": "human"}] * 4}).json()
        game_id = made["game"]["game_id"]
        for _ in range(3):  # three moves: four turns in all, with the first
            game = requests.get(f"{url}/v1/games/{game_id}", headers=key, timeout=10).json()
            seat = game["view"]["to_act"]
            token = {"Authorization": f"Bearer {made['tokens'][str(seat)]}"}
            mine = requests.get(f"{url}/v1/games/{game_id}", headers=token, timeout=10).json()
            played = requests.post(f"{url}/v1/games/{game_id}/actions", headers=token,
                                   timeout=10, json={"action": mine["view"]["legal_actions"][-1],
                                                     "version": mine["version"]})
            assert played.status_code == 200, played.text
        assert len(_messages(stack)) == 4 and receiver.received == []
        api.kill(signal.SIGKILL)
        stack.settings["CELERY_BROKER_URL"] = real_broker
        stack.start_celery_worker()  # its relay finds what the API left,
        stack.start_beat()  # once the sweeper's first task has set it up
        _until(lambda: set(_messages(stack).values()) == {"delivered"}, 60, stack)
    finally:
        receiver.close()
    turns = [r.verified(secret) for r in receiver.received]
    assert {r.webhook_id for r in receiver.received} == set(_messages(stack))
    assert sorted(t["data"]["version"] for t in turns) == [0, 1, 2, 3]
    assert {t["type"] for t in turns} == {"seat.turn"}

