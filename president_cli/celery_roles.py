"""The Celery processes: ``president celery-worker``, ``celery-beat`` and ``broker init``
(the embedded broker's tables). ``celery_app`` serves ``president health celery`` too."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def celery_app() -> Any:
    """The Celery app for a worker or beat process, the embedded broker's tables made."""
    from celery.signals import setup_logging

    from bootstrap import celery_app as make_celery_app
    from config.logs import configure_logging
    from workers.turns import embedded
    from workers.turns.settings import TurnSettings

    # A receiver of setup_logging tells Celery to leave logging to us: one format for all.
    setup_logging.connect(lambda **_: configure_logging(), weak=False)
    settings = TurnSettings.from_env()
    if embedded.is_embedded(settings.broker_url):
        embedded.create_tables(settings.broker_url)
    return make_celery_app(settings)


def _celery_worker(args: argparse.Namespace) -> int:
    """The worker's exit code; 1 whenever it ended without being asked to (an
    "Unrecoverable error" in Celery's consumer, which ``worker_main`` would end with 0),
    so that a supervisor restarting failed processes restarts it."""
    from celery.signals import worker_shutting_down

    from workers.turns import embedded
    from workers.turns.app import DEFAULT_QUEUES

    app = celery_app()
    argv = ["worker", "--loglevel", args.loglevel, "--queues", args.queues or ",".join(DEFAULT_QUEUES),
            "--pool", args.pool, "--concurrency", str(args.concurrency),
            "--without-gossip", "--without-mingle"]
    if args.name:
        argv += ["--hostname", args.name]
    if embedded.is_embedded(app.conf.broker_url):  # no broadcast on a SQL table
        argv += ["--without-heartbeat"]
        app.conf.worker_enable_remote_control = False
    asked: list[str] = []
    worker_shutting_down.connect(lambda sig, **_: asked.append(str(sig)), weak=False)
    code = int(app.start(argv) or 0)
    if not asked:
        print("president celery-worker: the worker stopped unasked", file=sys.stderr)
        return code or 1
    return code


def _celery_beat(args: argparse.Namespace) -> int:
    app = celery_app()
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


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cw = sub.add_parser("celery-worker", help="play AI turns from the queues (CELERY_BROKER_URL)")
    cw.add_argument("--queues", help="comma-separated; default: every queue but reviews "
                    "(which workers of their own serve: --queues reviews)")
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
