"""Tracing with OpenTelemetry: off by default, and then free (every helper here returns at
once). On when the standard ``OTEL_*`` variables name an exporter
(``OTEL_EXPORTER_OTLP_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) and
``OTEL_SDK_DISABLED`` is not ``true``; every other ``OTEL_*`` variable (sampling, batch
delays, headers, ``OTEL_SERVICE_NAME``) works as the SDK documents.

Each process calls ``start`` once, after any fork: the tracer provider, an OTLP/HTTP
exporter, and the maintained instrumentations of what the process uses (Celery, in the
publishing process too; gRPC clients and servers; Redis; the SQLAlchemy engines made from
then on). Flask apps are traced as they are made (``instrument_app``: a server span a
request, ``config.server_spans``); statements on raw cursors, which no instrumentation
sees, get a span of their own (``span``).

A move's trace goes on through the outbox: the move writes its ``traceparent`` with the
next turn's message, and the relay publishes the message inside that context
(``continued``), so the Celery task, the gRPC decision and the AI's write join it.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Callable, Iterator, Mapping

_started = False
_tracer: Any = None  # this process's, for ``span`` (asking the provider each time costs)


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    return bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT")
                or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def started() -> bool:
    return _started


def start(service: str) -> bool:
    """Trace this process as ``service`` (unless ``OTEL_SERVICE_NAME`` says otherwise),
    if tracing is on; whether it is."""
    global _started, _tracer
    if _started or not enabled():
        return _started
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.grpc import (
        GrpcInstrumentorClient, GrpcInstrumentorServer,
    )
    from opentelemetry.instrumentation.redis import RedisInstrumentor
    from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    name = os.environ.get("OTEL_SERVICE_NAME") or service
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    encode_in_place()
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    # (the instrumentors are untyped)
    CeleryInstrumentor().instrument()  # type: ignore[no-untyped-call]
    GrpcInstrumentorClient().instrument()  # type: ignore[no-untyped-call]
    GrpcInstrumentorServer().instrument()  # type: ignore[no-untyped-call]
    RedisInstrumentor().instrument()
    # The engines made from now on. (Its declared range ends below SQLAlchemy 2.1, whose
    # engine events it hooks are those of 2.0: tests/e2e/test_tracing.py sees its spans.)
    SQLAlchemyInstrumentor().instrument(skip_dep_check=True)
    _tracer = trace.get_tracer("president")
    _started = True
    return True


def encode_in_place() -> None:
    """The OTLP exporter's requests built by ``config.otlp``: the same bytes, in about a
    third of the time its own encoder takes (the exporter names its encoder as a module
    global, its one way in)."""
    from opentelemetry.exporter.otlp.proto.http import trace_exporter

    from config import otlp

    trace_exporter.encode_spans = otlp.encode_spans  # type: ignore[attr-defined]


def instrument_app(app: Any, route: Callable[[], str | None]) -> None:
    """The app's requests traced, each a server span named by its route once the app has
    matched it (``route()``: ``/v1/games/<string:game_id>/actions``), by
    ``config.server_spans``."""
    if not _started:
        return
    from config.server_spans import served

    app.wsgi_app = served(app.wsgi_app, route, _tracer)


def traceparent() -> str | None:
    """The current span's W3C ``traceparent``, to carry it through the outbox (written
    here as the W3C propagator writes it, without its trip through every propagator)."""
    if not _started:
        return None
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"


def continued(parent: str | None) -> AbstractContextManager[object]:
    """Within the trace of ``parent`` (a ``traceparent``); with none, outside any trace,
    whatever the thread was in (a task's commit hands over the next turn, which is not
    that task's)."""
    if not _started:
        return nullcontext()
    return _attached(parent)


@contextmanager
def _attached(parent: str | None) -> Iterator[object]:
    from opentelemetry import context
    from opentelemetry.propagate import extract

    token = context.attach(extract({"traceparent": parent} if parent else {}))
    try:
        yield None
    finally:
        context.detach(token)


def span(name: str, **attributes: str) -> AbstractContextManager[object]:
    """A client span of the current trace, for what no instrumentation sees (statements
    on a raw database cursor). Not made the current span: nothing runs inside it that
    could be its child, and attaching it costs. (An SDK span is its own context manager:
    it records an exception with an ERROR status, and ends.)"""
    if not _started:
        return nullcontext()
    from opentelemetry import trace

    return _tracer.start_span(  # type: ignore[no-any-return]
        name, kind=trace.SpanKind.CLIENT, attributes=attributes)


def trace_id() -> str:
    """The current trace's id in hex, for log lines ("-": none)."""
    if not _started:
        return "-"
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else "-"
