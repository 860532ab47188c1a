"""The app factory: the one place that builds the API from its settings."""

from __future__ import annotations

from typing import Any

from apiflask import APIFlask, get_reason_phrase
from apiflask.exceptions import HTTPError
from flask import Response, has_request_context, request
from flask.json.provider import DefaultJSONProvider
from flask_cors import CORS
from werkzeug.middleware.proxy_fix import ProxyFix

from engine.errors import PresidentError
from services.api import limits, metrics, openapi, security
from services.api.auth import KEY_HEADER, Keys, Quota
from services.api.streams import Slots
from services.api.docs import docs
from services.api.problems import HTTP_CODES, from_error, problem
from services.api.render import rendered_cache
from services.api.routes import v1
from services.api.hints import hints
from services.api.reviews import reviews
from services.api.matchmaking import matchmaking
from services.api.ratings import ratings
from services.api.tables import tables
from services.handlers.presence import Presence
from services.api.webhooks import hooks
from services import jsoncodec
from services.api.schemas import StatusOut
from services.api.web import web
from services.container import Container
from services.errors import ServiceError
from config.settings import defaulted

MAX_BODY_BYTES = 16 * 1024
JSON = "application/json"  # the one type a request body may have (_json_bodies)

class OrjsonProvider(DefaultJSONProvider):
    """Flask's JSON with orjson (``services.jsoncodec``) for requests and compact
    responses; indented output (debug) stays the standard library's."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs.get("indent") is not None:
            return super().dumps(obj, **kwargs)
        return jsoncodec.dumps(obj, default=self.default)

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return jsoncodec.loads(s)


def matched_route() -> str | None:
    """The request's route, once matched (``/v1/games/<string:game_id>/actions``: what a
    traced request is named by)."""
    if not has_request_context() or request.url_rule is None:
        return None
    return request.url_rule.rule


def create_app(container: Container, rendered_bytes: int | None = None) -> APIFlask:
    """The API on ``container``'s ports (``bootstrap.api_app`` plugs the adapters in),
    keeping at most ``rendered_bytes`` of rendered views."""
    app = APIFlask("president", title="Président game service", version="1.0.0",
                   docs_path=None, spec_path="/openapi.json")  # docs: our own page
    app.json = OrjsonProvider(app)
    app.config.update(OPENAPI_VERSION="3.1.0", MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
                      VALIDATION_ERROR_STATUS_CODE=400, SECURITY_SCHEMES={
                          "BearerAuth": {"type": "http", "scheme": "bearer",
                                         "description": "a seat's secret token"},
                          "ApiKeyAuth": {"type": "apiKey", "in": "header", "name": KEY_HEADER,
                                         "description": "a client application's key "
                                         "(president keys create)"}})
    app.extensions["president"] = container
    app.extensions["president.rendered"] = rendered_cache(rendered_bytes)
    app.extensions["president.presence"] = Presence(container.uow)
    keys = app.extensions["president.keys"] = Keys(
        container.uow, defaulted("PRESIDENT_AUTH"),
        Quota(int(defaulted("PRESIDENT_QUOTA_GAMES_KEY")),
              int(defaulted("PRESIDENT_QUOTA_AI_SECONDS_KEY"))),
        Quota(int(defaulted("PRESIDENT_QUOTA_GAMES_ANONYMOUS")),
              int(defaulted("PRESIDENT_QUOTA_AI_SECONDS_ANONYMOUS"))))
    openapi.install(app, keys.required)
    proxies = int(defaulted("PRESIDENT_TRUSTED_PROXIES"))
    if proxies:  # the client's address, for its rate limit, from what the proxies say
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]
    limits.install(app, keys)
    app.extensions["president.streams"] = Slots(int(defaulted("PRESIDENT_STREAMS_PER_GAME")),
                                                 int(defaulted("PRESIDENT_STREAMS_PER_CLIENT")),
                                                 int(defaulted("PRESIDENT_STREAMS_PER_SEAT")))
    app.register_blueprint(v1)
    app.register_blueprint(tables)
    app.register_blueprint(ratings)
    app.register_blueprint(matchmaking)
    app.register_blueprint(hints)
    app.register_blueprint(reviews)
    app.register_blueprint(hooks)
    _cors(app, defaulted("PRESIDENT_CORS_ORIGINS"))
    app.register_blueprint(web)
    app.register_blueprint(docs)
    security.install(app)
    _errors(app)
    _probes(app)
    metrics.install(app)
    _json_bodies(app)  # last: its 415s are counted (limits) and timed (metrics)
    _printable_paths(app)
    _kept_by_nobody(app)
    return app


def _cors(app: APIFlask, origins: str) -> None:
    """Let the configured web origins call the API from a browser (none by default)."""
    allowed = [o.strip() for o in origins.split(",") if o.strip()]
    if allowed:
        CORS(app, origins="*" if allowed == ["*"] else allowed,
             allow_headers=["Authorization", KEY_HEADER, "Content-Type", "Idempotency-Key",
                            "Last-Event-ID"], max_age=600)


def _json_bodies(app: APIFlask) -> None:
    """A request's body is JSON or nothing: ``Content-Type: application/json``, with or
    without parameters (``charset``: JSON is UTF-8 anyway). Anything else,
    ``application/*+json`` included (a merge patch, say, means what these routes do not
    do), or no type at all, is a 415 before the view runs: nothing is parsed, nothing
    changes. A POST that takes no body (``rotate-secret``, ``leave``) sends none."""

    @app.before_request
    def json_only() -> Response | None:
        if request.mimetype == JSON or request.method == "OPTIONS":
            return None
        if not (request.content_length or request.headers.get("Transfer-Encoding")):
            return None  # no body (a chunked one has no length: it names its encoding)
        sent = f"not {request.mimetype}" if request.mimetype else "said so in Content-Type"
        response = problem(415, "unsupported_media_type", "Unsupported Media Type",
                           f"a request body must be {JSON}, {sent}")
        response.headers["Accept-Patch" if request.method == "PATCH" else "Accept-Post"] = JSON
        return response


def _printable_paths(app: APIFlask) -> None:
    """A path with a control character names nothing (no id holds one; PostgreSQL would
    refuse a NUL in a query's text): 404, as a path no route takes."""

    @app.before_request
    def printable() -> Response | None:
        if request.path.isprintable():
            return None
        return problem(404, "not_found", "Not Found", "no such path: it has a control "
                       "character")


def _kept_by_nobody(app: APIFlask) -> None:
    """An answer that does not say how it may be kept (a view does: ``private,
    no-cache`` with its ETag) is kept by no cache: a seat's token or a webhook's secret,
    shown once, must not be shown again by a proxy."""

    @app.after_request
    def not_stored(response: Response) -> Response:
        response.headers.setdefault("Cache-Control", "no-store")
        return response


def _errors(app: APIFlask) -> None:
    @app.errorhandler(PresidentError)
    def engine_error(error: PresidentError) -> Response:
        return from_error(error)

    @app.errorhandler(ServiceError)
    def service_error(error: ServiceError) -> Response:
        return from_error(error)

    @app.error_processor
    def http_error(error: HTTPError) -> Response:
        if error.status_code == 400 and error.detail:  # the body or query failed validation
            where = "body" if "json" in error.detail else "query"
            return problem(400, f"invalid_{where}", f"Invalid request {where}",
                           f"the request {where} does not match the schema", errors=error.detail)
        if error.status_code == 400:  # werkzeug could not parse the body
            return problem(400, "malformed_body", "Malformed request body",
                           "the request body is not valid JSON")
        code = HTTP_CODES.get(error.status_code, f"http_{error.status_code}")
        # Declared Optional, but HTTPError's constructor always sets it (to the status's
        # reason phrase when none is given): the fallback is apiflask's own.
        message = (error.message if error.message is not None
                   else get_reason_phrase(error.status_code, "Unknown error"))
        response = problem(error.status_code, code, message, message)
        response.headers.update(error.headers or {})  # e.g. Allow on a 405 (RFC 9110)
        return response


def _probes(app: APIFlask) -> None:
    @app.get("/healthz")
    @app.output(StatusOut)
    @app.doc(tags=["Operations"], summary="Alive")
    def healthz() -> dict[str, Any]:
        return {"status": "ok"}

    @app.get("/readyz")
    @app.output(StatusOut)
    @app.doc(tags=["Operations"],
             summary="Database reachable, and this code can run on its migrations")
    def readyz() -> Any:
        container: Container = app.extensions["president"]
        if not container.ready():
            return problem(503, "not_ready", "Not ready",
                           "the database is unreachable, or this code cannot run on its "
                           "migrations")
        return {"status": "ready"}
