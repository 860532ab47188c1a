"""A server span for each request of a WSGI app, made with the OpenTelemetry API: the
HTTP semantic conventions' required attributes and a few recommended ones, the parent
taken from the request's headers by the configured propagators (``OTEL_PROPAGATORS``),
the span named by its route once the app has matched it.

Not the maintained WSGI middleware nor the Flask instrumentation: both read a dozen
attributes from the environment, build and redact the request's URL, look up their
header-capture settings in ``os.environ`` and keep HTTP metrics with no meter to take
them, on every request: 76 µs a request against 33 µs here, in one process
(docs/decisions/performance-0008-*). Imported only once tracing is on."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from opentelemetry import context, trace
from opentelemetry.context import Context
from opentelemetry.propagate import extract
from opentelemetry.propagators.textmap import Getter

Route = Callable[[], str | None]  # the request's route, once the app has matched it
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS",
                      "TRACE", "PATCH"})


class _Headers(Getter[dict[str, Any]]):
    """A propagator's view of a WSGI environment's request headers."""

    def get(self, carrier: dict[str, Any], key: str) -> list[str] | None:
        value = carrier.get("HTTP_" + key.upper().replace("-", "_"))
        return None if value is None else [value]

    def keys(self, carrier: dict[str, Any]) -> list[str]:
        return [k[5:].lower().replace("_", "-") for k in carrier if k.startswith("HTTP_")]


_HEADERS = _Headers()


def served(app: WsgiApp, route: Route, tracer: trace.Tracer) -> WsgiApp:
    """``app`` with each request in a server span of ``tracer``'s."""

    def traced(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        method, parent = _method(environ), extract(environ, getter=_HEADERS)
        named = "HTTP" if method == "_OTHER" else method  # (the conventions' name for it)
        span = tracer.start_span(named, parent, trace.SpanKind.SERVER,
                                 _request_attributes(environ, method))
        within = trace.set_span_in_context(span, parent)

        def responding(status: str, headers: Any, exc_info: Any = None) -> Any:
            _responded(span, status, named, route)
            return start_response(status, headers, exc_info)

        token = context.attach(within)
        try:
            body = app(environ, responding)
        except BaseException as error:
            _failed(span, error)
            span.end()
            raise
        finally:
            context.detach(token)
        return _Body(body, span, within)

    return traced


def _method(environ: dict[str, Any]) -> str:
    method = environ.get("REQUEST_METHOD", "")
    return method if method in _METHODS else "_OTHER"


def _request_attributes(environ: dict[str, Any], method: str) -> dict[str, str]:
    attributes = {"http.request.method": method,
                  "url.scheme": environ.get("wsgi.url_scheme", "http"),
                  "url.path": environ.get("PATH_INFO") or "/"}
    for key, name in (("QUERY_STRING", "url.query"), ("HTTP_USER_AGENT", "user_agent.original"),
                      ("REMOTE_ADDR", "client.address")):
        if environ.get(key):
            attributes[name] = environ[key]
    if method == "_OTHER":
        attributes["http.request.method_original"] = environ.get("REQUEST_METHOD", "")
    return attributes


def _responded(span: trace.Span, status: str, named: str, route: Route) -> None:
    if not span.is_recording():  # (a request sampled out is not named: nothing sees it)
        return
    code, matched = int(status[:3]), route()
    span.set_attribute("http.response.status_code", code)
    if matched is not None:
        span.update_name(f"{named} {matched}")
        span.set_attribute("http.route", matched)
    if code >= 500:  # (a 4xx is the client's error, not the server's)
        span.set_attribute("error.type", str(code))
        span.set_status(trace.StatusCode.ERROR)


def _failed(span: trace.Span, error: BaseException) -> None:
    span.record_exception(error)
    span.set_attribute("error.type", type(error).__qualname__)
    span.set_status(trace.StatusCode.ERROR, str(error))


class _Body:
    """A response's body, each chunk made within the request's span (an event stream's
    reads are the request's too). The span ends with the last chunk, or when the server
    closes the body, as a WSGI server always does, however the client left."""

    __slots__ = ("_body", "_chunks", "_span", "_within", "_open")

    def __init__(self, body: Iterable[bytes], span: trace.Span, within: Context) -> None:
        self._body, self._span, self._within = body, span, within
        self._chunks: Iterator[bytes] = iter(body)  # (a WSGI body's chunks come from next)
        self._open = True

    def __iter__(self) -> _Body:
        return self

    def __next__(self) -> bytes:
        token = context.attach(self._within)
        try:
            return next(self._chunks)
        except StopIteration:
            self._end()
            raise
        except BaseException as error:
            _failed(self._span, error)
            raise
        finally:
            context.detach(token)

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._end()

    def _end(self) -> None:
        if self._open:
            self._open = False
            self._span.end()
