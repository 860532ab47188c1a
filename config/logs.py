"""Logging for every process: plain text by default, one JSON object per line in
production (``PRESIDENT_LOG_FORMAT=json``), at ``PRESIDENT_LOG_LEVEL``."""

from __future__ import annotations

import logging.config
from typing import Any

from config.settings import defaulted

TEXT = "%(asctime)s %(levelname)s %(processName)s %(name)s: %(message)s"
FIELDS = "%(asctime)s %(levelname)s %(process)d %(name)s %(message)s"


def logging_config() -> dict[str, Any]:
    """A ``logging.config.dictConfig`` dictionary, also handed to gunicorn."""
    json_logs = defaulted("PRESIDENT_LOG_FORMAT").lower() == "json"
    formatter: dict[str, Any] = (
        {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": FIELDS,
         "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"}}
        if json_logs else {"format": TEXT})
    level = defaulted("PRESIDENT_LOG_LEVEL").upper()
    return {
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"main": formatter},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "main",
                                "stream": "ext://sys.stderr"}},
        "root": {"level": level, "handlers": ["stderr"]},
        # gunicorn's own loggers log through the root handler, in the same format
        "loggers": {**{name: {"level": level, "handlers": [], "propagate": True}
                       for name in ("gunicorn.error", "gunicorn.access")},
                    # a line per webhook attempt says nothing the attempts' table does not
                    "httpx": {"level": "WARNING"}},
    }


def configure_logging() -> None:
    logging.config.dictConfig(logging_config())
