"""Gunicorn configuration for ``president bench api`` (``-c python:…``): each worker
says when it has loaded its app, so that the load starts only once every worker can take
connections. (A worker still importing would leave the first one to accept every
keep-alive connection, and the run would measure one process instead of all of them.)"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def post_worker_init(worker: Any) -> None:
    Path(os.environ["PRESIDENT_BENCH_READY_DIR"], str(worker.pid)).touch()
