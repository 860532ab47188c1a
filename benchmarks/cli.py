"""``president bench engine|ai|api|spans|memory|pipeline|webhooks|ratings|hints|inline-hints|
chaos|soak|report``: the ``bench`` parser, which ``president_cli.main`` adds to its own. Each benchmark's module
is imported when it runs."""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
from typing import Any, Callable

from services.api.serve import API_THREADS, API_WORKER_CLASS, API_WORKER_CLASSES, API_WORKERS


def _print(report: dict[str, Any], as_json: bool,
           formatted: Callable[[dict[str, Any]], str]) -> int:
    """The report as text, or as JSON saying which command on which machine made it (what
    ``benchmarks/results/`` keeps and ``president bench report`` renders)."""
    if as_json:
        print(json.dumps({**report, "command": shlex.join(["president", *sys.argv[1:]]),
                          "machine": {"cpus": os.cpu_count(),
                                      "python": platform.python_version()}}, indent=2))
    else:
        print(formatted(report))
    return 0


def _report(args: argparse.Namespace) -> int:
    from benchmarks.report import report

    return report(check=args.check)


def _engine(args: argparse.Namespace) -> int:
    from benchmarks.engine import bench_engine, format_engine, play_rounds

    if args.play is not None:  # a fixed workload, untimed: for an instruction counter (callgrind)
        print(json.dumps({"ruleset": args.ruleset, "rounds": args.play,
                          "actions": play_rounds(args.ruleset, args.play, args.seed)}))
        return 0

    report = bench_engine(seconds=args.seconds, seed=args.seed)
    return _print(report, args.json, format_engine)


def _ai(args: argparse.Namespace) -> int:
    from benchmarks.ai import bench_ai, format_ai

    report = bench_ai(views=args.views, seconds=args.seconds, processes=args.processes)
    return _print(report, args.json, format_ai)


def _api(args: argparse.Namespace) -> int:
    from benchmarks.api import bench_api, format_api

    report = bench_api(args.database_url, seconds=args.seconds, clients=args.clients,
                       rounds=args.rounds, workers=args.workers,
                       worker_class=args.worker_class, threads=args.threads,
                       limits_url=None if args.limits_url == "off" else args.limits_url,
                       tracing=args.tracing)
    return _print(report, args.json, format_api)


def _spans(args: argparse.Namespace) -> int:
    from benchmarks.spans import bench_spans, format_spans

    return _print(bench_spans(actions=args.actions), args.json, format_spans)


def _memory(args: argparse.Namespace) -> int:
    from benchmarks.memory import bench_memory, format_memory

    report = bench_memory(args.database_url, games=args.games, rounds=args.rounds,
                          cache_mb=args.cache_mb)
    return _print(report, args.json, format_memory)


def _pipeline(args: argparse.Namespace) -> int:
    from benchmarks.pipeline import bench_pipeline, format_pipeline

    report = bench_pipeline(args.database_url, args.redis_url, games=args.games,
                            rounds=args.rounds, load_games=args.load_games)
    return _print(report, args.json, format_pipeline)


def _webhooks(args: argparse.Namespace) -> int:
    from benchmarks.webhooks import bench_webhooks, format_webhooks

    report = bench_webhooks(args.database_url, args.redis_url, moves=args.moves,
                            load_moves=args.load_moves, threads=args.threads)
    return _print(report, args.json, format_webhooks)


def _ratings(args: argparse.Namespace) -> int:
    from benchmarks.ratings import bench_ratings, format_ratings

    report = bench_ratings(args.database_url, players=args.players, series=args.series,
                           tickets=args.tickets)
    return _print(report, args.json, format_ratings)


def _hints(args: argparse.Namespace) -> int:
    from benchmarks.hints import bench_hints, format_hints

    report = bench_hints(args.database_url, args.redis_url, hints=args.hints,
                         reviews=args.reviews, api_workers=args.api_workers)
    return _print(report, args.json, format_hints)


def _inline_hints(args: argparse.Namespace) -> int:
    from benchmarks.inline_hints import bench_inline_hints, format_inline_hints

    report = bench_inline_hints(seconds=args.seconds, hints=args.hints,
                                api_workers=args.api_workers)
    return _print(report, args.json, format_inline_hints)


def _chaos(args: argparse.Namespace) -> int:
    from benchmarks.chaos import FAULTS, bench_chaos, format_chaos

    faults = tuple(args.faults.split(",")) if args.faults else FAULTS
    report = bench_chaos(clients=args.clients, settle_s=args.settle, faults=faults)
    return _print(report, args.json, format_chaos)


def _soak(args: argparse.Namespace) -> int:
    from benchmarks.soak import bench_soak, format_soak

    report = bench_soak(minutes=args.minutes, clients=args.clients, warm_up_s=args.warm_up,
                        cache_mb=args.cache_mb)
    return _print(report, args.json, format_soak)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``bench`` and its targets to ``sub``, the ``president`` command's subparsers."""
    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bench_sub = bench.add_subparsers(dest="target", required=True)

    report = bench_sub.add_parser("report", help="docs/performance.md's tables from "
                                  "benchmarks/results/*.json")
    report.add_argument("--check", action="store_true",
                        help="only say whether the page disagrees with its data")
    report.set_defaults(func=_report)

    engine = bench_sub.add_parser("engine", help="random legal rounds per ruleset, one core")
    engine.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per ruleset")
    engine.add_argument("--seed", type=int, default=1)
    engine.add_argument("--json", action="store_true", help="print JSON")
    engine.add_argument("--play", type=int, default=None, metavar="N",
                        help="only play N random rounds of --ruleset, untimed (to count "
                        "instructions: see docs/performance.md)")
    engine.add_argument("--ruleset", default="classic", help="with --play: a preset name")
    engine.set_defaults(func=_engine)

    ai = bench_sub.add_parser("ai", help="gRPC Decide latency per level and throughput")
    ai.add_argument("--views", type=int, default=200, help="real game views per level")
    ai.add_argument("--seconds", type=float, default=5.0, help="per throughput measurement")
    ai.add_argument("--processes", type=int, default=2, help="N for the N-process throughput")
    ai.add_argument("--json", action="store_true", help="print JSON")
    ai.set_defaults(func=_ai)

    api = bench_sub.add_parser("api", help="REST service vs a bare Flask endpoint")
    api.add_argument("--database-url", default=None,
                     help="a SQLAlchemy URL; default: a temporary SQLite file")
    api.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    api.add_argument("--rounds", type=int, default=4,
                     help="rounds of hello, view, action (with wrk; medians); the limited "
                          "shape goes first in every other round")
    api.add_argument("--clients", type=int, default=32,
                     help="keep-alive connections (client threads without wrk)")
    api.add_argument("--workers", type=int, default=API_WORKERS,
                     help="gunicorn workers, for both apps")
    api.add_argument("--worker-class", choices=API_WORKER_CLASSES,
                     default=API_WORKER_CLASS, help="gunicorn's, for both apps")
    api.add_argument("--tracing", action="store_true",
                     help="the API traced too (OpenTelemetry, every request, to an OTLP "
                          "receiver), in the same rounds: what tracing on costs")
    api.add_argument("--threads", type=int, default=API_THREADS,
                     help="threads per worker (gthread), for both apps")
    api.add_argument("--limits-url", default="redis://127.0.0.1:6379/13",
                     help="a Redis database the bench may empty, where the limited shape "
                     "(client keys and rate limits on) counts; off: no limited shape")
    api.add_argument("--json", action="store_true", help="print JSON")
    api.set_defaults(func=_api)

    spans = bench_sub.add_parser("spans", help="a traced action's spans: made, ended and "
                                 "encoded for OTLP (the exporter's encoder vs in place)")
    spans.add_argument("--actions", type=int, default=2000, help="actions per run")
    spans.add_argument("--json", action="store_true", help="print JSON")
    spans.set_defaults(func=_spans)

    memory = bench_sub.add_parser("memory", help="an API worker's memory after reading "
                                  "many finished long games")
    memory.add_argument("--database-url", default=None,
                        help="a SQLAlchemy URL (PostgreSQL: a schema bench_memory of its "
                        "own); default: a temporary SQLite file")
    memory.add_argument("--games", type=int, default=2000, help="distinct finished games")
    memory.add_argument("--rounds", type=int, default=100, help="rounds of each")
    memory.add_argument("--cache-mb", type=int, default=64, help="PRESIDENT_CACHE_MB")
    memory.add_argument("--json", action="store_true", help="print JSON")
    memory.set_defaults(func=_memory)

    pipe = bench_sub.add_parser("pipeline", help="AI turns through Celery + gRPC, end to end")
    pipe.add_argument("--database-url", help="the database beside Redis (a PostgreSQL URL "
                      "gets a schema bench_pipeline of its own); default: a temporary SQLite")
    pipe.add_argument("--redis-url", default="redis://127.0.0.1:6379/15",
                      help="a Redis database the benchmark may empty")
    pipe.add_argument("--games", type=int, default=5, help="games played one at a time")
    pipe.add_argument("--rounds", type=int, default=2, help="rounds per game")
    pipe.add_argument("--load-games", type=int, default=16, help="games at once, throughput")
    pipe.add_argument("--json", action="store_true", help="print JSON")
    pipe.set_defaults(func=_pipeline)

    hooks = bench_sub.add_parser("webhooks", help="a move's webhook, commit to receiver: "
                                 "latency and deliveries a second")
    hooks.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/test",
                       help="PostgreSQL: the benchmark uses a schema bench_webhooks of its own")
    hooks.add_argument("--redis-url", default="redis://127.0.0.1:6379/15",
                       help="a Redis database the benchmark may empty")
    hooks.add_argument("--moves", type=int, default=200, help="moves one at a time (latency)")
    hooks.add_argument("--load-moves", type=int, default=2000, help="moves at once (throughput)")
    hooks.add_argument("--threads", type=int, default=8, help="threads making moves at once")
    hooks.add_argument("--json", action="store_true", help="print JSON")
    hooks.set_defaults(func=_webhooks)

    ratings = bench_sub.add_parser("ratings", help="leaderboards, around, the rater and the "
                                   "matcher on a pool of rated players (PostgreSQL)")
    ratings.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/test",
                         help="the benchmark uses a schema bench_ratings of its own")
    ratings.add_argument("--players", type=int, default=100_000)
    ratings.add_argument("--series", type=int, default=250,
                         help="two-round series rated (four of the players each)")
    ratings.add_argument("--tickets", type=int, default=2_000)
    ratings.add_argument("--json", action="store_true")
    ratings.set_defaults(func=_ratings)

    hints = bench_sub.add_parser("hints", help="hints (Normal, Hard) and round reviews "
                                 "through the API, on PostgreSQL and Redis")
    hints.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/test",
                       help="PostgreSQL: the benchmark uses a schema bench_hints of its own")
    hints.add_argument("--redis-url", default="redis://127.0.0.1:6379/12",
                       help="a Redis database the benchmark may empty")
    hints.add_argument("--hints", type=int, default=200, help="timed hints per level")
    hints.add_argument("--reviews", type=int, default=6,
                       help="round reviews asked for at once, behind one reviews worker")
    hints.add_argument("--api-workers", type=int, default=API_WORKERS, help="gunicorn workers")
    hints.add_argument("--json", action="store_true", help="print JSON")
    hints.set_defaults(func=_hints)

    inline = bench_sub.add_parser("inline-hints", help="with no broker: /healthz while Expert "
                                  "hints think in the API's AI processes (SQLite)")
    inline.add_argument("--seconds", type=float, default=10.0, help="each phase's probing")
    inline.add_argument("--hints", type=int, default=4, help="clients asking Expert hints")
    inline.add_argument("--api-workers", type=int, default=API_WORKERS, help="gunicorn workers")
    inline.add_argument("--json", action="store_true", help="print JSON")
    inline.set_defaults(func=_inline_hints)

    chaos = bench_sub.add_parser("chaos", help="one fault at a time under load: what each "
                                 "cost the games (a PostgreSQL and a Redis of its own)")
    chaos.add_argument("--clients", type=int, default=40, help="players at once")
    chaos.add_argument("--settle", type=float, default=10.0,
                       help="seconds after each fault before the next")
    chaos.add_argument("--faults", help="comma-separated; default: every fault")
    chaos.add_argument("--json", action="store_true", help="print JSON")
    chaos.set_defaults(func=_chaos)

    soak = bench_sub.add_parser("soak", help="steady load for minutes: memory and p99 "
                                "latency over time (the chaos benchmark's cluster)")
    soak.add_argument("--minutes", type=float, default=10.0, help="how long, warm-up after")
    soak.add_argument("--clients", type=int, default=40, help="players at once")
    soak.add_argument("--warm-up", type=float, default=60.0, help="seconds before measuring")
    soak.add_argument("--cache-mb", type=int, default=None,
                      help="PRESIDENT_CACHE_MB of every process (default: the service's)")
    soak.add_argument("--json", action="store_true", help="print JSON")
    soak.set_defaults(func=_soak)
