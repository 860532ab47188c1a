"""What lets an AI worker process be replaced without a call lost: it counts the calls it
has answered (``CallCounter``), and the client has gRPC send again, within a moment, a call a
stopping server dropped without running it."""

from __future__ import annotations

import threading
from typing import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from president.ai.v1 import ai_pb2 as pb
from president.ai.v1 import ai_pb2_grpc
from rpchelpers import choice_views, servicer_server
from workers.rpc.client import ATTEMPTS, AiClient, AiUnavailable
from workers.rpc.serde import request_to_proto
from workers.rpc.server import CallCounter, build_server

VIEWS = choice_views(4, seed=8)


@pytest.fixture()
def counted() -> Iterator[tuple[str, list[int]]]:
    """A real AI server whose counter of 5 calls records who saw the 5th."""
    seen: list[int] = []
    server, port = build_server("127.0.0.1:0", interceptors=[
        CallCounter(5, lambda: seen.append(threading.get_ident()))])
    server.start()
    try:
        yield f"127.0.0.1:{port}", seen
    finally:
        server.stop(None)


def test_the_counter_fires_once_at_its_count_of_ai_calls_health_checks_aside(
        counted: tuple[str, list[int]]) -> None:
    target, seen = counted
    with grpc.insecure_channel(target) as channel:
        ai = ai_pb2_grpc.AiServiceStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        for _ in range(10):
            health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
        for n in range(4):
            ai.Decide(request_to_proto(VIEWS[n], "easy", n), timeout=5)
        assert seen == []  # 10 health checks and 4 decisions
        ai.Decide(request_to_proto(VIEWS[0], "easy", 0), timeout=5)
        assert len(seen) == 1
        for n in range(8):
            ai.Decide(request_to_proto(VIEWS[n % 4], "easy", n), timeout=5)
        assert len(seen) == 1


def test_the_counter_fires_once_under_concurrent_calls(counted: tuple[str, list[int]]) -> None:
    target, seen = counted

    def call(n: int) -> None:
        with grpc.insecure_channel(target) as channel:
            ai_pb2_grpc.AiServiceStub(channel).Decide(
                request_to_proto(VIEWS[n % 4], "easy", n), timeout=10)

    threads = [threading.Thread(target=call, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 1


class DropsFirst(ai_pb2_grpc.AiServiceServicer):  # type: ignore[misc]
    """Answers with ``code`` the first ``drops`` attempts, then the first legal action."""

    def __init__(self, code: grpc.StatusCode, drops: int) -> None:
        self.code, self.drops, self.attempts = code, drops, 0

    def Decide(self, request: pb.DecideRequest, context: grpc.ServicerContext
               ) -> pb.DecideResponse:
        self.attempts += 1
        if self.attempts <= self.drops:
            context.abort(self.code, "dropped")
        return pb.DecideResponse(action=request.view.legal_actions[0])


@pytest.mark.parametrize("code", [grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE])
def test_a_dropped_call_is_sent_again_by_grpc_and_answered(code: grpc.StatusCode) -> None:
    bot = DropsFirst(code, drops=2)
    view = VIEWS[0]
    with servicer_server(bot) as address, AiClient({"bot": address}) as client:
        assert client.decide(view, "bot", timeout_s=10) == view.legal_actions[0]
    assert bot.attempts == 3  # one call from the client, three attempts on the wire


def test_the_retries_are_bounded_and_other_failures_not_retried() -> None:
    view = VIEWS[0]
    for code, drops, attempts in ((grpc.StatusCode.CANCELLED, 9, ATTEMPTS),
                                  (grpc.StatusCode.INTERNAL, 9, 1),
                                  (grpc.StatusCode.INVALID_ARGUMENT, 9, 1)):
        bot = DropsFirst(code, drops)
        with servicer_server(bot) as address, AiClient({"bot": address}) as client:
            with pytest.raises(AiUnavailable) as raised:
                client.decide(view, "bot", timeout_s=10)
        assert raised.value.code == code and bot.attempts == attempts, code
