"""``president bench pipeline``: AI turns through Celery and gRPC, end to end.

Real processes (``benchmarks.cluster``): a gRPC AI worker, Celery workers, and this
process creating all-Easy games through the service layer, as the API does.

- Turn latency, enqueue to applied: games played one at a time; a turn is the time from
  one action's commit (after which its task sends the next turn) to the next action's
  commit, read off the action log's timestamps. On the embedded broker and on Redis.
- Throughput: all-AI rounds per minute with 1 and with 2 Celery worker processes, many
  games at once, on Redis.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import select

import bootstrap
from benchmarks.cluster import Backend, Cluster
from benchmarks.load import percentile
from services.commands import CreateGame, SeatSpec
from services.container import Container
from services.handlers.games import create_game
from services.store import Store
from services.store.db import in_schema, make_engine, recreate
from services.store.models import ActionRow, GameRow

EASY_TABLE = (SeatSpec("ai", "easy"),) * 4


def _fresh_database(url: str) -> None:
    recreate(make_engine(url)).dispose()


def _flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def fresh_servers(database_url: str, redis_url: str, schema: str) -> str:
    """A benchmark's PostgreSQL schema made afresh and its Redis database emptied: the
    schema's URL."""
    if not database_url.startswith("postgresql"):
        raise ValueError(f"--database-url takes a PostgreSQL URL (a schema {schema} of its "
                         "own)")
    database = in_schema(database_url, schema)
    _fresh_database(database)
    _flush_redis(redis_url)
    return database


def _play(container: Container, games: int, rounds: int, seed: int) -> list[str]:
    ids = []
    for n in range(games):
        created = create_game(CreateGame("classic", EASY_TABLE, rounds=rounds, seed=seed + n),
                              container.uow(), container.engines)
        ids.append(created.game.game_id)
    return ids


def _wait_over(store: Store, ids: list[str], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    with store.engine.connect() as connection:
        while True:
            active = connection.execute(select(GameRow.id).where(
                GameRow.id.in_(ids), GameRow.status == "active")).all()
            connection.rollback()
            if not active:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(active)} game(s) did not finish in {timeout_s} s")
            time.sleep(0.05)


def _turn_times_ms(store: Store, ids: list[str]) -> list[float]:
    with store.engine.connect() as connection:
        rows = connection.execute(select(ActionRow.game_id, ActionRow.created_at).where(
            ActionRow.game_id.in_(ids)).order_by(ActionRow.game_id, ActionRow.seq)).all()
    times: list[float] = []
    for (game, at), (previous_game, before) in zip(rows[1:], rows):
        if game == previous_game:
            times.append((at - before).total_seconds() * 1000)
    return times


def _cluster(backend: Backend, workdir: Path, workers: int) -> Cluster:
    workdir = workdir / f"{backend.name}-{workers}-{time.monotonic_ns()}"
    workdir.mkdir()
    cluster = Cluster(backend, workdir, settings={"PRESIDENT_TURN_EXPIRES_S": "60"})
    try:
        cluster.start_ai_worker()
        for _ in range(workers):
            cluster.start_celery_worker()
    except BaseException:  # what did start must not outlive the benchmark
        cluster.close()
        raise
    return cluster


def turn_latency(backend: Backend, workdir: Path, games: int, rounds: int) -> dict[str, float]:
    """Games one after the other on one Celery worker: p50/p95 of an Easy turn."""
    _fresh_database(backend.database_url)
    cluster = _cluster(backend, workdir, workers=1)
    store = bootstrap.open_store(backend.database_url)
    container = bootstrap.container(broker_url=backend.broker_url, store=store)
    try:
        ids = []
        for n in range(games):
            ids += _play(container, 1, rounds, seed=100 + n)
            _wait_over(store, ids[-1:], timeout_s=120)
        times = _turn_times_ms(store, ids)
    finally:
        cluster.close()
        store.close()
    return {"easy_turn_p50_ms": round(statistics.median(times), 2),
            "easy_turn_p95_ms": round(percentile(times, 0.95), 2), "turns": len(times)}


def throughput(backend: Backend, workdir: Path, workers: int, games: int,
               rounds: int) -> float:
    """All-Easy rounds per minute, ``games`` series at once on ``workers`` processes."""
    _fresh_database(backend.database_url)
    if backend.broker_url.startswith("redis"):
        _flush_redis(backend.broker_url)
    cluster = _cluster(backend, workdir, workers)
    store = bootstrap.open_store(backend.database_url)
    container = bootstrap.container(broker_url=backend.broker_url, store=store)
    try:
        started = time.perf_counter()
        _wait_over(store, _play(container, games, rounds, seed=1), timeout_s=600)
        elapsed = time.perf_counter() - started
    finally:
        cluster.close()
        store.close()
    return round(games * rounds / elapsed * 60, 1)


def bench_pipeline(database_url: str | None, redis_url: str, games: int = 5, rounds: int = 2,
                   load_games: int = 16) -> dict[str, Any]:
    if database_url and not database_url.startswith("postgresql"):
        # the benchmark empties the tables it uses: only a schema of its own is safe
        raise ValueError("--database-url takes a PostgreSQL URL (the benchmark uses a "
                         "schema of its own there); without it, a temporary SQLite file")
    with tempfile.TemporaryDirectory(prefix="president-bench-") as tmp:
        work = Path(tmp)
        embedded = Backend("embedded", f"sqlite:///{work}/embedded.db",
                           f"sqla+sqlite:///{work}/broker.db")
        database = in_schema(database_url, "bench_pipeline") if database_url else f"sqlite:///{work}/redis.db"
        on_redis = Backend("redis", database, redis_url)
        report: dict[str, Any] = {
            "embedded": turn_latency(embedded, work, games, rounds),
            "redis": {**turn_latency(on_redis, work, games, rounds),
                      "database": database.split("@")[-1].split("?")[0]},
        }
        per_minute = {str(n): throughput(on_redis, work, n, load_games, rounds) for n in (1, 2)}
        report["rounds_per_min"] = per_minute
        report["speedup_2_vs_1"] = round(per_minute["2"] / per_minute["1"], 2)
        report["setup"] = {"games_for_latency": games, "rounds_per_game": rounds,
                           "games_at_once": load_games, "seats": "4 x easy",
                           "celery_pool": "solo (one process per worker)"}
    return report


def format_pipeline(report: dict[str, Any]) -> str:
    lines = ["AI turn, enqueue to applied (Easy, one game at a time):"]
    for name in ("embedded", "redis"):
        r = report[name]
        lines.append(f"  {name:9} p50 {r['easy_turn_p50_ms']:7.2f} ms   "
                     f"p95 {r['easy_turn_p95_ms']:7.2f} ms   ({r['turns']} turns)")
    per_minute = report["rounds_per_min"]
    lines.append(f"All-AI rounds per minute on Redis: 1 worker {per_minute['1']}, "
                 f"2 workers {per_minute['2']} ({report['speedup_2_vs_1']}x)")
    return "\n".join(lines)
