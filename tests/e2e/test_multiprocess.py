"""``president ai-worker --processes 2`` as a real subprocess: two server processes share
the port (SO_REUSEPORT), calls from many connections are answered with legal actions by
both, and SIGTERM drains the calls in flight before a clean exit."""

from __future__ import annotations

import signal
import threading
import time
from typing import Iterator

import grpc
import pytest

from president.ai.v1 import ai_pb2_grpc
from benchmarks import ai as bench_ai
from rpchelpers import (
    choice_views, cmdline, cpu_seconds, port_of, sockets_by_process, tcp_sockets,
    worker_children, worker_process,
)
from workers.ai import Budget
from workers.rpc.client import AiClient
from workers.rpc.serde import request_to_proto
from workers.rpc.server import GRACE_S

VIEWS = choice_views(8, seed=6)
SMALL = Budget(simulations=20)
# one TCP connection per channel: by default grpc shares one among a process's channels
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]


@pytest.fixture(scope="module")
def worker() -> Iterator[tuple[int, str, list[int]]]:
    with worker_process(2) as (proc, target):
        yield proc.pid, target, worker_children(proc.pid)


def test_the_parent_runs_two_server_processes_on_one_port(
        worker: tuple[int, str, list[int]]) -> None:
    parent, target, kids = worker
    assert len(kids) == 2 and parent not in kids
    assert worker_children(parent) == kids  # both alive
    # each of them listens on the port itself
    assert sockets_by_process(kids, port_of(target), "0A") == {kid: 1 for kid in kids}


def test_calls_from_many_connections_are_legal_and_reach_both_processes(
        worker: tuple[int, str, list[int]]) -> None:
    _, target, kids = worker
    channels = [grpc.insecure_channel(target, options=OWN_CONNECTION) for _ in range(16)]
    answers: list[tuple[int, str]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def caller(k: int) -> None:
        try:
            for i, channel in enumerate(channels[k::4]):
                stub = ai_pb2_grpc.AiServiceStub(channel)
                n = (k + 4 * i) % len(VIEWS)
                level = ("easy", "normal", "hard", "expert")[i % 4]
                request = request_to_proto(VIEWS[n], level, n, SMALL if i >= 2 else None)
                reply = stub.Decide(request, timeout=30)
                with lock:
                    answers.append((n, reply.action))
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    try:
        threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert len(answers) == len(channels)
        for n, action in answers:
            assert action in {str(a) for a in VIEWS[n].legal_actions}
        # while the channels are open, each process holds some of their connections:
        # the kernel spread them, and both processes answered calls
        held = sockets_by_process(kids, port_of(target), "01")
        assert sum(held.values()) == len(channels)
        assert all(count >= 1 for count in held.values()), held
    finally:
        for channel in channels:
            channel.close()


def test_clients_in_threads_get_legal_actions(worker: tuple[int, str, list[int]]) -> None:
    _, target, _ = worker
    failures: list[BaseException] = []

    def play(k: int) -> None:
        try:
            with AiClient({"hard": target, "normal": target}) as client:
                for n in range(k, len(VIEWS), 3):
                    view = VIEWS[n]
                    for level in ("normal", "hard"):
                        action = client.decide(view, level, seed=n, budget=SMALL,
                                               timeout_s=30)
                        assert action in view.legal_actions
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_bench_throughput_gives_each_client_its_own_connection(
        worker: tuple[int, str, list[int]]) -> None:
    """``bench_ai.throughput`` measures N processes only if its callers' connections can
    land on different processes: "a connection each", as its comment says."""
    _, target, _ = worker
    port = port_of(target)
    seen: set[str] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.update(tcp_sockets(port, "01").values())
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        rate = bench_ai.throughput(target, VIEWS, clients=4, seconds=1.0)
    finally:
        done.set()
        watcher.join()
    assert rate > 0
    assert len(seen) == 4, f"{len(seen)} connection(s) for 4 clients"


def test_sigterm_lets_the_call_in_flight_finish_then_exits_0() -> None:
    view = VIEWS[0]
    request = request_to_proto(view, "hard", 1, Budget(milliseconds=2000))
    with worker_process(2, wait_s=GRACE_S + 10) as (proc, target):
        kids = worker_children(proc.pid)
        assert len(kids) == 2
        with grpc.insecure_channel(target) as channel:
            stub = ai_pb2_grpc.AiServiceStub(channel)
            stub.Decide(request_to_proto(view, "easy", 0), timeout=10)  # connect
            held = sockets_by_process(kids, port_of(target), "01")
            serving = [kid for kid, count in held.items() if count]
            assert len(serving) == 1
            before = cpu_seconds(serving[0])
            call = stub.Decide.future(request, timeout=10)
            # the call is in flight once the process that holds the connection searches
            give_up = time.monotonic() + 10
            while cpu_seconds(serving[0]) - before < 0.15:
                assert not call.done(), "the call ended before the worker was stopped"
                assert time.monotonic() < give_up, "the call never started"
                time.sleep(0.01)
            proc.send_signal(signal.SIGTERM)
            reply = call.result()
            assert call.code() == grpc.StatusCode.OK
            assert reply.action in {str(a) for a in view.legal_actions}
        assert proc.wait(timeout=GRACE_S + 10) == 0
        for kid in kids:  # the workers are gone, not orphaned
            assert not any("spawn_main" in part for part in cmdline(kid))
