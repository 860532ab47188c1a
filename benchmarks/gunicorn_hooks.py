"""Gunicorn configuration for ``president bench api`` (``-c python:…``), for both apps:
what ``president api`` does once a worker has loaded its app, then the worker says so,
so that the load starts only once every worker can take connections. (A worker still
importing would leave the first one to accept every keep-alive connection, and the run
would measure one process instead of all of them.)"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from services.api.serve import worker_ready


def post_worker_init(worker: Any) -> None:
    worker_ready(worker)
    Path(os.environ["PRESIDENT_BENCH_READY_DIR"], str(worker.pid)).touch()
