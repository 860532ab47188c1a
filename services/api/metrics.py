"""Prometheus metrics at ``/metrics``: requests by route and status, and their latency.

Each process keeps its own registry; under several gunicorn workers set
``PROMETHEUS_MULTIPROC_DIR`` to aggregate them (prometheus_client's multiprocess mode).
"""

from __future__ import annotations

import time

from apiflask import APIFlask
from flask import Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest, multiprocess,
)

from services.settings import setting

REQUESTS = Counter("president_http_requests_total", "HTTP requests", ["method", "route", "status"])
LATENCY = Histogram("president_http_request_seconds", "HTTP request latency", ["method", "route"],
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10))


def install(app: APIFlask) -> None:
    @app.before_request
    def start_timer() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def count(response: Response) -> Response:
        route = request.url_rule.rule if request.url_rule else "unmatched"
        if route != "/metrics":
            REQUESTS.labels(request.method, route, str(response.status_code)).inc()
            LATENCY.labels(request.method, route).observe(
                time.perf_counter() - g.get("started", time.perf_counter()))
        return response

    @app.get("/metrics")
    @app.doc(hide=True)  # Prometheus's text format, not part of the JSON API
    def metrics() -> Response:
        if setting("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)
        return Response(generate_latest(), mimetype=CONTENT_TYPE_LATEST)
