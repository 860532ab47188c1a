"""A traced app's requests, each a server span (config/server_spans.py): its name and
attributes by the HTTP semantic conventions, its parent from the request's
``traceparent``, errors, and a streamed body made within the span, which ends with the
last chunk or when the server closes the body."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from flask import Flask, Response
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from config.server_spans import served
from services.api.app import matched_route

TRACE, PARENT = "a" * 32, "b" * 16


class Traced:
    def __init__(self) -> None:
        self.exported = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(self.exported))
        self.tracer = provider.get_tracer("test")
        self.closed = self.routes_asked = 0
        app = Flask("traced")

        @app.get("/things/<int:n>")
        def thing(n: int) -> Any:
            if n == 500:
                raise RuntimeError("the handler failed")
            return {"n": n} if n < 400 else ({"n": n}, n)

        @app.get("/stream")
        def stream() -> Response:
            def chunks() -> Iterator[str]:
                for i in range(3):
                    with self.tracer.start_as_current_span(f"read {i}"):
                        yield f"{i}\n"
            response = Response(chunks())
            response.call_on_close(self._closed)
            return response

        app.wsgi_app = served(app.wsgi_app, self._route, self.tracer)  # type: ignore[method-assign]
        self.app = app

    def _route(self) -> str | None:
        self.routes_asked += 1
        return matched_route()

    def _closed(self) -> None:
        self.closed += 1

    def spans(self) -> dict[str, ReadableSpan]:
        return {span.name: span for span in self.exported.get_finished_spans()}


@pytest.fixture
def traced() -> Traced:
    return Traced()


def test_a_request_is_a_server_span_named_by_its_route_in_the_callers_trace(
        traced: Traced) -> None:
    answer = traced.app.test_client().get(
        "/things/3?x=1", headers={"traceparent": f"00-{TRACE}-{PARENT}-01",
                                  "User-Agent": "tests"})
    assert answer.get_json() == {"n": 3}
    span = traced.spans()["GET /things/<int:n>"]
    assert span.kind == SpanKind.SERVER and span.status.status_code == StatusCode.UNSET
    assert dict(span.attributes or {}) == {
        "http.request.method": "GET", "url.scheme": "http", "url.path": "/things/3",
        "url.query": "x=1", "user_agent.original": "tests", "client.address": "127.0.0.1",
        "http.response.status_code": 200, "http.route": "/things/<int:n>"}
    assert span.parent is not None and span.parent.is_remote
    assert (format(span.context.trace_id, "032x"), format(span.parent.span_id, "016x")) \
        == (TRACE, PARENT)


def test_without_a_traceparent_a_request_starts_a_trace_and_an_unmatched_one_is_named_by_its_method(
        traced: Traced) -> None:
    assert traced.app.test_client().get("/nowhere", buffered=True).status_code == 404
    span = traced.spans()["GET"]
    assert span.parent is None
    assert span.attributes is not None and "http.route" not in span.attributes
    assert span.attributes["http.response.status_code"] == 404


def test_a_client_error_leaves_the_status_unset_a_server_error_sets_it(traced: Traced) -> None:
    client = traced.app.test_client()
    assert client.get("/things/404", buffered=True).status_code == 404
    assert client.get("/things/500", buffered=True).status_code == 500
    refused, failed = traced.exported.get_finished_spans()
    assert refused.status.status_code == StatusCode.UNSET
    assert refused.attributes is not None and "error.type" not in refused.attributes
    assert failed.status.status_code == StatusCode.ERROR
    assert failed.attributes is not None and failed.attributes["error.type"] == "500"


def test_an_exception_out_of_the_app_is_recorded_and_the_span_ends(traced: Traced) -> None:
    traced.app.config["PROPAGATE_EXCEPTIONS"] = True  # (Flask re-raises, as in debug)
    with pytest.raises(RuntimeError):
        traced.app.test_client().get("/things/500", buffered=True)
    (span,) = traced.exported.get_finished_spans()
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes is not None and span.attributes["error.type"] == "RuntimeError"
    assert [event.name for event in span.events] == ["exception"]


def test_a_streamed_body_is_made_within_the_span_which_ends_with_its_last_chunk(
        traced: Traced) -> None:
    answer = traced.app.test_client().get("/stream", buffered=False)
    assert "GET /stream" not in traced.spans()  # (nothing sent yet)
    assert answer.get_data() == b"0\n1\n2\n"
    spans = traced.spans()
    request = spans["GET /stream"]
    for i in range(3):
        parent = spans[f"read {i}"].parent
        assert parent is not None and parent.span_id == request.context.span_id
    answer.close()
    assert traced.closed == 1 and len(traced.exported.get_finished_spans()) == 4  # once


def test_a_body_closed_before_its_end_still_ends_the_span(traced: Traced) -> None:
    """A client that leaves mid-stream: the server closes the body, which closes the
    app's (an event stream gives back its slot) and ends the span."""
    answer = traced.app.test_client().get("/stream", buffered=False)
    next(iter(answer.response))
    answer.close()
    assert traced.closed == 1 and "GET /stream" in traced.spans()


def test_a_request_whose_caller_did_not_sample_it_records_nothing(traced: Traced) -> None:
    answer = traced.app.test_client().get(
        "/things/3", headers={"traceparent": f"00-{TRACE}-{PARENT}-00"})
    assert answer.get_json() == {"n": 3}
    assert traced.exported.get_finished_spans() == ()
    assert traced.routes_asked == 0  # (nothing names a span no one sees)


def test_a_method_http_does_not_define_is_other(traced: Traced) -> None:
    traced.app.test_client().open("/things/3", method="PROPFIND", buffered=True)
    (span,) = traced.exported.get_finished_spans()
    assert span.name == "HTTP"
    assert span.attributes is not None and span.attributes["http.request.method"] == "_OTHER"
    assert span.attributes["http.request.method_original"] == "PROPFIND"
