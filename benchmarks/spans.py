"""``president bench spans``: what a traced action's spans cost the process that serves
it, one part at a time, in one process with no server: making and ending the request's
span (by ``config.server_spans``, around an app that answers at once) and the moves
statement's, with the SDK; then encoding them for OTLP, with the exporter's own encoder
and with the request built in place (``config/otlp.py``) that the service uses. CPU time,
one thread; the spans go to a processor that keeps them, so no export thread runs
meanwhile."""

from __future__ import annotations

import time
from typing import Any, Callable

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as theirs
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.trace import SpanKind

from config import otlp
from config.server_spans import served

ROUTE = "/v1/games/<string:game_id>/actions"
ENVIRON = {"REQUEST_METHOD": "POST", "wsgi.url_scheme": "http", "PATH_INFO":
           "/v1/games/0123456789abcdef/actions", "HTTP_USER_AGENT": "wrk",
           "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "127.0.0.1:8000"}
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

    def action(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        tracer.start_span("president.moves", kind=SpanKind.CLIENT, attributes=MOVES).end()
        start_response("200 OK", [("Content-Length", "2")])
        return [b"{}"]

    app = served(action, lambda: ROUTE, tracer)

    def make() -> None:
        kept.spans.clear()
        for _ in range(actions):
            body = app(dict(ENVIRON), lambda status, headers, exc_info=None: None)
            for _chunk in body:
                pass

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
