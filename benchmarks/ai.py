"""``president bench ai``: the gRPC Decide call measured against a real worker process.

- Latency, per level: the same real game views (positions with a choice to make, from
  cardverse games played by Normal) are sent one call at a time over loopback to an
  ``ai-worker`` subprocess; p50 and p99 of the call's wall time, and the p50 of the
  same decisions made in this process, without gRPC. Levels use their default budgets;
  Hard and Expert get fewer views since each takes its budget.
- Throughput, Hard: concurrent calls for a fixed time against a worker of 1 process,
  then of N. Hard gets a budget counted in simulations here (fixed CPU work per call):
  with its default time budget a process would simply answer more calls at once, each
  searching less, and the figure would measure nothing.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import grpc

from engine import Rules, View, apply, new_series, observe
from president.ai.v1 import ai_pb2_grpc
from workers.ai import Budget, decide
from workers.rpc.client import wait_serving
from workers.rpc.serde import request_to_proto

LEVEL_VIEWS = {"easy": 1.0, "normal": 1.0, "hard": 0.25, "expert": 0.05}
THROUGHPUT_BUDGET = Budget(simulations=200)
# The kernel hashes each connection to one of the worker processes: with many connections
# the odds that one process gets them all vanish (2 processes, 16 connections: 2**-15).
CALLERS_PER_PROCESS = 8


def sample_views(count: int, seed: int = 1) -> list[View]:
    """Views with at least two legal actions, from cardverse rounds played by Normal."""
    rules = Rules.preset("cardverse", rounds=2)
    rng = random.Random(seed)
    views: list[View] = []
    game = 0
    while len(views) < count:
        state = new_series(rules, seed * 1000 + game)
        game += 1
        while not state.is_over and len(views) < count:
            view = observe(state, state.to_act)
            if len(view.legal_actions) > 1 and rng.random() < 0.5:
                views.append(view)
            state, _ = apply(state, decide(view, "normal"))
    return views


@contextmanager
def worker(processes: int) -> Iterator[str]:
    """A real ``president ai-worker`` on a free loopback port, until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "president_cli.main", "ai-worker", "--port", "0",
         "--processes", str(processes)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "AI worker listening on 127.0.0.1:PORT with N …"
        target = line.split(" on ")[1].split()[0]
        wait_serving(target)
        yield target
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def latencies(target: str, views: list[View]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    with grpc.insecure_channel(target) as channel:
        stub = ai_pb2_grpc.AiServiceStub(channel)
        for level, share in LEVEL_VIEWS.items():
            chosen = views[:max(10, int(len(views) * share))]
            requests = [request_to_proto(v, level, i) for i, v in enumerate(chosen)]
            stub.Decide(requests[0], timeout=10)  # warm the connection
            remote, local = [], []
            for i, (view, request) in enumerate(zip(chosen, requests)):
                started = time.perf_counter()
                stub.Decide(request, timeout=10)
                remote.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                decide(view, level, seed=i)
                local.append((time.perf_counter() - started) * 1000)
            out[level] = {"grpc_p50_ms": round(statistics.median(remote), 3),
                          "grpc_p99_ms": round(_percentile(remote, 0.99), 3),
                          "inprocess_p50_ms": round(statistics.median(local), 3),
                          "views": len(chosen)}
    return out


def throughput(target: str, views: list[View], clients: int, seconds: float) -> float:
    """Completed Hard calls per second with ``clients`` concurrent callers."""
    requests = [request_to_proto(v, "hard", i, THROUGHPUT_BUDGET) for i, v in enumerate(views)]
    done = [0] * clients
    stop_at = time.perf_counter() + seconds

    def caller(k: int) -> None:
        # Channels of one process share a TCP connection unless told otherwise, and one
        # connection goes to one worker process: give each caller its own.
        options = [("grpc.use_local_subchannel_pool", 1)]
        with grpc.insecure_channel(target, options=options) as channel:
            stub = ai_pb2_grpc.AiServiceStub(channel)
            i = k
            while time.perf_counter() < stop_at:
                stub.Decide(requests[i % len(requests)], timeout=30)
                done[k] += 1
                i += clients

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.perf_counter() - started)


def bench_ai(views: int = 200, seconds: float = 5.0, processes: int = 2) -> dict[str, Any]:
    sample = sample_views(views)
    with worker(1) as target:
        levels = latencies(target, sample)
        single = throughput(target, sample, clients=CALLERS_PER_PROCESS * processes,
                            seconds=seconds)
    with worker(processes) as target:
        multi = throughput(target, sample, clients=CALLERS_PER_PROCESS * processes,
                           seconds=seconds)
    easy = levels["easy"]
    return {
        "levels": levels,
        "transport_overhead_ms": round(easy["grpc_p50_ms"] - easy["inprocess_p50_ms"], 3),
        "throughput_per_s": {"hard": {"1": round(single, 2), str(processes): round(multi, 2)}},
        "throughput_budget": {"simulations": THROUGHPUT_BUDGET.simulations},
        "cores": os.cpu_count(),
    }


def format_ai(report: dict[str, Any]) -> str:
    lines = [f"{'level':<8} {'grpc p50 ms':>12} {'grpc p99 ms':>12} {'in-process p50 ms':>18}"]
    for level, r in report["levels"].items():
        lines.append(f"{level:<8} {r['grpc_p50_ms']:>12.3f} {r['grpc_p99_ms']:>12.3f} "
                     f"{r['inprocess_p50_ms']:>18.3f}")
    lines.append(f"transport overhead (Easy, p50): {report['transport_overhead_ms']:.3f} ms")
    for n, rate in report["throughput_per_s"]["hard"].items():
        lines.append(f"Hard throughput, {n} process(es): {rate:.1f} decisions/s "
                     f"({report['throughput_budget']['simulations']} simulations each)")
    return "\n".join(lines)
