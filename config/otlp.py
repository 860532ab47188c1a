"""The OTLP request for a batch of finished spans, built in place.

The exporter's own encoder (``opentelemetry.exporter.otlp.proto.common``) builds every
span, attribute and value as a message of its own and hands it to its parent's
constructor, which copies it (upb copies a sub-message by encoding and decoding it): 55
to 90 µs a span here, in the process that serves the requests, where a traced action
makes two spans. Filling the one request in place (``add()``) makes the same message in
about a third of that (``president bench spans``; docs/performance.md#tracing).

Same message, field for field: ``tests/unit/deploy/test_otlp_encoding.py`` compares it with
the exporter's encoder over generated spans of every shape. ``tracing.start`` hands this
function to the exporter in place of its own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PBSpan
from opentelemetry.proto.trace.v1.trace_pb2 import SpanFlags
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind

_logger = logging.getLogger(__name__)

_KINDS = {SpanKind.INTERNAL: PBSpan.SPAN_KIND_INTERNAL, SpanKind.SERVER: PBSpan.SPAN_KIND_SERVER,
          SpanKind.CLIENT: PBSpan.SPAN_KIND_CLIENT, SpanKind.PRODUCER: PBSpan.SPAN_KIND_PRODUCER,
          SpanKind.CONSUMER: PBSpan.SPAN_KIND_CONSUMER}
_HAS_IS_REMOTE = SpanFlags.SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK
_IS_REMOTE = SpanFlags.SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK


def encode_spans(sdk_spans: Sequence[ReadableSpan]) -> ExportTraceServiceRequest:
    """The request exporting ``sdk_spans`` (the exporter's encoder's signature): grouped
    by resource, then by instrumentation scope, each group where its first span is, the
    spans in their order."""
    request = ExportTraceServiceRequest()
    resources: dict[Any, tuple[Any, dict[Any, Any]]] = {}
    # Each (resource, scope) pair of objects looked up by equality once: a resource's
    # hash is its attributes dumped as JSON, and a batch's spans alternate between scopes.
    groups: dict[tuple[int, int], Any] = {}
    for span in sdk_spans:
        resource, scope = span.resource, span.instrumentation_scope or None
        into = groups.get((id(resource), id(scope)))
        if into is None:
            into = groups[id(resource), id(scope)] = _scope_spans(request, resources,
                                                                  resource, scope)
        _span(into, span)
    return request


def _scope_spans(request: ExportTraceServiceRequest, resources: dict[Any, Any],
                 resource: Any, scope: Any) -> Any:
    if resource not in resources:
        encoded = request.resource_spans.add()
        encoded.resource.SetInParent()  # (even with no attributes, as the exporter's)
        _attributes(encoded.resource.attributes, resource.attributes)
        encoded.schema_url = resource.schema_url
        resources[resource] = (encoded, {})
    encoded, scopes = resources[resource]
    if scope not in scopes:
        group = encoded.scope_spans.add()
        group.scope.SetInParent()
        if scope is not None:
            group.scope.name = scope.name
            if scope.version:
                group.scope.version = scope.version
            _attributes(group.scope.attributes, scope.attributes)
            if scope.schema_url:
                group.schema_url = scope.schema_url
        scopes[scope] = group.spans
    return scopes[scope]


def _span(into: Any, span: ReadableSpan) -> None:
    context = span.get_span_context()
    assert context is not None  # (a finished SDK span has one)
    parent = span.parent
    out = into.add(  # (scalars in the one call: a field set at a time costs more)
        trace_id=context.trace_id.to_bytes(16, "big"),
        span_id=context.span_id.to_bytes(8, "big"),
        parent_span_id=parent.span_id.to_bytes(8, "big") if parent else None,
        name=span.name, kind=_KINDS[span.kind],
        start_time_unix_nano=span.start_time, end_time_unix_nano=span.end_time,
        dropped_attributes_count=span.dropped_attributes,
        dropped_events_count=span.dropped_events, dropped_links_count=span.dropped_links,
        flags=_flags(parent))
    if context.trace_state:
        out.trace_state = ",".join(f"{k}={v}" for k, v in context.trace_state.items())
    _attributes(out.attributes, span.attributes)
    for event in span.events:
        encoded = out.events.add()
        encoded.name = event.name
        encoded.time_unix_nano = event.timestamp
        _attributes(encoded.attributes, event.attributes)
        encoded.dropped_attributes_count = event.dropped_attributes
    for link in span.links:
        encoded = out.links.add()
        encoded.trace_id = link.context.trace_id.to_bytes(16, "big")
        encoded.span_id = link.context.span_id.to_bytes(8, "big")
        _attributes(encoded.attributes, link.attributes)
        encoded.dropped_attributes_count = link.dropped_attributes
        encoded.flags = _flags(link.context)
    if span.status is not None:
        out.status.code = span.status.status_code.value
        if span.status.description:
            out.status.message = span.status.description


def _flags(parent: Any) -> int:
    return _HAS_IS_REMOTE | _IS_REMOTE if parent and parent.is_remote else _HAS_IS_REMOTE


def _attributes(out: Any, attributes: Mapping[str, Any] | None) -> None:
    for key, value in (attributes or {}).items():
        encoded = out.add(key=key)
        if value.__class__ is str:  # (most are)
            encoded.value.string_value = value
            continue
        try:
            _value(encoded.value, value)
        except Exception as error:  # as the exporter's encoder: the attribute is left out
            _logger.exception("Failed to encode key %s: %s", key, error)
            del out[-1]


def _value(out: Any, value: Any) -> None:
    if value is None:
        out.SetInParent()
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, int):
        out.int_value = value
    elif isinstance(value, float):
        out.double_value = value
    elif isinstance(value, bytes):
        out.bytes_value = value
    elif isinstance(value, Sequence):
        array = out.array_value
        array.SetInParent()
        for item in value:
            _value(array.values.add(), item)
    elif isinstance(value, Mapping):
        pairs = out.kvlist_value
        pairs.SetInParent()
        for key, item in value.items():
            pair = pairs.values.add()
            pair.key = str(key)
            _value(pair.value, item)
    else:
        raise TypeError(f"Invalid type {type(value)} of value {value}")
