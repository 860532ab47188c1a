"""``president api``: the REST API under gunicorn (``services.api.serve``)."""

from __future__ import annotations

import argparse

from services.api.serve import API_THREADS, API_WORKER_CLASS, API_WORKER_CLASSES, API_WORKERS


def _api(args: argparse.Namespace) -> int:
    from config.settings import setting
    from services.api.serve import run

    turns = "through Celery" if setting("CELERY_BROKER_URL") else "in process"
    print(f"API on http://{args.host}:{args.port}/docs (AI turns played {turns})", flush=True)
    return run("bootstrap:api_app()", args.host, args.port, args.workers, args.worker_class,
               args.threads)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    api = sub.add_parser("api", help="serve the REST API under gunicorn")
    api.add_argument("--host", default="127.0.0.1")
    api.add_argument("--port", type=int, default=8000)
    api.add_argument("--workers", type=int, default=API_WORKERS)
    api.add_argument("--worker-class", choices=API_WORKER_CLASSES, default=API_WORKER_CLASS)
    api.add_argument("--threads", type=int, default=API_THREADS, help="per worker (gthread)")
    api.set_defaults(func=_api)
