"""Stopping the API and the gRPC AI worker.

The gRPC AI worker: however many SIGINTs and SIGTERMs reach its process group
(a terminal's Ctrl-C signals the whole group; a supervisor's SIGTERM too, and the parent
then passes its own on to its children), every process of the group is gone within the
grace period, every time. (Its processes once waited on a ``threading.Event`` that their
signal handler set: a second signal arriving while the main thread held the event's lock
hung a process for good.)"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

from services.api.serve import options
from stack import Stack
from workers.rpc.client import wait_serving
from workers.rpc.server import GRACE_S

GRACEFUL_TIMEOUT_S = options("127.0.0.1", 0, 1, "gevent", 1)["graceful_timeout"]

PRESIDENT = str(Path(sys.executable).with_name("president"))
ROUNDS = 8


def _start() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([PRESIDENT, "ai-worker", "--port", "0", "--processes", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)  # a process group of its own
    assert proc.stdout is not None
    found = re.search(r"listening on (\S+)", proc.stdout.readline())
    assert found, "the worker did not say where it listens"
    return proc, found.group(1)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_burst_of_signals_to_the_group_stops_every_process_within_the_grace_period() -> None:
    shuffle = random.Random(7)
    for _ in range(ROUNDS):
        proc, target = _start()
        group = proc.pid
        try:
            wait_serving(target)
            time.sleep(shuffle.uniform(0.05, 0.3))  # every process waiting for its stop
            for sig in [signal.SIGINT, signal.SIGTERM] * 20:  # a burst, as a shell's
                os.killpg(group, sig)  # kill loop or a hammered Ctrl-C sends them
                time.sleep(shuffle.choice([0.0, 0.0, 0.0001, 0.001]))
            proc.wait(timeout=GRACE_S)
            deadline = time.monotonic() + GRACE_S
            while _group_alive(group) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not _group_alive(group), "a worker process outlived the grace period"
        finally:
            if _group_alive(group):
                os.killpg(group, signal.SIGKILL)
            proc.wait()


def test_an_api_told_to_stop_ends_its_streams_and_long_polls_then_exits(stack: Stack) -> None:
    """SIGTERM to ``president api`` (what a deploy sends): an event stream closes (its
    client resumes elsewhere with Last-Event-ID) and a long poll answers what it has, at
    once, rather than holding the worker until gunicorn's graceful timeout (30 s) and
    being cut off; then every process of the server is gone."""
    api = stack.start_api(workers=2)
    url = stack.api_urls[0]
    created = requests.post(f"{url}/v1/games", json={"preset": "classic",
                                                     "seats": [{"kind": "human"}] * 4},
                            timeout=10).json()
    game_id = created["game"]["game_id"]
    stream = requests.get(f"{url}/v1/games/{game_id}/events/stream", stream=True, timeout=60)
    assert stream.status_code == 200
    polled: dict[str, requests.Response] = {}

    def long_poll() -> None:
        polled["reply"] = requests.get(f"{url}/v1/games/{game_id}/events",
                                       params={"after": 10**6, "wait": 25}, timeout=60)

    poller = threading.Thread(target=long_poll)
    poller.start()
    time.sleep(1.0)  # both waiting for a move that never comes
    stopped_at = time.monotonic()
    os.killpg(api.popen.pid, signal.SIGTERM)
    for _ in stream.iter_lines():  # until the server closes the stream
        pass
    closed_in = time.monotonic() - stopped_at
    poller.join(30)
    assert polled["reply"].status_code == 200 and polled["reply"].json()["events"] == []
    api.popen.wait(timeout=30)
    exited_in = time.monotonic() - stopped_at
    assert closed_in < GRACEFUL_TIMEOUT_S / 3 and exited_in < GRACEFUL_TIMEOUT_S / 3, \
        (closed_in, exited_in)
    assert api.popen.returncode == 0
