"""The AI worker's parent, on processes that cannot serve: one that dies before it serves
is not started again (it would only die again), and the parent returns a failure."""

from __future__ import annotations

import os

import pytest

from workers.rpc.supervisor import Supervisor


def test_a_process_that_dies_before_serving_is_not_restarted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    supervisor = Supervisor("192.0.2.1:50051", max_calls=5)  # no interface has it (TEST-NET-1)
    starts: list[int] = []
    start = supervisor.start

    def counted(slot: int):  # type: ignore[no-untyped-def]
        starts.append(slot)
        return start(slot)

    monkeypatch.setattr(supervisor, "start", counted)
    stop, unused = os.pipe()
    try:
        supervisor.start(0)
        supervisor.start(1)
        supervisor.supervise(stop)  # returns once no process is left
    finally:
        os.close(stop)
        os.close(unused)
    assert starts == [0, 1]
    assert supervisor.children == [] and len(supervisor.failures) == 2
    assert all(code not in (0, None) for code in supervisor.failures)
