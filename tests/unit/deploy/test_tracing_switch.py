"""Tracing is off unless the OTEL_* variables name an exporter, and then costs nothing:
every helper answers without touching OpenTelemetry."""

from __future__ import annotations

from contextlib import nullcontext

import pytest

from config import tracing
from config.logs import logging_config


@pytest.mark.parametrize("environ, on", [
    ({}, False),
    ({"OTEL_SERVICE_NAME": "x"}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"},
     False),
])
def test_tracing_is_on_only_when_an_exporter_is_named(environ: dict[str, str], on: bool) -> None:
    assert tracing.enabled(environ) == on


def test_off_every_helper_answers_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    assert not tracing.start("test") and not tracing.started()
    assert tracing.traceparent() is None and tracing.trace_id() == "-"
    assert isinstance(tracing.continued("00-" + "1" * 32 + "-" + "2" * 16 + "-01"), nullcontext)
    assert isinstance(tracing.span("x"), nullcontext)
    assert "trace_id" not in str(logging_config())


def test_on_every_log_line_says_its_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    config = logging_config()
    assert "trace=%(trace_id)s" in config["formatters"]["main"]["format"]
    assert config["handlers"]["stderr"]["filters"] == ["traces"]
