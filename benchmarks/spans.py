"""``president bench spans``: what a traced action's spans cost the process that serves
it, one part at a time, in one process with no server: making and ending the request's
span (the attributes the WSGI middleware gives it) and the moves statement's, with the
SDK; then encoding them for OTLP, with the exporter's own encoder and with the request
built in place (``config/otlp.py``) that the service uses. CPU time, one thread; the
spans go to a processor that keeps them, so no export thread runs meanwhile."""

from __future__ import annotations

import time
from typing import Any, Callable

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as theirs
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.trace import SpanKind
from opentelemetry.util.types import AnyValue

from config import otlp

# What the WSGI middleware and tracing.instrument_app give an action's span.
REQUEST: dict[str, AnyValue] = {"http.method": "POST", "http.server_name": "127.0.0.1", "http.scheme": "http",
           "net.host.port": 8000, "http.host": "127.0.0.1:8000",
           "http.target": "/v1/games/0123456789abcdef/actions", "net.peer.ip": "127.0.0.1",
           "net.peer.port": 50000, "http.user_agent": "wrk", "http.flavor": "1.1"}
MOVES = {"db.system": "postgresql", "db.operation": "moves", "president.moves": "1"}


class _Kept(SpanProcessor):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.spans.append(span)


def _cpu_us(work: Callable[[], Any], per: int) -> float:
    started = time.process_time()
    work()
    return round((time.process_time() - started) / per * 1e6, 1)


def bench_spans(actions: int = 2000, repeats: int = 5) -> dict[str, Any]:
    """Per action (two spans), the best of ``repeats`` runs of each part."""
    kept = _Kept()
    provider = TracerProvider(resource=Resource.create({"service.name": "president-api"}))
    provider.add_span_processor(kept)
    tracer = provider.get_tracer("president")

    def make() -> None:
        kept.spans.clear()
        for _ in range(actions):
            with tracer.start_as_current_span("POST /v1/games/<string:game_id>/actions",
                                              kind=SpanKind.SERVER, attributes=REQUEST) as span:
                tracer.start_span("president.moves", kind=SpanKind.CLIENT,
                                  attributes=MOVES).end()
                span.set_attribute("http.route", "/v1/games/<string:game_id>/actions")
                span.set_attribute("http.status_code", 200)

    made = min(_cpu_us(make, actions) for _ in range(repeats))
    batches = [kept.spans[i:i + 512] for i in range(0, len(kept.spans), 512)]  # as exported
    figures = {name: min(_cpu_us(lambda: [encode(b).SerializePartialToString()
                                         for b in batches], actions)
                         for _ in range(repeats))
               for name, encode in (("exporter", theirs), ("in_place", otlp.encode_spans))}
    return {"actions": actions, "spans_per_action": len(kept.spans) / actions,
            "make_and_end_us": made, "encode_exporter_us": figures["exporter"],
            "encode_in_place_us": figures["in_place"],
            "encode_speedup": round(figures["exporter"] / max(figures["in_place"], 0.1), 2)}


def format_spans(report: dict[str, Any]) -> str:
    return (f"per action ({report['spans_per_action']:.0f} spans, best of runs of "
            f"{report['actions']}): made and ended {report['make_and_end_us']} µs; encoded "
            f"by the exporter's encoder {report['encode_exporter_us']} µs, in place "
            f"{report['encode_in_place_us']} µs (x{report['encode_speedup']})")
