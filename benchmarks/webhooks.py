"""``president bench webhooks``: a move's webhook, from the move's commit to the receiver.

PostgreSQL (a schema of its own) and Redis; a Celery worker on the webhooks queue (a
thread pool) in a process of its own, as deployed; a receiver (an HTTP server) in
another; this process plays moves of four-human games through the service layer, as the
API does, each move writing a ``seat.turn`` message for the key's endpoint, which this
process's outbox relay hands to the queue.

- Latency: one move at a time, each waited for at the receiver; a delivery's time is
  the receiver's clock on arrival minus the message's ``created_at`` (the move's
  statement, by the database's clock: one machine, one clock).
- Throughput: moves from several threads at once; deliveries a second from the first
  commit to the last arrival.
"""

from __future__ import annotations

import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet
from sqlalchemy import Engine, func, select

import bootstrap
from benchmarks.cluster import Backend, Cluster
from benchmarks.load import percentile
from benchmarks.ports import free_port
from benchmarks.pipeline import fresh_servers
from engine import observe
from services.commands import Act, CreateGame, CreateKey, RegisterWebhook, SeatSpec
from services.container import Container
from services.domain import Caller
from services.errors import StaleVersion
from services.handlers.games import create_game
from services.handlers.keys import create_key
from services.handlers.moves import act
from services.handlers.webhooks import register
from services.store.db import make_engine
from services.store.models import WebhookMessageRow
from workers.ai import decide

# The receiver: answers 204 at once and writes down "webhook-id arrival" per request.
RECEIVER = """
import sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
out = open(sys.argv[2], "a", buffering=1)
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        out.write(f"{self.headers['webhook-id']} {time.time()}\\n")
        self.send_response(204); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 128  # (a web server's backlog, not Python's 5)
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""
HUMANS = (SeatSpec("human"),) * 4
WARM_UP = 10  # moves before the latency is measured


class Tables:
    """Four-human games of one key, each seat's token kept: any seat to act can move."""

    def __init__(self, container: Container, caller: Caller, games: int) -> None:
        self._container = container
        self.tables = []
        for n in range(games):
            # (the deal drawn as the service does, fixed here: strangers' seats take no seed)
            made = create_game(CreateGame("classic", HUMANS), container.uow(),
                               container.engines, caller=caller, draw=functools.partial(int, n))
            self.tables.append((made.game.game_id, made.tokens))

    def move(self, table: int) -> None:
        """The seat to act's Easy choice; a game that ended starts over as a new one."""
        game_id, tokens = self.tables[table]
        game = self._container.reads.get(game_id)
        assert game is not None
        if game.state.is_over or game.state.to_act < 0:
            raise StopIteration
        seat = game.state.to_act
        action = decide(observe(game.state, seat), "easy", seed=game.version)
        try:
            act(Act(game_id, tokens[seat], str(action), game.version), self._container.uow())
        except StaleVersion:
            pass


def _arrivals(path: Path) -> dict[str, float]:
    if not path.exists():
        return {}
    pairs = (line.split() for line in path.read_text().splitlines() if line.strip())
    return {webhook_id: float(at) for webhook_id, at in pairs}


def _created(database: str) -> dict[str, float]:
    """webhook-id: when its move wrote it, of every message."""
    with _engine(database).connect() as c:
        return {webhook_id: at.timestamp() for webhook_id, at in c.execute(
            select(WebhookMessageRow.webhook_id, WebhookMessageRow.created_at))}


def _written(database: str) -> int:
    with _engine(database).connect() as c:
        return int(c.execute(select(func.count()).select_from(WebhookMessageRow)).scalar_one())


@functools.cache
def _engine(database: str) -> Engine:
    return make_engine(database)


def _wait_delivered(arrivals: Path, count: int, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while len(_arrivals(arrivals)) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{len(_arrivals(arrivals))} of {count} webhooks arrived")
        time.sleep(0.002)


def bench_webhooks(database_url: str, redis_url: str, moves: int = 200,
                   load_moves: int = 2000, threads: int = 8) -> dict[str, Any]:
    database = fresh_servers(database_url, redis_url, "bench_webhooks")
    settings = {"PRESIDENT_WEBHOOK_PRIVATE_URLS": "loopback",
                "PRESIDENT_SECRET_KEY": Fernet.generate_key().decode()}
    os.environ.update(settings)  # this process's vault and sender, as the worker's
    with tempfile.TemporaryDirectory(prefix="president-bench-") as tmp:
        work, port = Path(tmp), free_port()
        arrivals = work / "arrivals.txt"
        receiver = subprocess.Popen([sys.executable, "-c", RECEIVER, str(port), str(arrivals)])
        cluster = Cluster(Backend("redis", database, redis_url), work, settings=settings)
        store = bootstrap.open_store(database)
        try:
            cluster.start_celery_worker("--queues", "webhooks", "--pool", "threads",
                                        "--concurrency", "8")
            container = bootstrap.container(broker_url=redis_url, store=store)
            key, _ = create_key(CreateKey("bench", ("games:create-human", "webhooks")),
                                container.uow())
            caller = Caller(key)
            assert container.webhooks is not None
            hooks = container.webhooks
            register(RegisterWebhook(f"http://127.0.0.1:{port}/in", ("seat.turn",)),
                     container.uow(), caller, hooks.sender, hooks.vault, hooks.policy)
            latency = _latency(container, caller, arrivals, database, moves)
            load = _throughput(container, caller, arrivals, database, load_moves, threads)
        finally:
            receiver.terminate()
            cluster.close()
            store.close()
    return {**latency, **load,
            "setup": {"database": database.split("@")[-1].split("?")[0],
                      "celery": "one worker on the webhooks queue, 8 threads",
                      "moves_one_at_a_time": moves, "moves_at_once": load_moves,
                      "threads": threads}}


def _latency(container: Container, caller: Caller, arrivals: Path, database: str,
             moves: int) -> dict[str, Any]:
    """One move at a time, each one's webhook waited for (a move that ends its game
    writes none: what was written is counted), after ``WARM_UP`` moves (the worker's
    first task opens its connections)."""
    tables = Tables(container, caller, games=max(1, moves // 40))
    played, table, warm = 0, 0, set[str]()
    while played < moves + WARM_UP:
        if played == WARM_UP:
            warm = set(_created(database))
        try:
            tables.move(table)
        except StopIteration:
            table += 1
            continue
        played += 1
        _wait_delivered(arrivals, _written(database))
    created, arrived = _created(database), _arrivals(arrivals)
    times = [(arrived[i] - created[i]) * 1000 for i in arrived
             if i in created and i not in warm]
    return {"delivery_p50_ms": round(statistics.median(times), 2),
            "delivery_p99_ms": round(percentile(times, 0.99), 2), "deliveries": len(times)}


def _throughput(container: Container, caller: Caller, arrivals: Path, database: str,
                moves: int, threads: int) -> dict[str, Any]:
    tables = Tables(container, caller, games=threads * max(1, moves // threads // 40))
    _wait_delivered(arrivals, _written(database))
    before = len(_arrivals(arrivals))
    per_thread = moves // threads
    started = time.time()

    def play(first: int) -> None:
        table, played = first, 0
        while played < per_thread and table < len(tables.tables):
            try:
                tables.move(table)
                played += 1
            except StopIteration:
                table += threads

    workers = [threading.Thread(target=play, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    _wait_delivered(arrivals, _written(database), timeout_s=120)
    arrived = _arrivals(arrivals)
    last = max(arrived.values())
    count = len(arrived) - before
    return {"deliveries_per_s": round(count / (last - started), 1),
            "deliveries_at_once": count}


def format_webhooks(report: dict[str, Any]) -> str:
    return (f"Webhook, move's commit to the receiver (one move at a time): "
            f"p50 {report['delivery_p50_ms']} ms, p99 {report['delivery_p99_ms']} ms "
            f"({report['deliveries']} deliveries)\n"
            f"Deliveries a second, {report['setup']['threads']} threads of moves: "
            f"{report['deliveries_per_s']} ({report['deliveries_at_once']} deliveries)\n"
            + json.dumps(report["setup"]))
