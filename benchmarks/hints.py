"""``president bench hints``: hints and round reviews through the API, end to end.

PostgreSQL (a schema ``bench_hints`` of its own) and Redis; real processes
(``benchmarks.cluster``): a gRPC AI worker of two processes, a Celery worker for AI turns,
another serving the ``reviews`` queue alone (one process, one review at a time), beat,
and the API (gunicorn, gevent). This process is the client, over HTTP on loopback, with
one keep-alive session.

- Hints: games of one human seat and three Easy AIs (their turns through Celery). Each
  time the human is to act, one Normal and one Hard hint (default budgets; which goes
  first alternates), each timed by the client from request to answer, then the human
  plays a random legal action, so every hint is of a new position. The first few
  positions warm up the API's processes and their gRPC channels and are not counted.
- Reviews: games of the same seats played until round 1 is over (the human's moves
  random), then every round's review asked for at once, behind the one reviews worker.
  ``reviews_per_min`` is reviews done over the time from the first ask to the last
  ``finished_at``; ``review_s`` is each review's ``requested_at`` to ``finished_at``
  (its wait in the queue included), ``review_work_s`` the part its worker spent on it
  (from the later of its request and the previous review's end, to its end).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import requests

from benchmarks.cluster import Backend, Cluster
from benchmarks.load import percentile
from benchmarks.pipeline import fresh_servers
from config.settings import defaulted

LEVELS = ("normal", "hard")
SEATS = [{"kind": "human"}] + [{"kind": "ai", "engine": "easy"}] * 3
WARM_UP = 5  # positions hinted before the timing counts
ROUNDS_PER_HINT_GAME = 5
# Rate limits are off on the cluster (PRESIDENT_RATE_STORAGE=off: ``limits.within`` lets
# every hint and review through); these only keep it so should the cluster's storage be on.
SETTINGS = {"PRESIDENT_HINTS_RATE_SEAT": "1000000/hour",
            "PRESIDENT_HINTS_RATE_KEY": "1000000/hour",
            "PRESIDENT_REVIEWS_RATE_SEAT": "1000000/hour",
            "PRESIDENT_REVIEWS_RATE_KEY": "1000000/hour"}


class Client:
    """The API over one keep-alive session; any answer but the expected one is an error."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = requests.Session()

    def call(self, method: str, path: str, token: str | None = None, expect: tuple[int, ...]
             = (200,), **kwargs: Any) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        reply = self.http.request(method, f"{self.url}{path}", headers=headers, timeout=60,
                                  **kwargs)
        if reply.status_code not in expect:
            raise RuntimeError(f"{method} {path}: {reply.status_code} {reply.text[:500]}")
        return reply

    def create(self, seed: int, rounds: int) -> tuple[str, str]:
        made = self.call("POST", "/v1/games", expect=(201,), json={
            "preset": "classic", "seats": SEATS, "rounds": rounds, "seed": seed}).json()
        return str(made["game"]["game_id"]), str(made["tokens"]["0"])

    def my_turn(self, game_id: str, token: str, stop_after_rounds: int | None = None,
                timeout_s: float = 60) -> dict[str, Any] | None:
        """The game once seat 0 is to act (its legal actions non-empty); None once it is
        over, or once ``stop_after_rounds`` rounds are. The AIs' turns are waited for with
        the events' long poll."""
        deadline, seen = time.monotonic() + timeout_s, 0
        while True:
            game: dict[str, Any] = self.call("GET", f"/v1/games/{game_id}", token).json()
            view = game["view"]
            if game["status"] == "over" or (stop_after_rounds is not None
                                            and len(view["results"]) >= stop_after_rounds):
                return None
            if view["legal_actions"]:
                return game
            if time.monotonic() > deadline:
                raise RuntimeError(f"game {game_id}: seat 0 not to act in {timeout_s} s "
                                   f"(seat {view['to_act']} is)")
            seen = int(self.call("GET", f"/v1/games/{game_id}/events", token,
                                 params={"after": seen, "wait": 5}).json()["last"])

    def play(self, game_id: str, token: str, game: dict[str, Any], rng: random.Random) -> None:
        self.call("POST", f"/v1/games/{game_id}/actions", token, json={
            "action": rng.choice(game["view"]["legal_actions"]), "version": game["version"]})

    def hint_ms(self, game_id: str, token: str, level: str) -> float:
        started = time.perf_counter()
        self.call("POST", f"/v1/games/{game_id}/hint", token, json={"level": level})
        return (time.perf_counter() - started) * 1000


def _hints(client: Client, per_level: int, seed: int) -> dict[str, list[float]]:
    """``per_level`` timed hints of each level (after ``WARM_UP`` positions), one Normal
    and one Hard per position, then a random move; a game over, the next one."""
    rng = random.Random(seed)
    times: dict[str, list[float]] = {level: [] for level in LEVELS}
    positions, game_no = 0, 0
    while len(times["hard"]) < per_level:
        game_id, token = client.create(seed + game_no, ROUNDS_PER_HINT_GAME)
        game_no += 1
        while len(times["hard"]) < per_level and (game := client.my_turn(game_id, token)):
            order = LEVELS if positions % 2 == 0 else LEVELS[::-1]
            for level in order:
                took = client.hint_ms(game_id, token, level)
                if positions >= WARM_UP:
                    times[level].append(took)
            positions += 1
            client.play(game_id, token, game, rng)
    return times


def _iso(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def _reviews(client: Client, count: int, seed: int) -> dict[str, Any]:
    """``count`` round-1 reviews asked for at once, behind one reviews worker."""
    rng = random.Random(seed)
    games = []
    for n in range(count):
        game_id, token = client.create(seed + n, rounds=2)
        while game := client.my_turn(game_id, token, stop_after_rounds=1):
            client.play(game_id, token, game, rng)
        games.append((game_id, token))
    first_ask = time.time()
    for game_id, token in games:
        client.call("POST", f"/v1/games/{game_id}/rounds/1/review", token, expect=(200, 202))
    deadline = time.monotonic() + 60 + 60 * count
    finished = []
    for game_id, token in games:
        while True:
            review: dict[str, Any] = client.call(
                "GET", f"/v1/games/{game_id}/rounds/1/review", token,
                params={"wait": 30}).json()
            if review["state"] in ("done", "failed"):
                finished.append(review)
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"review of {game_id} still {review['state']}")
    done = [r for r in finished if r["state"] == "done"]
    if not done:
        raise RuntimeError(f"no review done: {[r['error'] for r in finished]}")
    spans = sorted((_iso(r["requested_at"]), _iso(r["finished_at"])) for r in done)
    waited = [end - asked for asked, end in spans]
    worked, previous_end = [], 0.0
    for asked, end in sorted(spans, key=lambda span: span[1]):
        worked.append(end - max(asked, previous_end))
        previous_end = end
    last_done = max(end for _, end in spans)
    return {"reviews_per_min": round(len(done) / ((last_done - first_ask) / 60), 2),
            "review_s": {"p50": round(statistics.median(waited), 2),
                         "max": round(max(waited), 2)},
            "review_work_s": {"p50": round(statistics.median(worked), 2),
                              "max": round(max(worked), 2)},
            "decisions_weighed_mean": round(statistics.mean(r["weighed"] for r in done), 1),
            "reviews": len(done), "reviews_failed": len(finished) - len(done)}


def bench_hints(database_url: str, redis_url: str, hints: int = 200, reviews: int = 6,
                api_workers: int = 2, seed: int = 1) -> dict[str, Any]:
    database = fresh_servers(database_url, redis_url, "bench_hints")
    with tempfile.TemporaryDirectory(prefix="president-bench-") as tmp:
        cluster = Cluster(Backend("redis", database, redis_url), Path(tmp), settings=SETTINGS)
        try:
            cluster.start_ai_worker(processes=2)
            cluster.start_celery_worker()  # AI turns (its default queues leave reviews out)
            cluster.start_celery_worker("--queues", "reviews")
            cluster.start_beat()
            cluster.start_api(workers=api_workers)
            client = Client(cluster.api_urls[0])
            times = _hints(client, hints, seed)
            reviewed = _reviews(client, reviews, seed + 1000)
        except BaseException:
            print(cluster.logs(), file=sys.stderr)
            raise
        finally:
            cluster.close()
    return {"hint_p50_ms": {level: round(statistics.median(times[level]), 2)
                            for level in LEVELS},
            "hint_p99_ms": {level: round(percentile(times[level], 0.99), 2)
                            for level in LEVELS},
            "hint_max_ms": {level: round(max(times[level]), 2) for level in LEVELS},
            "hints": {level: len(times[level]) for level in LEVELS},
            **reviewed,
            "setup": {"database": database.split("@")[-1].split("?")[0],
                      "redis": redis_url.split("@")[-1], "cpus": os.cpu_count(),
                      "ai_worker_processes": 2, "api_workers": api_workers,
                      "celery": "one worker for AI turns, one on the reviews queue "
                                "(solo pool: one process each)",
                      "seats": "human + 3 x easy", "hint_budgets": "defaults (hard 50 ms)",
                      "warm_up_positions": WARM_UP,
                      "review_budget_ms": float(defaulted("PRESIDENT_REVIEW_BUDGET_MS")),
                      "rate_limits": "off (PRESIDENT_RATE_STORAGE=off)"}}


def format_hints(report: dict[str, Any]) -> str:
    p50, p99, count = report["hint_p50_ms"], report["hint_p99_ms"], report["hints"]
    lines = [f"Hint through the API, {level}: p50 {p50[level]:.2f} ms, p99 {p99[level]:.2f} ms "
             f"({count[level]} hints)" for level in LEVELS]
    lines.append(f"Reviews on one worker process: {report['reviews_per_min']} a minute "
                 f"({report['reviews']} at once; {report['reviews_failed']} failed); each "
                 f"asked to done p50 {report['review_s']['p50']} s, max "
                 f"{report['review_s']['max']} s; its worker's time p50 "
                 f"{report['review_work_s']['p50']} s, max {report['review_work_s']['max']} s; "
                 f"{report['decisions_weighed_mean']} decisions weighed on average")
    return "\n".join(lines) + "\n" + json.dumps(report["setup"])
