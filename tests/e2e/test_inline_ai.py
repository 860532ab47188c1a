"""``president api`` with no broker, as real processes: its AI levels think in child
processes, so an API worker answers while a hint thinks; past the pool's places a hint
is refused at once; the children stop with the API."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import requests

from benchmarks.cluster import Cluster
from benchmarks.inline_hints import seat_to_act
from benchmarks.servers import alive, processes
from stack import make_backend


def test_ai_thinks_beside_the_api_and_stops_with_it(tmp_path: Path) -> None:
    cluster = Cluster(make_backend("embedded", tmp_path), tmp_path, settings={
        "CELERY_BROKER_URL": "",  # none: the levels think on this machine
        "PRESIDENT_INLINE_AI_WORKERS": "1", "PRESIDENT_INLINE_AI_QUEUE": "0"})
    try:
        api = cluster.start_api(workers=1)
        url = cluster.api_urls[0]
        hint_url, seat = seat_to_act(url)
        assert requests.post(hint_url, headers=seat, json={"level": "expert", "budget_ms": 50},
                             timeout=30).status_code == 200  # (the child started)
        answers: list[requests.Response] = []

        def think_long() -> None:  # (refused while a probe below holds the place: again)
            while not answers or answers[-1].status_code == 503:
                answers.append(requests.post(hint_url, headers=seat, timeout=30, json={
                    "level": "expert", "budget_ms": 2000}))

        long = threading.Thread(target=think_long)
        long.start()
        deadline = time.monotonic() + 10
        while True:  # the same worker answers while the long hint thinks: it holds the place
            refused = requests.post(hint_url, headers=seat, json={"level": "normal"},
                                    timeout=10)
            if refused.status_code == 503 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert refused.status_code == 503, refused.text
        assert refused.json()["code"] == "ai_busy" and refused.headers["Retry-After"] == "1"
        assert requests.get(f"{url}/healthz", timeout=10).status_code == 200
        assert long.is_alive()  # (those two answered before the long hint did)
        long.join()
        assert answers[-1].status_code == 200, answers[-1].text
        group = processes(group=api.popen.pid)
        assert len(group) >= 3, group  # gunicorn's master, its worker, the AI child
        os.kill(api.popen.pid, signal.SIGTERM)  # the master only: it stops its worker
        api.popen.wait(timeout=60)
        deadline = time.monotonic() + 20
        while any(map(alive, group)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in group if alive(pid)], cluster.logs()
    finally:
        cluster.close()
