"""``president bench api``: the REST service under gunicorn on loopback, next to a bare
Flask "hello" endpoint served the same way in the same run.

Both apps run under gunicorn, served the same way: by default as deploy/ runs the API
(``services.api.serve.API_WORKERS`` gevent workers; ``--workers``, ``--worker-class``
and, for gthread, ``--threads`` change it). Keep-alive connections then, for a fixed
time each:

- hello: ``GET /hello``; hello_db (with wrk): ``GET /hello/db``, the same plus one
  ``SELECT 1``: what one round trip to the database costs a request, the most any
  endpoint that waits on the database can reach;
- view: ``GET /v1/games/{id}`` with the token of the seat to act, over many games (on
  PostgreSQL, answered from memory once a process has read a game: the change feed
  vouches for the states it holds);
- action: ``POST /v1/games/{id}/actions`` only. The bench created the games with known
  seeds (read from the database: the service drew them), so it mirrors each one with the engine and knows the seat to act, its token, a
  legal action and the version — the load is actions alone.

The load comes from wrk, a C load generator, where it is installed: on a small machine
Python client threads compete with the server for the CPU and cap what they measure.
For actions wrk replays requests computed before the timed window (one game has at most
one request in flight), and the server's final versions are checked against the 2xx
answers wrk counted. Without wrk, Python client threads drive all three.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple, Sequence

from sqlalchemy import make_url, select

from benchmarks.ports import bound_socket, free_port
from engine import Rules, apply, new_series
from engine.game import generate
from services.api.serve import API_THREADS, API_WORKER_CLASS, API_WORKERS
from services.store.db import in_schema, make_engine, recreate
from services.store.models import GameRow

HUMANS = [{"kind": "human"}] * 4
RULES = Rules.preset("classic", players=4, rounds=100)


class Shape(NamedTuple):
    """How gunicorn serves both apps."""

    workers: int
    worker_class: str  # gevent or gthread
    threads: int  # per worker, gthread only

    def options(self) -> list[str]:
        threads = ["--threads", str(self.threads)] if self.worker_class == "gthread" else []
        return ["--workers", str(self.workers), "--worker-class", self.worker_class, *threads]

    def __str__(self) -> str:
        threads = f" x {self.threads} threads" if self.worker_class == "gthread" else ""
        return f"gunicorn {self.worker_class}, {self.workers} workers{threads}"


class Server(NamedTuple):
    """An app under gunicorn: the master's pid, and the loopback port it serves."""

    pid: int
    port: int


@contextmanager
def gunicorn(app: str, env: dict[str, str], connections: int,
             shape: Shape) -> Iterator[Server]:
    """``app`` under gunicorn, once every worker has loaded it, on a port the OS chose:
    gunicorn inherits the socket, already bound (``--bind fd://N``), so no other process
    can take the port in between.

    Each worker takes at most its share of the load's ``connections``
    (``--worker-connections``): left alone, whichever worker wakes first accepts most of a
    run's keep-alive connections, and a run measures one busy process beside an idle one
    (requests/s varied by a factor of two from one run to the next). (gthread keeps at
    most ``worker_connections - threads`` connections idle between requests and closes
    the others after their answer: at 8 threads about 1% of requests came on a new
    connection here; with many more threads than a worker's share of connections, most
    would.)"""
    share = -(-connections // shape.workers) + 1  # (+1: the bench's own setup connection)
    with tempfile.TemporaryDirectory(prefix="president-bench-ready-") as ready, \
            bound_socket() as sock:
        port = int(sock.getsockname()[1])
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", app, "--bind", f"fd://{sock.fileno()}",
             *shape.options(), "--worker-connections", str(share), "--log-level", "warning",
             "-c", "python:benchmarks.gunicorn_hooks"],
            env={**os.environ, **env, "PRESIDENT_BENCH_READY_DIR": ready},
            pass_fds=(sock.fileno(),))
        sock.close()  # gunicorn holds it now
        try:
            _wait_up(port)
            _wait_for(lambda: len(os.listdir(ready)) >= shape.workers, "gunicorn's workers")
            yield Server(proc.pid, port)
        finally:
            proc.terminate()
            proc.wait(timeout=30)


# --- CPU per request: less noisy than requests/s when two workers share connections unevenly

def _stats() -> list[tuple[int, int, str, float]]:
    """(pid, parent pid, command name, CPU seconds) of every process on this machine."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # gone meanwhile
            continue
        name, rest = text[text.index("(") + 1:text.rindex(")")], text.rsplit(")", 1)[1].split()
        found.append((int(stat.parent.name), int(rest[1]), name,
                      (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")))
    return found


def _cpu(server: int) -> tuple[float, float]:
    """CPU seconds so far of the gunicorn ``server`` (master and workers) and of the
    PostgreSQL processes on this machine (0 when none)."""
    stats = _stats()
    return (sum(cpu for pid, parent, _, cpu in stats if server in (pid, parent)),
            sum(cpu for _, _, name, cpu in stats if name == "postgres"))


def _per_request(figures: dict[str, float], before: tuple[float, float],
                 after: tuple[float, float]) -> dict[str, float]:
    n = max(1.0, figures["requests"])
    return {**figures, "server_cpu_us": round((after[0] - before[0]) / n * 1e6, 1),
            "db_cpu_us": round((after[1] - before[1]) / n * 1e6, 1)}


def _wait_for(condition: Callable[[], bool], what: str, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout_s} s for {what}")
        time.sleep(0.05)


def _wait_up(port: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _call(conn: http.client.HTTPConnection, method: str, path: str,
          body: dict[str, Any] | None = None, token: str | None = None,
          key: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if key:
        headers["X-API-Key"] = key
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = conn.getresponse()
    data = response.read()
    return response.status, json.loads(data) if data else None


def _load(port: int, clients: int, seconds: float,
          step: Callable[[http.client.HTTPConnection, random.Random, int], float | None]
          ) -> dict[str, float]:
    """Run ``step`` in ``clients`` threads for ``seconds``; a step returns the seconds of
    its timed request (None: nothing timed)."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    stop = time.perf_counter() + seconds

    def worker(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        rng = random.Random(k)
        while time.perf_counter() < stop:
            took = step(conn, rng, k)
            if took is not None:
                latencies[k].append(took)
        conn.close()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    every = sorted(x for per in latencies for x in per)
    return {"requests": len(every), "rps": round(len(every) / wall, 1),
            "p50_ms": round(statistics.median(every) * 1000, 3) if every else 0.0,
            "p99_ms": round(every[min(len(every) - 1, int(0.99 * len(every)))] * 1000, 3)
            if every else 0.0}


def _timed(conn: http.client.HTTPConnection, method: str, path: str,
           body: dict[str, Any] | None = None, token: str | None = None) -> tuple[float, int, Any]:
    started = time.perf_counter()
    status, data = _call(conn, method, path, body, token)
    return time.perf_counter() - started, status, data


def bench_api(database_url: str | None, seconds: float = 5.0, clients: int = 32,
              games: int = 128, rounds: int = 4,
              workers: int = API_WORKERS, worker_class: str = API_WORKER_CLASS,
              threads: int = API_THREADS,
              limits_url: str | None = "redis://127.0.0.1:6379/13",
              tracing: bool = False) -> dict[str, Any]:
    """Hello, view and action figures: with wrk, ``rounds`` rounds of the three in turn
    and the median of each figure (two gunicorn workers share the connections unevenly
    from one run to the next, so one run alone can be far off); without wrk, one
    round with Python client threads. Each app gets a free port from the OS. With
    ``tracing`` (wrk only), the API traced too, every request, to an OTLP receiver in a
    process of its own, in the same rounds."""
    tmp = tempfile.mkdtemp(prefix="president-bench-")
    url = database_url or f"sqlite:///{tmp}/bench.db"
    if make_url(url).get_backend_name() == "postgresql":  # tables of its own, from scratch
        url = in_schema(url, "bench_api")
    recreate(make_engine(url)).dispose()
    env = {"DATABASE_URL": url, "PRESIDENT_RATE_STORAGE": "off",  # the unlimited shape
           "PRESIDENT_QUOTA_GAMES_ANONYMOUS": str(games)}
    use_wrk = shutil.which("wrk") is not None
    limited = _limited_env(env, limits_url) if use_wrk else None
    sink = otlp_sink() if tracing and use_wrk else None
    shape = Shape(workers, worker_class, threads)
    # Each API app alone beside the bare one: an idle one would still take every move's
    # notice from the change feed, on the same cores. With the limited shape, the two
    # take turns within each round, first one then the other, as the games go on (an
    # action costs more as the tables grow: run one shape after the other and the second
    # loses a third of its actions for that alone).
    with gunicorn("benchmarks.hello_app:app", env, clients, shape) as hello_server:
        with gunicorn("bootstrap:api_app()", env, clients, shape) as api_server:
            tables, seeds = _create_games(api_server.port, games, url)
            if not use_wrk:
                runs = _python_round(api_server.port, hello_server.port, tables, seeds, clients,
                                     seconds, {"hello": hello_server.pid,
                                               "view": api_server.pid,
                                               "action": api_server.pid})
                check = None
            else:
                progress = _Progress.of(api_server.port, tables, seeds, seconds,
                                        rounds * (2 if limited else 1))
        if use_wrk:
            shapes = [(env, None, "")] + ([(limited[0], limited[1], "_limited")]
                                         if limited else [])
            if sink is not None:
                shapes.append(({**env, "OTEL_EXPORTER_OTLP_ENDPOINT": sink[1]}, None,
                               "_traced"))
            runs, check = {}, {"answered_2xx": 0, "applied": 0, "in_flight_at_end": 0}
            for round_ in range(rounds):
                for api_env, key, suffix in shapes[::1 if round_ % 2 == 0 else -1]:
                    with gunicorn("bootstrap:api_app()", api_env, clients, shape) as api:
                        _warm(api.port, progress.views, key)
                        servers = {"hello": hello_server.pid, "hello_db": hello_server.pid,
                                   "view": api.pid, "action": api.pid}
                        one, more = _wrk_rounds(api.port, hello_server.port, progress,
                                                clients, seconds, 1, servers,
                                                lambda: _vacuum(url), key=key)
                    for name, per in one.items():
                        runs.setdefault(name + suffix, []).extend(per)
                    check = {name: n + more[name] for name, n in check.items()}
    if sink is not None:
        sink[0].terminate()
    limited_runs = {name[:-len("_limited")]: per for name, per in runs.items()
                    if name.endswith("_limited")}
    hello, view, action = (_median(runs[name]) for name in ("hello", "view", "action"))
    hello_db = _median(runs["hello_db"]) if runs.get("hello_db") else None
    view_limited, action_limited = (_median(limited_runs[name]) if limited_runs else None
                                    for name in ("view", "action"))
    limited_hello = _median(limited_runs["hello"]) if limited_runs else None
    traced = {name: _median(runs[name + "_traced"]) for name in ("view", "action")
              if runs.get(name + "_traced")}
    return {
        "database": make_url(url).get_backend_name(),
        "hello": hello, "view": view, "action": action,
        # (wrk only) the bare endpoint plus one SELECT 1: the most a reading endpoint gets
        "hello_db": hello_db,
        "hello_db_vs_hello": hello_db and round(hello_db["rps"] / hello["rps"], 3),
        "view_vs_hello": round(view["rps"] / hello["rps"], 3),
        "action_vs_hello": round(action["rps"] / hello["rps"], 3),
        # (wrk, and a Redis at limits_url) the same with client keys and rate limits on
        "view_limited": view_limited, "action_limited": action_limited,
        # (of the bare endpoint measured in the same rounds as they)
        "view_limited_vs_hello": view_limited and limited_hello and round(
            view_limited["rps"] / limited_hello["rps"], 3),
        "action_limited_vs_hello": action_limited and limited_hello and round(
            action_limited["rps"] / limited_hello["rps"], 3),
        "limits": None if limited is None else f"keys, rate limits on {limits_url}",
        # (wrk, ``tracing``) the same traced, every request, in the same rounds
        "view_traced": traced.get("view"), "action_traced": traced.get("action"),
        "view_traced_vs_view": traced and round(traced["view"]["rps"] / view["rps"], 3),
        "action_traced_vs_action": traced and round(
            traced["action"]["rps"] / action["rps"], 3),
        "load_generator": "wrk" if use_wrk else "python threads",
        "server": str(shape), "workers": workers, "worker_class": worker_class,
        "threads": threads if worker_class == "gthread" else None,
        "clients": clients,
        "games": games,
        "rounds": {name: [r["rps"] for r in per] for name, per in runs.items()},
        "action_check": check,  # wrk only: what the server applied vs the 2xx wrk counted
    }


# An OTLP/HTTP receiver that answers every export and keeps nothing.
SINK = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""


def otlp_sink() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    return (subprocess.Popen([sys.executable, "-c", SINK, str(port)]),
            f"http://127.0.0.1:{port}")


def _warm(port: int, views: list[tuple[str, str | None]], key: str | None,
          passes: int = 4) -> None:
    """Read every game a few times, each on a new connection, so that each worker of a
    server just started holds the games, as a server that has run a while does."""
    for _ in range(passes):
        for path, token in views:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                status, _ = _call(conn, "GET", path, token=token, key=key)
            finally:
                conn.close()
            if status != 200:
                raise RuntimeError(f"warming up: GET {path} answered {status}")


def _limited_env(env: dict[str, str], limits_url: str | None
                 ) -> tuple[dict[str, str], str] | None:
    """The environment of the API in its limited shape (what deploy/ runs: client keys
    required, rate limits counted on Redis, at a rate no run reaches) and the client key
    its requests carry; None without a Redis at ``limits_url``."""
    if not limits_url:
        return None
    import redis

    from services.commands import CreateKey
    from services.handlers.keys import create_key
    from services.store import Store

    try:
        redis.Redis.from_url(limits_url, socket_timeout=2).flushdb()  # the bench's own
    except redis.RedisError:
        return None
    store = Store(make_engine(env["DATABASE_URL"]))
    try:
        _, secret = create_key(CreateKey("bench", ("games:create-human", "games:read")),
                               store.uow())
    finally:
        store.close()
    return {**env, "PRESIDENT_AUTH": "keys", "PRESIDENT_RATE_STORAGE": limits_url,
            "PRESIDENT_RATE_KEY": "1000000000/minute"}, secret


def _vacuum(url: str) -> None:
    """What autovacuum does on a server that runs it (this machine's runs without): each
    round starts on tables without the dead row versions of the round before, which
    would otherwise slow every round down more than the last."""
    if make_url(url).get_backend_name() != "postgresql":
        return
    engine = make_engine(url, autocommit=True)
    with engine.connect() as connection:
        connection.exec_driver_sql("VACUUM ANALYZE games, actions, events, idempotency_keys")
    engine.dispose()


FIGURES = ("rps", "p50_ms", "p99_ms", "server_cpu_us", "db_cpu_us")


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.median(r[k] for r in runs), 3) for k in FIGURES}


Table = tuple[str, dict[str, str]]  # game id, token per seat


def _create_games(port: int, games: int, url: str) -> tuple[list[Table], list[int]]:
    """The games, and the seed each was dealt from, read from the database (the service
    draws the deal of a game of four humans: no request may choose it)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    tables = []
    for _ in range(games):
        status, created = _call(conn, "POST", "/v1/games", {
            "preset": "classic", "seats": HUMANS, "rounds": RULES.rounds})
        assert status == 201, created
        tables.append((created["game"]["game_id"], created["tokens"]))
    conn.close()
    engine = make_engine(url)
    with engine.connect() as connection:
        drawn = dict(connection.execute(select(GameRow.id, GameRow.seed)).tuples().all())
    engine.dispose()
    return tables, [drawn[game_id] for game_id, _ in tables]


def _actors(port: int, tables: list[Table]) -> dict[str, str]:
    """The token of the seat to act in each game: views are read as that seat."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    actors = {}
    for game_id, tokens in tables:
        _, public = _call(conn, "GET", f"/v1/games/{game_id}")
        actors[game_id] = tokens[str(public["view"]["to_act"])]
    conn.close()
    return actors


def _next_action(state: Any) -> Any:
    legal = generate(state)
    return next((a for a in legal if a), legal[0])  # a play when there is one


def _python_round(port: int, hello_port: int, tables: list[Table], seeds: list[int],
                  clients: int,
                  seconds: float, servers: dict[str, int]
                  ) -> dict[str, list[dict[str, float]]]:
    def measured(name: str, step: Callable[[http.client.HTTPConnection, random.Random, int],
                                           float | None], to: int = port) -> dict[str, float]:
        before = _cpu(servers[name])
        figures = _load(to, clients, seconds, step)
        return _per_request(figures, before, _cpu(servers[name]))

    hello = measured("hello", lambda conn, rng, k: _timed(conn, "GET", "/hello")[0],
                     hello_port)
    actors = _actors(port, tables)

    def view_step(conn: http.client.HTTPConnection, rng: random.Random, k: int) -> float:
        game_id, _ = tables[rng.randrange(len(tables))]
        took, status, _ = _timed(conn, "GET", f"/v1/games/{game_id}", token=actors[game_id])
        assert status == 200
        return took

    mirrors = {game_id: new_series(RULES, seed) for seed, (game_id, _) in zip(seeds, tables)}
    versions = dict.fromkeys(mirrors, 0)

    def action_step(conn: http.client.HTTPConnection, rng: random.Random,
                    k: int) -> float | None:
        mine = tables[k::clients]  # each thread plays its own games: no conflicts
        game_id, tokens = mine[rng.randrange(len(mine))]
        state = mirrors[game_id]
        if state.is_over:
            return None
        action = _next_action(state)
        took, status, data = _timed(conn, "POST", f"/v1/games/{game_id}/actions",
                                    {"action": str(action), "version": versions[game_id]},
                                    tokens[str(state.to_act)])
        assert status == 200, data
        mirrors[game_id], _ = apply(state, action)
        versions[game_id] += 1
        return took

    view = measured("view", view_step)
    return {"hello": [hello], "view": [view], "action": [measured("action", action_step)]}


# Enough precomputed actions per game that none runs out at this overall rate (a 2-core
# machine is far below it); a game that does run out just leaves the rotation.
ACTIONS_PER_S_CEILING = 3000


class _Progress(NamedTuple):
    """The games the bench plays and how far it has played them, across its phases."""

    tables: list[Table]
    views: list[tuple[str, str | None]]
    plans: list[list[tuple[str, str]]]
    versions: dict[str, int]
    per_round: int  # planned actions per game and round

    @classmethod
    def of(cls, port: int, tables: list[Table], seeds: list[int], seconds: float,
           rounds: int) -> _Progress:
        actors = _actors(port, tables)
        # (a series that ends first bounds the plan: 100 rounds take thousands of actions)
        per_round = math.ceil(_wrk_seconds(seconds) * ACTIONS_PER_S_CEILING * 1.5 / len(tables))
        return cls(tables, [(f"/v1/games/{g}", actors[g]) for g, _ in tables],
                   [_plan(seed, tokens, per_round * rounds)
                    for seed, (_, tokens) in zip(seeds, tables)],
                   dict.fromkeys((g for g, _ in tables), 0), per_round)


def _wrk_rounds(port: int, hello_port: int, progress: _Progress, clients: int,
                seconds: float, rounds: int, servers: dict[str, int], tidy: Callable[[], None],
                key: str | None = None
                ) -> tuple[dict[str, list[dict[str, float]]], dict[str, int]]:
    """Rounds of hello, hello/db, view and action (each request with the client ``key``,
    if one is given), the actions going on from where ``progress`` says."""
    runs: dict[str, list[dict[str, float]]] = {"hello": [], "hello_db": [], "view": [],
                                                "action": []}
    check = {"answered_2xx": 0, "applied": 0, "in_flight_at_end": 0}
    tables, versions = progress.tables, progress.versions
    for _ in range(rounds):
        tidy()
        for name, path in (("hello", "/hello"), ("hello_db", "/hello/db")):
            before = _cpu(servers[name])
            figures = wrk_reads(hello_port, [(path, None)], clients, seconds)
            runs[name].append(_per_request(figures, before, _cpu(servers[name])))
        before = _cpu(servers["view"])
        view = wrk_reads(port, progress.views, clients, seconds, key)
        runs["view"].append(_per_request(view, before, _cpu(servers["view"])))
        # (this round's share only: wrk reads it all before it starts the clock, and its
        # first thread starts sending while the second still reads)
        left = [plan[versions[g]:versions[g] + progress.per_round]
                for (g, _), plan in zip(tables, progress.plans)]
        before = _cpu(servers["action"])
        figures, acked, in_flight = wrk_actions(port, tables, left, clients, seconds, key)
        runs["action"].append(_per_request(figures, before, _cpu(servers["action"])))
        applied = _check_versions(port, versions, acked, in_flight,
                                  {g: tokens["0"] for g, tokens in tables})
        for name, n in (("answered_2xx", sum(acked.values())), ("applied", applied),
                        ("in_flight_at_end", len(in_flight))):
            check[name] += n
    return runs, check


def _plan(seed: int, tokens: dict[str, str], count: int) -> list[tuple[str, str]]:
    """The first ``count`` requests of the game created with ``seed``: (token, body)."""
    state, plan = new_series(RULES, seed), []
    for version in range(count):
        if state.is_over:
            break
        action = _next_action(state)
        plan.append((tokens[str(state.to_act)],
                     json.dumps({"action": str(action), "version": version})))
        state, _ = apply(state, action)
    return plan


def _check_versions(port: int, versions: dict[str, int], acked: dict[str, int],
                    in_flight: set[str], tokens: dict[str, str]) -> int:
    """Each game moved on by the number of 2xx answers wrk got for it, or one more when a
    request was still in flight as wrk stopped; ``versions`` is brought up to date.
    The number of actions applied."""
    time.sleep(1.0)  # a request in flight as wrk stopped may still be being served
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    applied = 0
    for game_id, count in acked.items():
        status, game = _call(conn, "GET", f"/v1/games/{game_id}", token=tokens[game_id])
        assert status == 200, game
        moved = game["version"] - versions[game_id]
        if not (moved == count or (moved == count + 1 and game_id in in_flight)):
            raise RuntimeError(f"game {game_id}: moved on by {moved} on the server after "
                               f"{count} action(s) answered 2xx")
        versions[game_id] = game["version"]
        applied += moved
    conn.close()
    return applied


WRK_READS = """
local requests, i = {}, 0
init = function(args)
  for n = 1, #args, 2 do
    local headers = {}
    if args[n + 1] ~= "-" then headers["Authorization"] = "Bearer " .. args[n + 1] end
    if os.getenv("PRESIDENT_BENCH_KEY") then headers["X-API-Key"] = os.getenv("PRESIDENT_BENCH_KEY") end
    requests[#requests + 1] = wrk.format("GET", args[n], headers)
  end
end
request = function()
  i = i % #requests + 1
  return requests[i]
end
"""

# args: the plan file (lines "index TAB game TAB token TAB body"), the number of threads.
# Each wrk thread plays its own share of the games, each with at most one request in
# flight: request() takes the game at the head of a FIFO of free games (round robin, so
# the games advance evenly), response() finds the game id in the body and queues the game
# again. wrk calls request() once before the run to check it and never sends that one:
# the game it took just sits out (its version stays at what wrk counted).
WRK_ACTIONS = r"""
local threads = {}
setup = function(thread)
  threads[#threads + 1] = thread
  thread:set("id", #threads)
end

local plans, queue, head, tail = {}, {}, 1, 0
local function push(game) tail = tail + 1; queue[tail] = game end
local function pop()
  if head > tail then return nil end
  local game = queue[head]; queue[head] = nil; head = head + 1
  return game
end

init = function(args)
  acked, busy, bad, exhausted, starved = {}, {}, 0, 0, 0
  for line in io.lines(args[1]) do
    local n, game, token, body = line:match("^(%d+)\t(%x+)\t(%S+)\t(.*)$")
    if tonumber(n) % tonumber(args[2]) == id - 1 then
      if not plans[game] then plans[game], acked[game], busy[game] = {}, 0, false; push(game) end
      local plan = plans[game]
      plan[#plan + 1] = wrk.format("POST", "/v1/games/" .. game .. "/actions",
        {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json",
         ["X-API-Key"] = os.getenv("PRESIDENT_BENCH_KEY")}, body)
    end
  end
end

request = function()
  local game = pop()
  if not game then  -- every game is in flight, ran out or failed: the figure is void
    starved = starved + 1
    wrk.thread:stop()
    return wrk.format("GET", "/healthz")
  end
  busy[game] = true
  return plans[game][acked[game] + 1]
end

response = function(status, headers, body)
  local game = body:match('"game_id"%s*:%s*"(%x+)"')
  if status < 200 or status > 299 or not busy[game] then
    bad = bad + 1
    if bad == 1 then io.write(("actions-refused %d %s\n"):format(status, body:sub(1, 300))) end
    return
  end
  busy[game], acked[game] = false, acked[game] + 1
  if acked[game] < #plans[game] then push(game) else exhausted = exhausted + 1 end
end

done = function(summary, latency, requests)
  for _, thread in ipairs(threads) do
    io.write(("actions-thread bad=%d exhausted=%d starved=%d\n"):format(
      thread:get("bad"), thread:get("exhausted"), thread:get("starved")))
    local busy = thread:get("busy")
    for game, count in pairs(thread:get("acked")) do
      io.write(("actions-game %s %d %d\n"):format(game, count, busy[game] and 1 or 0))
    end
  end
end
"""


def _wrk_seconds(seconds: float) -> int:
    return max(1, round(seconds))  # wrk takes whole seconds


def _run_wrk(port: int, script: str, args: list[str], connections: int,
             seconds: float, key: str | None = None) -> tuple[dict[str, float], str]:
    """Run wrk with a Lua script: requests/s, p50, p99, and its whole output."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as lua:
        lua.write(script)
        lua.flush()
        threads = min(2, connections)  # wrk needs a connection per thread at least
        out = subprocess.run(
            ["wrk", f"-t{threads}", f"-c{connections}", f"-d{_wrk_seconds(seconds)}s",
             "--latency", "-s", lua.name, f"http://127.0.0.1:{port}", "--", *args],
            capture_output=True, text=True, check=True,
            env={**os.environ, **({"PRESIDENT_BENCH_KEY": key} if key else {})}).stdout
    if "Non-2xx" in out:
        raise RuntimeError(f"wrk got errors:\n{_brief(out)}")
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    latency = {q: float(v) * units[u] for q, v, u in
               re.findall(r"^\s+(50|99)(?:\.0+)?%\s+([\d.]+)(us|ms|s)$", out, re.M)}
    rps, done = _figure(r"Requests/sec:\s+([\d.]+)", out), _figure(r"(\d+) requests in", out)
    return {"rps": rps, "p50_ms": latency.get("50", 0.0), "p99_ms": latency.get("99", 0.0),
            "requests": done}, out


def _figure(pattern: str, out: str) -> float:
    found = re.search(pattern, out)
    if found is None:
        raise RuntimeError(f"wrk printed no {pattern!r}:\n{_brief(out)}")
    return float(found.group(1))


def _brief(out: str) -> str:
    return re.sub(r"^actions-game .*\n", "", out, flags=re.M)  # not a line per game


def wrk_reads(port: int, targets: Sequence[tuple[str, str | None]], connections: int,
              seconds: float, key: str | None = None) -> dict[str, float]:
    """GET the (path, token) targets in turn with wrk (each with the client ``key``, if
    one is given): requests/s, p50, p99."""
    args = [x for path, token in targets for x in (path, token or "-")]
    return _run_wrk(port, WRK_READS, args, connections, seconds, key)[0]


def wrk_actions(port: int, tables: list[Table], plans: list[list[tuple[str, str]]],
                connections: int, seconds: float, key: str | None = None
                ) -> tuple[dict[str, float], dict[str, int], set[str]]:
    """Replay the planned actions with wrk: the figures, the 2xx answers per game and the
    games with a request still in flight at the end."""
    with tempfile.NamedTemporaryFile("w", suffix=".tsv") as data:
        for n, ((game_id, _), plan) in enumerate(zip(tables, plans)):
            data.writelines(f"{n}\t{game_id}\t{token}\t{body}\n" for token, body in plan)
        data.flush()
        figures, out = _run_wrk(port, WRK_ACTIONS, [data.name, str(min(2, connections))],
                                connections, seconds, key)
    faults = [tuple(map(int, m)) for m in
              re.findall(r"^actions-thread bad=(\d+) exhausted=\d+ starved=(\d+)$", out, re.M)]
    if any(bad or starved for bad, starved in faults):
        raise RuntimeError(f"wrk actions failed or ran out of planned requests:\n{_brief(out)}")
    games = re.findall(r"^actions-game (\w+) (\d+) ([01])$", out, re.M)
    assert sorted(g for g, _, _ in games) == sorted(g for g, _ in tables), out
    return (figures, {g: int(count) for g, count, _ in games},
            {g for g, _, busy in games if busy == "1"})


def format_api(r: dict[str, Any]) -> str:
    lines = [f"database: {r['database']}; {r['server']}; load: {r['load_generator']}, "
             f"{r['clients']} connections",
             f"{'endpoint':<14} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'server us':>10} "
             f"{'db us':>7}   req/s of each round (the figures are medians; CPU per request: "
             f"gunicorn, and PostgreSQL on this machine)"]
    for name in ("hello", "hello_db", "view", "action", "view_limited", "action_limited",
                 "view_traced", "action_traced"):
        x = r[name]
        if x is None:
            continue
        each = ", ".join(f"{rps:.0f}" for rps in r["rounds"][name])
        lines.append(f"{name:<14} {x['rps']:>9.1f} {x['p50_ms']:>8.2f} {x['p99_ms']:>8.2f} "
                     f"{x['server_cpu_us']:>10.0f} {x['db_cpu_us']:>7.0f}   {each}")
    lines.append(f"view / hello: {r['view_vs_hello']:.0%}; action / hello: "
                 f"{r['action_vs_hello']:.0%}" + (
                     f"; hello_db (one SELECT 1) / hello: {r['hello_db_vs_hello']:.0%}"
                     if r["hello_db"] else ""))
    if r["action_traced"]:
        lines.append(f"traced / untraced: view {r['view_traced_vs_view']:.0%}, action "
                     f"{r['action_traced_vs_action']:.0%}")
    if r["action_check"]:
        c = r["action_check"]
        lines.append(f"actions checked: {c['applied']} applied by the server for "
                     f"{c['answered_2xx']} answered 2xx ({c['in_flight_at_end']} in flight "
                     f"at the end), none refused")
    return "\n".join(lines)
