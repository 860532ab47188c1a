"""``president api``: the app factory under gunicorn (threads, several workers)."""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication

from services.api.app import create_app
from services.logs import logging_config


class _Gunicorn(BaseApplication):  # type: ignore[misc]  # gunicorn is untyped: an Any base
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return create_app()  # in each worker: no work at import time, no shared connections


def run(host: str, port: int, workers: int, threads: int) -> int:
    _Gunicorn({"bind": f"{host}:{port}", "workers": workers, "threads": threads,
               "worker_class": "gthread", "accesslog": "-", "timeout": 60,
               "graceful_timeout": 30, "logconfig_dict": logging_config()}).run()
    return 0
