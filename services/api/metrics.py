"""Prometheus metrics at ``/metrics``: requests by route and status, and their latency.
With ``PRESIDENT_METRICS_PORT`` set, only on that port (which no proxy or Service
exposes); otherwise on the API's own.

Each process keeps its own registry; under several gunicorn workers set
``PROMETHEUS_MULTIPROC_DIR`` to aggregate them (prometheus_client's multiprocess mode).
"""

from __future__ import annotations

import time
from typing import Any

from apiflask import APIFlask
from flask import Response, abort, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest, multiprocess,
)

from config.settings import setting

REQUESTS = Counter("president_http_requests_total", "HTTP requests", ["method", "route", "status"])
LATENCY = Histogram("president_http_request_seconds", "HTTP request latency", ["method", "route"],
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10))


# Labels from a fixed set: a client's made-up method or path never makes a new series.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_children: dict[tuple[str, str, str], tuple[Any, Any]] = {}


def _series(method: str, route: str, status: str) -> tuple[Any, Any]:
    """The counter and histogram of one (method, route, status), looked up once: labels()
    takes a lock and builds a key on every call, a noticeable part of a cheap request."""
    series = _children.get((method, route, status))
    if series is None:
        series = (REQUESTS.labels(method, route, status), LATENCY.labels(method, route))
        _children[method, route, status] = series
    return series


def install(app: APIFlask) -> None:
    @app.before_request
    def start_timer() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def count(response: Response) -> Response:
        route = request.url_rule.rule if request.url_rule else "unmatched"
        if route != "/metrics":
            method = request.method if request.method in METHODS else "OTHER"
            requests, latency = _series(method, route, str(response.status_code))
            requests.inc()
            latency.observe(time.perf_counter() - g.get("started", time.perf_counter()))
        return response

    metrics_port = setting("PRESIDENT_METRICS_PORT")

    @app.get("/metrics")
    @app.doc(hide=True)  # Prometheus's text format, not part of the JSON API
    def metrics() -> Response:
        if metrics_port and request.environ.get("SERVER_PORT") != metrics_port:
            abort(404)  # served on the metrics port only: never through the public one
        if setting("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)
        return Response(generate_latest(), mimetype=CONTENT_TYPE_LATEST)
