"""``president bench api``: the REST service under gunicorn on loopback, next to a bare
Flask "hello" endpoint served the same way in the same run.

Both apps run under gunicorn gthread (2 workers x 4 threads). Client threads with
keep-alive connections then, for a fixed time each:

- hello: ``GET /hello``;
- view: ``GET /v1/games/{id}`` with the token of the seat to act, over many games;
- action: each thread plays its own games with ``POST`` only: it created them with a
  known seed, so it mirrors each one with the engine locally and always knows the seat to
  act, its token, a legal action and the version — the load is actions alone.
"""

from __future__ import annotations

import http.client
import json
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
from typing import Any, Callable, Iterator

from sqlalchemy import make_url

from engine import Rules, apply, new_series
from engine.game import generate
from services.store.db import make_engine, upgrade

WORKERS, THREADS = 2, 4
HUMANS = [{"kind": "human"}] * 4
RULES = Rules.preset("classic", players=4, rounds=100)


@contextmanager
def gunicorn(app: str, port: int, env: dict[str, str]) -> Iterator[None]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", app, "--bind", f"127.0.0.1:{port}", "--workers",
         str(WORKERS), "--threads", str(THREADS), "--worker-class", "gthread",
         "--log-level", "warning"], env={**os.environ, **env})
    try:
        _wait_up(port)
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=30)


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
          body: dict[str, Any] | None = None, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
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


def bench_api(database_url: str | None, seconds: float = 5.0, clients: int = 8,
              games: int = 64, port: int = 18080) -> dict[str, Any]:
    tmp = tempfile.mkdtemp(prefix="president-bench-")
    url = database_url or f"sqlite:///{tmp}/bench.db"
    upgrade(make_engine(url))
    env = {"DATABASE_URL": url}
    with gunicorn("president_cli.hello_app:app", port + 1, env):
        hello = _load(port + 1, clients, seconds,
                      lambda conn, rng, k: _timed(conn, "GET", "/hello")[0])
        hello_wrk = wrk(port + 1, [("/hello", None)], clients, seconds)
    with gunicorn("services.api.app:create_app()", port, env):
        setup = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        tables = []
        for i in range(games):
            status, created = _call(setup, "POST", "/v1/games", {
                "preset": "classic", "seats": HUMANS, "rounds": RULES.rounds, "seed": i})
            assert status == 201, created
            tables.append((created["game"]["game_id"], created["tokens"]))

        def to_act(conn: http.client.HTTPConnection, game: tuple[str, dict[str, str]]) -> Any:
            game_id, tokens = game
            _, public = _call(conn, "GET", f"/v1/games/{game_id}")
            return tokens[str(public["view"]["to_act"])]

        actors = {g[0]: to_act(setup, g) for g in tables}

        def view_step(conn: http.client.HTTPConnection, rng: random.Random, k: int) -> float:
            game_id, _ = tables[rng.randrange(len(tables))]
            took, status, _ = _timed(conn, "GET", f"/v1/games/{game_id}", token=actors[game_id])
            assert status == 200
            return took

        mirrors = {game_id: new_series(RULES, seed) for seed, (game_id, _) in enumerate(tables)}
        versions = dict.fromkeys(mirrors, 0)

        def action_step(conn: http.client.HTTPConnection, rng: random.Random,
                        k: int) -> float | None:
            mine = tables[k::clients]  # each thread plays its own games: no conflicts
            game_id, tokens = mine[rng.randrange(len(mine))]
            state = mirrors[game_id]
            if state.is_over:
                return None
            legal = generate(state)
            action = next((a for a in legal if a), legal[0])
            took, status, data = _timed(conn, "POST", f"/v1/games/{game_id}/actions",
                                        {"action": str(action), "version": versions[game_id]},
                                        tokens[str(state.to_act)])
            assert status == 200, data
            mirrors[game_id], _ = apply(state, action)
            versions[game_id] += 1
            return took

        view = _load(port, clients, seconds, view_step)
        view_wrk = wrk(port, [(f"/v1/games/{g}", actors[g]) for g, _ in tables], clients,
                       seconds)
        action = _load(port, clients, seconds, action_step)
    return {
        "database": make_url(url).get_backend_name(),
        "hello": {"rps": hello["rps"], "p50_ms": hello["p50_ms"], "p99_ms": hello["p99_ms"]},
        "view": {"rps": view["rps"], "p50_ms": view["p50_ms"], "p99_ms": view["p99_ms"]},
        "action": {"rps": action["rps"], "p50_ms": action["p50_ms"], "p99_ms": action["p99_ms"]},
        "view_vs_hello": round(view["rps"] / hello["rps"], 3),
        "action_vs_hello": round(action["rps"] / hello["rps"], 3),
        "server": f"gunicorn gthread {WORKERS} workers x {THREADS} threads",
        "clients": clients,
        # The same reads driven by wrk, a C load generator, where it is installed: the
        # Python client threads above cap the bare endpoint well below what it serves.
        "wrk": None if hello_wrk is None or view_wrk is None else {
            "hello": hello_wrk, "view": view_wrk,
            "view_vs_hello": round(view_wrk["rps"] / hello_wrk["rps"], 3)},
    }


WRK_SCRIPT = """
local requests, i = {}, 0
init = function(args)
  for n = 1, #args, 2 do
    local headers = {}
    if args[n + 1] ~= "-" then headers["Authorization"] = "Bearer " .. args[n + 1] end
    requests[#requests + 1] = wrk.format("GET", args[n], headers)
  end
end
request = function()
  i = i % #requests + 1
  return requests[i]
end
"""


def wrk(port: int, targets: list[tuple[str, str | None]], connections: int,
        seconds: float) -> dict[str, float] | None:
    """GET the (path, token) targets in turn with wrk, if installed: requests/s, p50, p99."""
    if shutil.which("wrk") is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(WRK_SCRIPT)
        script.flush()
        args = [x for path, token in targets for x in (path, token or "-")]
        out = subprocess.run(
            ["wrk", "-t2", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency",
             "-s", script.name, f"http://127.0.0.1:{port}", "--", *args],
            capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out:
        raise RuntimeError(f"wrk got errors:\n{out}")
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    latency = {q: float(v) * units[u] for q, v, u in
               re.findall(r"^\s+(50|99)(?:\.0+)?%\s+([\d.]+)(us|ms|s)$", out, re.M)}
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    return {"rps": rps, "p50_ms": latency.get("50", 0.0), "p99_ms": latency.get("99", 0.0)}


def format_api(r: dict[str, Any]) -> str:
    lines = [f"database: {r['database']}; {r['server']}; {r['clients']} client threads",
             f"{'endpoint':<8} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}"]
    for name in ("hello", "view", "action"):
        x = r[name]
        lines.append(f"{name:<8} {x['rps']:>9.1f} {x['p50_ms']:>8.2f} {x['p99_ms']:>8.2f}")
    lines.append(f"view / hello: {r['view_vs_hello']:.0%}; action / hello: "
                 f"{r['action_vs_hello']:.0%}")
    if r["wrk"]:
        w = r["wrk"]
        lines.append(f"with wrk: hello {w['hello']['rps']:.1f} req/s, view "
                     f"{w['view']['rps']:.1f} req/s: view / hello {w['view_vs_hello']:.0%}")
    return "\n".join(lines)
