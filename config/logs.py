"""Logging for every process: plain text by default, one JSON object per line in
production (``PRESIDENT_LOG_FORMAT=json``), at ``PRESIDENT_LOG_LEVEL``."""

from __future__ import annotations

import logging.config
from typing import Any

from config import tracing
from config.settings import defaulted

TEXT = "%(asctime)s %(levelname)s %(processName)s %(name)s: %(message)s"
FIELDS = "%(asctime)s %(levelname)s %(process)d %(name)s %(message)s"


class TraceIds(logging.Filter):
    """Writes the current trace's id on each record (``trace_id``), for lines that say
    which trace they belong to when tracing is on."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.trace_id = tracing.trace_id()
        return True


def logging_config() -> dict[str, Any]:
    """A ``logging.config.dictConfig`` dictionary, also handed to gunicorn."""
    json_logs = defaulted("PRESIDENT_LOG_FORMAT").lower() == "json"
    traced = tracing.enabled()
    fields, text = (FIELDS + " %(trace_id)s", TEXT + " trace=%(trace_id)s") if traced \
        else (FIELDS, TEXT)
    formatter: dict[str, Any] = (
        {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": fields,
         "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"}}
        if json_logs else {"format": text})
    level = defaulted("PRESIDENT_LOG_LEVEL").upper()
    return {
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"main": formatter},
        "filters": {"traces": {"()": TraceIds}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "main",
                                "stream": "ext://sys.stderr",
                                "filters": ["traces"] if traced else []}},
        "root": {"level": level, "handlers": ["stderr"]},
        # gunicorn's own loggers log through the root handler, in the same format
        "loggers": {**{name: {"level": level, "handlers": [], "propagate": True}
                       for name in ("gunicorn.error", "gunicorn.access")},
                    # a line per webhook attempt says nothing the attempts' table does not
                    "httpx": {"level": "WARNING"}},
    }


def configure_logging() -> None:
    logging.config.dictConfig(logging_config())
