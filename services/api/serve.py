"""``president api``: the app factory under gunicorn, several workers.

gevent workers by default: a request that waits (for its move's commit, a long poll, an
event stream) holds a greenlet rather than one of a few OS threads, so a worker keeps up
to ``worker_connections`` requests going at once. The master process imports neither the
app nor a database driver: each worker patches the standard library for gevent first,
and psycopg picks how it waits for the server when it is imported (a driver imported
before the patch would block the worker's whole event loop on every query)."""

from __future__ import annotations

import gc
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.util import import_app

from config.logs import logging_config
from config.settings import setting
from services.api.draining import drain_on_sigterm

# How the API is served: what deploy/ runs (a test checks), ``president api``'s defaults and
# what ``president bench api`` measures by default. A move spends most of its time waiting
# for its commit: under gevent a waiting request costs a greenlet, not an OS thread
# fighting the others for the GIL, and the moves of one worker's waiting requests go to
# the database together (docs/decisions/performance-0001-*). API_THREADS applies to the gthread class
# only (``--worker-class``).
API_WORKERS, API_WORKER_CLASS, API_THREADS = 2, "gevent", 8
API_WORKER_CLASSES = ("gevent", "gthread")


def out_of_the_collectors_sight(worker: Any = None) -> None:
    """gunicorn's ``post_worker_init``: what a worker holds once it has loaded the app
    (modules, the app, its settings) lives as long as the worker, so the cyclic garbage
    collector stops walking it (``gc.freeze``): an action allocates enough to set off
    collections, and their walks over all of it cost measurable CPU
    (docs/decisions/performance-0002-*)."""
    gc.collect()
    gc.freeze()


def worker_ready(worker: Any = None) -> None:
    """gunicorn's ``post_worker_init``: the collector told to look away, and SIGTERM
    ending event streams and long polls (``draining``)."""
    out_of_the_collectors_sight(worker)
    drain_on_sigterm(worker)


class _Gunicorn(BaseApplication):  # type: ignore[misc]  # gunicorn is untyped: an Any base
    def __init__(self, app: str, options: dict[str, Any]) -> None:
        self.app, self.options = app, options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        # in each worker, once it is patched: no work at import time, no shared connections
        return import_app(self.app)


def options(host: str, port: int, workers: int, worker_class: str,
            threads: int) -> dict[str, Any]:
    """gunicorn's settings for ``president api``; ``threads``: per worker, for the gthread
    class only. With ``PRESIDENT_METRICS_PORT`` the workers listen there too, and
    ``/metrics`` answers there only (``metrics``)."""
    threads_option = {"threads": threads} if worker_class == "gthread" else {}
    metrics_port = setting("PRESIDENT_METRICS_PORT")
    bind = [f"{host}:{port}"] + ([f"{host}:{metrics_port}"] if metrics_port else [])
    return {"bind": bind, "workers": workers, "worker_class": worker_class,
            **threads_option, "accesslog": "-", "timeout": 60, "graceful_timeout": 30,
            "logconfig_dict": logging_config(),
            "post_worker_init": worker_ready}


def run(app: str, host: str, port: int, workers: int, worker_class: str, threads: int) -> int:
    """Serve ``app``, a factory call by import path (``"bootstrap:api_app()"``)."""
    _Gunicorn(app, options(host, port, workers, worker_class, threads)).run()
    return 0
