"""``president bench inline-hints``: with no broker, an API worker answers while Expert
hints think (its AI levels run in child processes: ``PRESIDENT_INLINE_AI_*``).

``president api`` as it runs by default (2 gevent workers, no ``CELERY_BROKER_URL``, the
pool's default settings) on SQLite in a temporary folder, a free loopback port; this
process is the client. A probe asks ``/healthz`` over and over (10 ms between answer and
next ask) for ``seconds``: first with nothing else running (``idle``), then while
``hints`` clients each ask Expert hints back to back (default budget, 500 ms), each of a
game of its own where a human seat is to act (nothing is played: the position stays).
Reported: ``/healthz`` p50, p99 and max in each phase; the hints answered, refused
(``503 ai_busy``: past the pool's places) and their p50 time."""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import requests

from benchmarks.cluster import Backend, Cluster
from benchmarks.load import percentile
from config.settings import defaulted
from services.api.serve import API_WORKERS
from services.store.db import make_engine, upgrade

HUMANS = [{"kind": "human"}] * 3
PAUSE_S = 0.01  # between a probe's answer and its next ask


def bench_inline_hints(seconds: float = 10.0, hints: int = 4,
                       api_workers: int = API_WORKERS) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-inline-") as folder:
        workdir = Path(folder)
        database = f"sqlite:///{workdir}/president.db"
        engine = make_engine(database)
        upgrade(engine)
        engine.dispose()
        cluster = Cluster(Backend("sqlite", database, ""), workdir,
                          settings={"CELERY_BROKER_URL": ""})  # none: AI on this machine
        try:
            cluster.start_api(workers=api_workers)
            return _measure(cluster.api_urls[0], seconds, hints, api_workers)
        finally:
            cluster.close()


def _measure(url: str, seconds: float, hints: int, api_workers: int) -> dict[str, Any]:
    seats = [seat_to_act(url) for _ in range(hints)]
    for hint_url, headers in seats:  # every API worker's pool started, and warm
        for _ in range(2 * api_workers):
            requests.post(hint_url, headers=headers, json={"level": "expert",
                                                            "budget_ms": 20}, timeout=30)
    idle = _probe(url, seconds)
    stop, answered = threading.Event(), [_Hints() for _ in seats]
    clients = [threading.Thread(target=h.run, args=(seat, stop))
               for h, seat in zip(answered, seats)]
    for client in clients:
        client.start()
    time.sleep(1.0)  # every client's first hint asked
    busy = _probe(url, seconds)
    stop.set()
    for client in clients:
        client.join()
    took = [ms for h in answered for ms in h.took_ms]
    return {"healthz_idle_ms": idle, "healthz_hints_ms": busy,
            "hints_answered": len(took), "hints_refused": sum(h.refused for h in answered),
            "hint_p50_ms": round(percentile(took, 0.5), 1),
            "setup": {"api_workers": api_workers, "hint_clients": hints, "seconds": seconds,
                      "level": "expert", "database": "sqlite", "broker": None,
                      "inline_ai_workers": int(defaulted("PRESIDENT_INLINE_AI_WORKERS")),
                      "inline_ai_queue": int(defaulted("PRESIDENT_INLINE_AI_QUEUE"))}}


def seat_to_act(url: str) -> tuple[str, dict[str, str]]:
    """A game of three humans on the API at ``url``: its hint route, and the headers of
    the seat to act."""
    created = requests.post(f"{url}/v1/games", json={"preset": "classic", "seats": HUMANS},
                            timeout=10).json()
    game_id = created["game"]["game_id"]
    to_act = requests.get(f"{url}/v1/games/{game_id}", timeout=10).json()["view"]["to_act"]
    return (f"{url}/v1/games/{game_id}/hint",
            {"Authorization": f"Bearer {created['tokens'][str(to_act)]}"})


def _probe(url: str, seconds: float) -> dict[str, float]:
    """``/healthz`` asked over and over for ``seconds``: its times in milliseconds."""
    http, times = requests.Session(), []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        if http.get(f"{url}/healthz", timeout=30).status_code != 200:
            raise RuntimeError("/healthz did not answer 200")
        times.append((time.perf_counter() - started) * 1000)
        time.sleep(PAUSE_S)
    return {"p50": round(percentile(times, 0.5), 2), "p99": round(percentile(times, 0.99), 2),
            "max": round(max(times), 2), "n": len(times)}


class _Hints:
    """A client asking Expert hints one after the other until told to stop."""

    def __init__(self) -> None:
        self.took_ms: list[float] = []
        self.refused = 0

    def run(self, seat: tuple[str, dict[str, str]], stop: threading.Event) -> None:
        http, (hint_url, headers) = requests.Session(), seat
        while not stop.is_set():
            started = time.perf_counter()
            answer = http.post(hint_url, headers=headers, json={"level": "expert"}, timeout=30)
            if answer.status_code == 503 and answer.json().get("code") == "ai_busy":
                self.refused += 1
                time.sleep(float(answer.headers.get("Retry-After", "1")))
            elif answer.status_code == 200:
                self.took_ms.append((time.perf_counter() - started) * 1000)
            else:
                raise RuntimeError(f"a hint answered {answer.status_code}: {answer.text}")


def format_inline_hints(report: dict[str, Any]) -> str:
    """The report as lines of text (the page's table, with its target, is
    ``president bench report``'s)."""
    idle, busy = report["healthz_idle_ms"], report["healthz_hints_ms"]
    clients = report["setup"]["hint_clients"]
    return "\n".join([
        f"/healthz idle: p50 {idle['p50']} ms, p99 {idle['p99']} ms, max {idle['max']} ms "
        f"({idle['n']} asks)",
        f"/healthz while {clients} Expert hints think: p50 {busy['p50']} ms, p99 "
        f"{busy['p99']} ms, max {busy['max']} ms ({busy['n']} asks)",
        f"hints answered {report['hints_answered']} (p50 {report['hint_p50_ms']} ms), "
        f"refused {report['hints_refused']} (503 ai_busy)",
    ])
