"""``president ai-worker --processes 2`` replaces its server processes: each after
``PRESIDENT_AI_MAX_CALLS`` calls (what bounds its memory), and one that exits unasked
while serving; every call made meanwhile is answered, and each slot keeps one process."""

from __future__ import annotations

import os
import signal
import threading
import time

import grpc
import pytest

from president.ai.v1 import ai_pb2_grpc
from rpchelpers import choice_views, worker_children, worker_process
from workers.rpc.client import CHANNEL_OPTIONS
from workers.rpc.serde import request_to_proto

VIEWS = choice_views(12, seed=9)
MAX_CALLS = 40


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""  # gone meanwhile


def serving_slots(parent: int, timeout_s: float = 30) -> dict[str, int]:
    """{name: pid} of the parent's children once exactly one serves each of two slots."""
    deadline = time.monotonic() + timeout_s
    while True:
        names = {pid: comm(pid) for pid in worker_children(parent)}
        if sorted(names.values()) == ["ai-worker-0", "ai-worker-1"]:
            return {name: pid for pid, name in names.items()}
        assert time.monotonic() < deadline, names
        time.sleep(0.05)


def served(target: str, calls: int) -> None:
    """``calls`` decisions are each answered with a legal action (the errors shown if not)."""
    answered, errors = hammer(target, calls)
    assert (answered, len(errors)) == (calls, 0), errors


def hammer(target: str, calls: int, threads: int = 4) -> tuple[int, list[str]]:
    """``calls`` decisions from ``threads`` threads, two connections each: (answered
    with a legal action, errors)."""
    answered: list[int] = []
    errors: list[str] = []

    def caller(k: int) -> None:
        channels = [grpc.insecure_channel(target, options=CHANNEL_OPTIONS) for _ in range(2)]
        try:
            for i in range(k, calls, threads):
                view = VIEWS[i % len(VIEWS)]
                stub = ai_pb2_grpc.AiServiceStub(channels[i % 2])
                reply = stub.Decide(request_to_proto(view, "normal", i), timeout=30)
                assert reply.action in {str(a) for a in view.legal_actions}
                answered.append(i)
        except grpc.RpcError as exc:  # (code and details: what a failure reports)
            errors.append(f"{exc.code()}: {exc.details()}")
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(repr(exc))
        finally:
            for channel in channels:
                channel.close()

    workers = [threading.Thread(target=caller, args=(k,)) for k in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return len(answered), errors


def test_processes_are_replaced_after_their_calls_and_no_call_is_lost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_AI_MAX_CALLS", str(MAX_CALLS))
    with worker_process(2) as (proc, target):
        first = serving_slots(proc.pid)
        seen, names = set(first.values()), set(first)
        done = threading.Event()

        def watch() -> None:  # every process the parent runs, and what it is called
            while not done.is_set():
                for pid in worker_children(proc.pid):
                    names.add(comm(pid))
                    seen.add(pid)
                time.sleep(0.01)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            for _ in range(20):  # (the kernel may give one process every connection)
                served(target, 5 * MAX_CALLS)
                if not set(worker_children(proc.pid)) & set(first.values()):
                    break
        finally:
            done.set()
            watcher.join()
        # (python: one starting, not yet named; "": one gone between listing and reading)
        assert names <= {"ai-worker-0", "ai-worker-1", "ai-draining", "python", ""}, names
        last = serving_slots(proc.pid)
        assert not set(last.values()) & set(first.values())  # both slots replaced
        # (an old process serves on while its replacement starts: many more than 40)
        assert len(seen) >= 4, sorted(seen)
        served(target, 40)  # and the replacements serve


def test_a_process_that_exits_unasked_while_serving_is_replaced_in_its_slot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_AI_MAX_CALLS", "0")  # never after calls
    with worker_process(2) as (proc, target):
        first = serving_slots(proc.pid)
        os.kill(first["ai-worker-1"], signal.SIGKILL)
        after = serving_slots(proc.pid)
        assert after["ai-worker-0"] == first["ai-worker-0"]
        assert after["ai-worker-1"] != first["ai-worker-1"]
        served(target, 40)
        os.kill(after["ai-worker-0"], signal.SIGTERM)  # it drains and exits 0, unasked
        last = serving_slots(proc.pid)
        assert last["ai-worker-0"] != after["ai-worker-0"]
        assert last["ai-worker-1"] == after["ai-worker-1"]
        served(target, 40)
        assert proc.poll() is None
