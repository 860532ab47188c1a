"""Tracing with real processes, on the embedded default and on PostgreSQL + Redis: a
client's move, sent with a trace of the client's own, is followed through the API, the
outbox, the Celery task in another process and the gRPC decision in the AI worker, all
spans collected by an OTLP receiver in the test; the log lines of the move say its trace."""

from __future__ import annotations

import secrets
import time
from typing import Any, Iterator

import pytest
import requests

from otlp import OtlpReceiver, Span
from stack import Stack


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    r = OtlpReceiver()
    yield r
    r.close()


def _traced_move(stack: Stack, game_id: str, token: str) -> tuple[str, dict[str, Any]]:
    """The seat's move, sent with a ``traceparent`` of the test's: its trace id, and the
    game after it."""
    url, auth = stack.api_urls[0], {"Authorization": f"Bearer {token}"}
    mine = requests.get(f"{url}/v1/games/{game_id}", headers=auth, timeout=10).json()
    trace_id = secrets.token_hex(16)
    played = requests.post(
        f"{url}/v1/games/{game_id}/actions", timeout=10,
        headers={**auth, "traceparent": f"00-{trace_id}-{secrets.token_hex(8)}-01"},
        json={"action": mine["view"]["legal_actions"][-1], "version": mine["version"]})
    assert played.status_code == 200, played.text
    return trace_id, played.json()


def _my_turn(stack: Stack, game_id: str, token: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        view = stack.game(game_id, token)["view"]
        if view["to_act"] == view["seat"]:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"never seat {view['seat']}'s turn\n{stack.logs()}")
        time.sleep(0.05)


def test_one_trace_follows_a_move_through_the_api_celery_and_the_ai_worker(
        stack: Stack, receiver: OtlpReceiver) -> None:
    stack.settings.update(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
                          OTEL_BSP_SCHEDULE_DELAY="100")  # (ms: spans sent at once)
    stack.start_ai_worker()
    celery = stack.start_celery_worker()
    stack.start_api()
    made = requests.post(f"{stack.api_urls[0]}/v1/games", timeout=10, json={
        "preset": "classic", "seed": 5,
        "seats": [{"kind": "human"}] + [{"kind": "ai", "engine": "normal"}] * 3}).json()
    game_id, token = made["game"]["game_id"], made["tokens"]["0"]
    for _ in range(10):  # a move after which an AI seat is to act
        _my_turn(stack, game_id, token)
        trace_id, after = _traced_move(stack, game_id, token)
        if after["view"]["to_act"] != 0:
            break
    deadline = time.monotonic() + 30
    while True:  # (a span is sent once it ends, some after others)
        try:
            _followed(receiver.of_trace(trace_id))
            break
        except AssertionError:
            if time.monotonic() > deadline:
                print(receiver.of_trace(trace_id), stack.logs())
                raise
            time.sleep(0.1)
    assert trace_id in celery.log.read_text()  # the task's log lines say their trace


def _writes(names: set[str]) -> bool:
    return any(name.split()[0].upper() in ("INSERT", "UPDATE") or name == "president.moves"
               for name in names)


def _followed(spans: list[Span]) -> None:
    """The move's trace has it all: the request and its write, the relay's publish (in
    whichever process relayed: on PostgreSQL the one that leads), the task, its gRPC
    call and the AI worker's answer, the AI move's write."""
    services = ("president-api", "president-celery", "president-ai-worker")
    by = {service: {s.name for s in spans if s.service == service} for service in services}
    assert "POST /v1/games/<string:game_id>/actions" in by["president-api"]
    assert _writes(by["president-api"])
    assert "apply_async/president.ai_turn" in by["president-api"] | by["president-celery"]
    assert "run/president.ai_turn" in by["president-celery"]
    assert "/president.ai.v1.AiService/Decide" in by["president-celery"]
    assert "/president.ai.v1.AiService/Decide" in by["president-ai-worker"]
    assert _writes(by["president-celery"])
