"""The ``president`` command. Subcommands grow with the project."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Sequence

# How the API is served: what deploy/ runs (a test checks) and what `president bench api`
# measures by default. A move spends most of its time waiting for its commit: under gevent
# a waiting request costs a greenlet, not an OS thread fighting the others for the GIL,
# and the moves of one worker's waiting requests go to the database together (README,
# Performance). API_THREADS applies to the gthread class only (``--worker-class``).
API_WORKERS, API_WORKER_CLASS, API_THREADS = 2, "gevent", 8
API_WORKER_CLASSES = ("gevent", "gthread")


def _bench_engine(args: argparse.Namespace) -> int:
    from president_cli.bench import bench_engine, format_engine

    report = bench_engine(seconds=args.seconds, seed=args.seed)
    print(json.dumps(report, indent=2) if args.json else format_engine(report))
    return 0


def _parse_options(pairs: Sequence[str]) -> dict[str, object]:
    """``--option straights=true --option jokers=2``: values are JSON (bare words are strings)."""
    options: dict[str, object] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise ValueError(f"--option wants name=value, not {pair!r}")
        try:
            options[name] = json.loads(raw)
        except json.JSONDecodeError:
            options[name] = raw
    return options


def _parse_budgets(pairs: Sequence[str]) -> dict[str, object]:
    """``--budget hard=50ms --budget expert=2000sims``."""
    from workers.ai import Budget

    budgets: dict[str, object] = {}
    for pair in pairs:
        level, _, spec = pair.partition("=")
        if spec.endswith("sims"):  # before "ms", which "sims" also ends with
            budgets[level] = Budget(simulations=int(spec[:-4]))
        elif spec.endswith("ms"):
            budgets[level] = Budget(milliseconds=float(spec[:-2]))
        else:
            raise ValueError(f"--budget wants level=<N>ms or level=<N>sims, not {pair!r}")
    return budgets


def _tournament(args: argparse.Namespace) -> int:
    from engine import Rules
    from workers.ai.tournament import Config, format_summary, print_progress, rotations, run

    seats = tuple(s.strip() for s in args.seats.split(","))
    rules = Rules.preset(args.preset, players=len(seats), rounds=1, **_parse_options(args.option))
    per_deal = len(list(rotations(seats)))
    config = Config(rules, seats, deals=-(-args.rounds // per_deal), seed=args.seed,
                    budgets=_parse_budgets(args.budget))  # type: ignore[arg-type]
    summary = run(config, processes=args.processes,
                  progress=None if args.quiet else print_progress)
    summary["preset"], summary["rules"] = args.preset, rules.to_dict()
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0


def _ai_worker(args: argparse.Namespace) -> int:
    from workers.rpc.server import run

    return run(args.host, args.port, args.processes)


def _bench_ai(args: argparse.Namespace) -> int:
    from president_cli.bench_ai import bench_ai, format_ai

    report = bench_ai(views=args.views, seconds=args.seconds, processes=args.processes)
    print(json.dumps(report, indent=2) if args.json else format_ai(report))
    return 0


def _api(args: argparse.Namespace) -> int:
    from config.settings import setting
    from services.api.serve import run

    turns = "through Celery" if setting("CELERY_BROKER_URL") else "in process"
    print(f"API on http://{args.host}:{args.port}/docs (AI turns played {turns})", flush=True)
    return run("bootstrap:api_app()", args.host, args.port, args.workers, args.worker_class,
               args.threads)


def _celery_app(args: argparse.Namespace) -> Any:
    """The Celery app for a worker or beat process, the embedded broker's tables made."""
    from celery.signals import setup_logging

    from bootstrap import celery_app
    from config.logs import configure_logging
    from workers.turns import embedded
    from workers.turns.settings import TurnSettings

    # A receiver of setup_logging tells Celery to leave logging to us: one format for all.
    setup_logging.connect(lambda **_: configure_logging(), weak=False)
    settings = TurnSettings.from_env()
    if embedded.is_embedded(settings.broker_url):
        embedded.create_tables(settings.broker_url)
    return celery_app(settings)


def _celery_worker(args: argparse.Namespace) -> int:
    from workers.turns import embedded
    from workers.turns.app import QUEUES

    app = _celery_app(args)
    argv = ["worker", "--loglevel", args.loglevel, "--queues", args.queues or ",".join(QUEUES),
            "--pool", args.pool, "--concurrency", str(args.concurrency),
            "--without-gossip", "--without-mingle"]
    if args.name:
        argv += ["--hostname", args.name]
    if embedded.is_embedded(app.conf.broker_url):  # no broadcast on a SQL table
        argv += ["--without-heartbeat"]
        app.conf.worker_enable_remote_control = False
    app.worker_main(argv)
    return 0


def _celery_beat(args: argparse.Namespace) -> int:
    app = _celery_app(args)
    return int(app.start(["beat", "--loglevel", args.loglevel, "--schedule", args.schedule]) or 0)


def _broker_init(args: argparse.Namespace) -> int:
    from workers.turns import embedded
    from workers.turns.settings import TurnSettings

    url = TurnSettings.from_env().broker_url
    if embedded.is_embedded(url):
        embedded.create_tables(url)
        print(f"embedded broker ready: {url}")
    else:
        print(f"nothing to prepare for {url.split('@')[-1]}")
    return 0


def _health_grpc(args: argparse.Namespace) -> int:
    """Exit 0 when the gRPC worker at the target answers SERVING (a container probe)."""
    import grpc

    from president_cli.bench_ai import wait_serving

    try:
        wait_serving(args.target, timeout_s=args.timeout)
    except grpc.RpcError as exc:
        print(f"{args.target}: not serving ({exc.code()})", file=sys.stderr)  # type: ignore[attr-defined]
        return 1
    print(f"{args.target}: SERVING")
    return 0


def _health_celery(args: argparse.Namespace) -> int:
    """Exit 0 when a Celery worker answers a ping (needs a broker with broadcast: Redis)."""
    app = _celery_app(args)
    replies = app.control.ping(timeout=args.timeout)
    print(f"{len(replies)} worker(s) answered")
    return 0 if replies else 1


def _up(args: argparse.Namespace) -> int:
    from president_cli.up import layout_from_settings, up

    return up(layout_from_settings(args.host, args.api_port, args.ai_port, args.var_dir))


def _db_upgrade(args: argparse.Namespace) -> int:
    from services.store.db import database_url, make_engine, upgrade

    url = args.url or database_url()
    upgrade(make_engine(url))
    print(f"database at the newest migration: {url.split('@')[-1]}")
    return 0


def _bench_api(args: argparse.Namespace) -> int:
    from president_cli.bench_api import bench_api, format_api

    report = bench_api(args.database_url, seconds=args.seconds, clients=args.clients,
                       rounds=args.rounds, workers=args.workers,
                       worker_class=args.worker_class, threads=args.threads)
    print(json.dumps(report, indent=2) if args.json else format_api(report))
    return 0


def _bench_pipeline(args: argparse.Namespace) -> int:
    from president_cli.bench_pipeline import bench_pipeline, format_pipeline

    report = bench_pipeline(args.database_url, args.redis_url, games=args.games,
                            rounds=args.rounds, load_games=args.load_games)
    print(json.dumps(report, indent=2) if args.json else format_pipeline(report))
    return 0


def _db_check(args: argparse.Namespace) -> int:
    from bootstrap import open_store
    from services.handlers.audit import check_all

    checked, broken = check_all(open_store(args.url).uow)
    for game_id in broken:
        print(f"snapshot differs from its action log: {game_id}", file=sys.stderr)
    print(f"{checked} game(s) rebuilt from seed + action log, {len(broken)} differing")
    return 1 if broken else 0


def _rules(args: argparse.Namespace) -> int:
    from engine import PRESETS, describe_options

    if args.preset:
        from engine import Rules

        print(json.dumps(Rules.preset(args.preset).to_dict(), indent=2))
    else:
        print(json.dumps({"presets": {n: r.to_dict() for n, r in PRESETS.items()},
                          "options": describe_options()}, indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from config.settings import setting

    parser = argparse.ArgumentParser(prog="president", description="Président game backend")
    sub = parser.add_subparsers(dest="command", required=True)

    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bench_sub = bench.add_subparsers(dest="target", required=True)
    engine = bench_sub.add_parser("engine", help="random legal rounds per ruleset, one core")
    engine.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per ruleset")
    engine.add_argument("--seed", type=int, default=1)
    engine.add_argument("--json", action="store_true", help="print JSON")
    engine.set_defaults(func=_bench_engine)
    ai = bench_sub.add_parser("ai", help="gRPC Decide latency per level and throughput")
    ai.add_argument("--views", type=int, default=200, help="real game views per level")
    ai.add_argument("--seconds", type=float, default=5.0, help="per throughput measurement")
    ai.add_argument("--processes", type=int, default=2, help="N for the N-process throughput")
    ai.add_argument("--json", action="store_true", help="print JSON")
    ai.set_defaults(func=_bench_ai)

    api_bench = bench_sub.add_parser("api", help="REST service vs a bare Flask endpoint")
    api_bench.add_argument("--database-url", default=None,
                           help="a SQLAlchemy URL; default: a temporary SQLite file")
    api_bench.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    api_bench.add_argument("--rounds", type=int, default=3,
                           help="rounds of hello, view, action (with wrk; medians)")
    api_bench.add_argument("--clients", type=int, default=32,
                           help="keep-alive connections (client threads without wrk)")
    api_bench.add_argument("--workers", type=int, default=API_WORKERS,
                           help="gunicorn workers, for both apps")
    api_bench.add_argument("--worker-class", choices=API_WORKER_CLASSES,
                           default=API_WORKER_CLASS, help="gunicorn's, for both apps")
    api_bench.add_argument("--threads", type=int, default=API_THREADS,
                           help="threads per worker (gthread), for both apps")
    api_bench.add_argument("--json", action="store_true", help="print JSON")
    api_bench.set_defaults(func=_bench_api)

    pipe = bench_sub.add_parser("pipeline", help="AI turns through Celery + gRPC, end to end")
    pipe.add_argument("--database-url", help="the database beside Redis (a PostgreSQL URL "
                      "gets a schema bench_pipeline of its own); default: a temporary SQLite")
    pipe.add_argument("--redis-url", default="redis://127.0.0.1:6379/15",
                      help="a Redis database the benchmark may empty")
    pipe.add_argument("--games", type=int, default=5, help="games played one at a time")
    pipe.add_argument("--rounds", type=int, default=2, help="rounds per game")
    pipe.add_argument("--load-games", type=int, default=16, help="games at once, throughput")
    pipe.add_argument("--json", action="store_true", help="print JSON")
    pipe.set_defaults(func=_bench_pipeline)

    worker = sub.add_parser("ai-worker", help="serve the AI levels over gRPC")
    worker.add_argument("--host", default="127.0.0.1")
    worker.add_argument("--port", type=int, default=50051, help="0: any free port")
    worker.add_argument("--processes", type=int,
                        default=int(setting("PRESIDENT_AI_WORKER_PROCESSES") or 1),
                        help="server processes sharing the port (SO_REUSEPORT); default: "
                        "PRESIDENT_AI_WORKER_PROCESSES, else 1")
    worker.set_defaults(func=_ai_worker)

    tour = sub.add_parser("tournament", help="AI levels against each other, seats rotated")
    tour.add_argument("--preset", default="cardverse")
    tour.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                      help="rules option over the preset, e.g. straights=true (repeatable)")
    tour.add_argument("--seats", default="hard,normal,normal,normal",
                      help="one AI level per seat: easy, normal, hard, expert")
    tour.add_argument("--rounds", type=int, default=2000,
                      help="rounds to play (rounded up to whole rotations of a deal)")
    tour.add_argument("--seed", type=int, default=1)
    tour.add_argument("--budget", action="append", default=[], metavar="LEVEL=SPEC",
                      help="e.g. hard=50ms or hard=400sims (default: hard 50ms, expert 500ms)")
    tour.add_argument("--processes", type=int, default=None, help="default: every core")
    tour.add_argument("--quiet", action="store_true", help="no progress on stderr")
    tour.add_argument("--json", action="store_true", help="print JSON")
    tour.set_defaults(func=_tournament)

    api = sub.add_parser("api", help="serve the REST API under gunicorn")
    api.add_argument("--host", default="127.0.0.1")
    api.add_argument("--port", type=int, default=8000)
    api.add_argument("--workers", type=int, default=API_WORKERS)
    api.add_argument("--worker-class", choices=API_WORKER_CLASSES, default=API_WORKER_CLASS)
    api.add_argument("--threads", type=int, default=API_THREADS, help="per worker (gthread)")
    api.set_defaults(func=_api)

    cw = sub.add_parser("celery-worker", help="play AI turns from the queues (CELERY_BROKER_URL)")
    cw.add_argument("--queues", help="comma-separated; default: every AI queue and maintenance")
    cw.add_argument("--pool", default="prefork", choices=("prefork", "solo", "threads"))
    cw.add_argument("--concurrency", type=int, default=os.cpu_count() or 1)
    cw.add_argument("--name", help="the worker's node name, e.g. ai-hard@%%h")
    cw.add_argument("--loglevel", default="INFO")
    cw.set_defaults(func=_celery_worker)

    beat = sub.add_parser("celery-beat", help="the periodic sweeper (and broker cleanup)")
    beat.add_argument("--schedule", default="var/celerybeat-schedule", help="beat's state file")
    beat.add_argument("--loglevel", default="INFO")
    beat.set_defaults(func=_celery_beat)

    broker = sub.add_parser("broker", help="the Celery broker")
    broker_sub = broker.add_subparsers(dest="action", required=True)
    init = broker_sub.add_parser("init", help="create the embedded broker's tables")
    init.set_defaults(func=_broker_init)

    run = sub.add_parser("up", help="the whole system on this machine (what `make run` runs)")
    run.add_argument("--host", help="default: PRESIDENT_HOST, else 127.0.0.1")
    run.add_argument("--api-port", type=int, help="default: PRESIDENT_API_PORT, else 8000")
    run.add_argument("--ai-port", type=int, help="default: PRESIDENT_AI_PORT, else 50051")
    run.add_argument("--var-dir", help="SQLite files, beat's schedule, the lock; default: "
                     "PRESIDENT_VAR_DIR, else var")
    run.set_defaults(func=_up)

    health = sub.add_parser("health", help="probes for containers: exit 0 when healthy")
    health_sub = health.add_subparsers(dest="target_kind", required=True)
    grpc_health = health_sub.add_parser("grpc", help="a gRPC AI worker's health service")
    grpc_health.add_argument("--target", default="127.0.0.1:50051")
    grpc_health.add_argument("--timeout", type=float, default=3.0)
    grpc_health.set_defaults(func=_health_grpc)
    celery_health = health_sub.add_parser("celery", help="ping the Celery workers")
    celery_health.add_argument("--timeout", type=float, default=3.0)
    celery_health.set_defaults(func=_health_celery)

    db = sub.add_parser("db", help="the game database")
    db_sub = db.add_subparsers(dest="action", required=True)
    up = db_sub.add_parser("upgrade", help="apply the migrations (DATABASE_URL, default SQLite)")
    up.add_argument("--url", help="a SQLAlchemy URL instead of DATABASE_URL")
    up.set_defaults(func=_db_upgrade)
    check = db_sub.add_parser("check", help="rebuild every game from seed + log, compare")
    check.add_argument("--url", help="a SQLAlchemy URL instead of DATABASE_URL")
    check.set_defaults(func=_db_check)

    rules = sub.add_parser("rules", help="print the presets and options as JSON")
    rules.add_argument("--preset", help="print one preset's options")
    rules.set_defaults(func=_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ValueError as exc:  # engine errors are ValueErrors with a code
        print(f"president: {getattr(exc, 'code', 'error')}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
