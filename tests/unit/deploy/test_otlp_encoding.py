"""The OTLP request built in place (config/otlp.py) is the exporter's own, byte for byte,
for batches of spans of every shape: resources and scopes alike and apart, every kind of
attribute value (nested, empty, None, and one the exporter cannot encode), events,
links, trace state, remote parents, statuses."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as theirs
from opentelemetry.exporter.otlp.proto.http import trace_exporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceState

from config import otlp, tracing

ids = st.integers(1, 2**64 - 1)
words = st.text("abcxyz._", min_size=1, max_size=6)
scalars = st.one_of(st.none(), st.booleans(), words, st.integers(-2**63, 2**63 - 1),
                    st.floats(allow_nan=False), st.binary(max_size=4))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.tuples(inner),
    st.dictionaries(words, inner, max_size=3)), max_leaves=6)
# A value neither encoder can encode: the attribute is left out, the rest kept.
unencodable = st.just(object())
attributes = st.dictionaries(words, st.one_of(values, unencodable), max_size=4)

RESOURCES = [Resource({"service.name": "api"}), Resource({"service.name": "api"}), Resource({}),
             Resource({"service.name": "worker", "n": 2}, "https://schema/1")]
SCOPES = [None, InstrumentationScope("president"), InstrumentationScope("president"),
          InstrumentationScope("wsgi", "0.1", "https://schema/2", {"a": 1})]


@st.composite
def contexts(draw: Any, remote: bool | None = None) -> SpanContext:
    state = TraceState(draw(st.lists(st.tuples(st.sampled_from("abc"), words), max_size=2,
                                     unique_by=lambda kv: kv[0])))
    return SpanContext(draw(st.integers(1, 2**128 - 1)), draw(ids),
                       is_remote=draw(st.booleans()) if remote is None else remote,
                       trace_state=state)


@st.composite
def spans(draw: Any) -> ReadableSpan:
    status = draw(st.sampled_from([Status(StatusCode.UNSET), Status(StatusCode.OK),
                                   Status(StatusCode.ERROR, "boom"), None]))
    return ReadableSpan(
        name=draw(words), context=draw(contexts(remote=False)),
        parent=draw(st.none() | contexts()),
        resource=draw(st.sampled_from(RESOURCES)), attributes=draw(attributes),
        events=draw(st.lists(st.builds(Event, words, attributes, st.integers(0, 2**63)),
                             max_size=2)),
        links=draw(st.lists(st.builds(Link, contexts(), attributes), max_size=2)),
        kind=draw(st.sampled_from(list(SpanKind))),
        instrumentation_scope=draw(st.sampled_from(SCOPES)), status=status,
        start_time=draw(st.integers(0, 2**63)), end_time=draw(st.integers(0, 2**63)))


@settings(max_examples=300, deadline=None)
@given(st.lists(spans(), max_size=6))
def test_the_request_built_in_place_is_the_exporters(batch: list[ReadableSpan]) -> None:
    mine, its = otlp.encode_spans(batch), theirs(batch)
    assert mine == its
    assert mine.SerializeToString(deterministic=True) == its.SerializeToString(deterministic=True)


def test_a_traced_process_exports_with_it(monkeypatch: Any) -> None:
    """The exporter, sending to a receiver, builds its request with ``config.otlp``."""
    from otlp import OtlpReceiver

    used: list[int] = []
    encode = otlp.encode_spans

    def spied(sdk_spans: Any) -> Any:
        used.append(len(sdk_spans))
        return encode(sdk_spans)

    monkeypatch.setattr(trace_exporter, "encode_spans", theirs)
    monkeypatch.setattr(otlp, "encode_spans", spied)
    tracing.encode_in_place()
    receiver = OtlpReceiver()
    try:
        batch = [ReadableSpan("x", SpanContext(7, 8, False), resource=RESOURCES[0],
                              kind=SpanKind.SERVER, start_time=1, end_time=2)]
        exporter = trace_exporter.OTLPSpanExporter(endpoint=receiver.endpoint + "/v1/traces")
        assert exporter.export(batch).name == "SUCCESS"
        assert used == [1] and [s.name for s in receiver.of_trace(f"{7:032x}")] == ["x"]
    finally:
        receiver.close()


def test_a_moves_traceparent_is_the_one_the_w3c_propagator_writes(monkeypatch: Any) -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    monkeypatch.setattr(tracing, "_started", True)
    assert tracing.traceparent() is None  # no span: no trace to carry on
    recorded = TracerProvider().get_tracer("t").start_span("x")  # (sampled, random id)
    for span in [recorded, *(trace.NonRecordingSpan(SpanContext(
            0x1234, 0x56, False, trace.TraceFlags(flags))) for flags in (0, 1))]:
        with trace.use_span(span):
            written: dict[str, str] = {}
            TraceContextTextMapPropagator().inject(written)
            assert tracing.traceparent() == written["traceparent"]


def test_a_statements_span_ends_and_says_what_failed(monkeypatch: Any) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    kept = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(kept))
    monkeypatch.setattr(tracing, "_started", True)
    monkeypatch.setattr(tracing, "_tracer", provider.get_tracer("t"))
    with tracing.span("president.moves", **{"db.system": "postgresql"}):
        pass
    try:
        with tracing.span("president.moves"):
            raise ValueError("refused")
    except ValueError:
        pass
    ok, failed = kept.get_finished_spans()
    assert ok.kind == SpanKind.CLIENT and ok.attributes == {"db.system": "postgresql"}
    assert ok.status.status_code == StatusCode.UNSET and ok.end_time is not None
    assert failed.status.status_code == StatusCode.ERROR
    assert failed.status.description == "ValueError: refused"
    assert failed.events[0].name == "exception"
