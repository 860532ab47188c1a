"""Every error as RFC 9457 problem+json: a stable ``type`` and ``code``, a human ``detail``.

Engine and service errors become problems here, at the entry point, and nowhere else.
"""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from engine.errors import (
    AlreadyOut, AlreadyPassed, GameOver, IllegalAction, InvalidAction, InvalidRules,
    NotYourTurn, PresidentError, WrongPhase,
)
from services.errors import (
    BadKey, BadRequest, BadToken, GameFull, GameNotFound, GameSeeded, HintsForbidden, InviteNotFound,
    KeyNotFound,
    KeyRequired, KeyReused, MissingScope, NotActive, NotHost, NotStarted, NotWaiting,
    PlayerNotFound, QuotaExceeded, ReviewNotFound, RoundNotOver, SeriesNotOver, ServiceError,
    StaleVersion, TicketExists,
    TicketNotFound, TicketNotWaiting, TooManyStreams, TooManyWebhooks, Unavailable,
    WebhookNotFound,
)

PROBLEM_JSON = "application/problem+json"

# Most specific first.
STATUS: list[tuple[type[Exception], int]] = [
    (GameNotFound, 404), (KeyNotFound, 404), (WebhookNotFound, 404), (InviteNotFound, 404),
    (PlayerNotFound, 404), (NotHost, 403), (HintsForbidden, 403), (GameFull, 409), (NotWaiting, 409),
    (NotStarted, 409), (NotActive, 409), (GameSeeded, 409), (SeriesNotOver, 409), (RoundNotOver, 409),
    (ReviewNotFound, 404), (TicketNotFound, 404),
    (TicketExists, 409), (TicketNotWaiting, 409),
    (BadToken, 401), (KeyRequired, 401),
    (BadKey, 401), (MissingScope, 403), (StaleVersion, 409), (KeyReused, 422),
    (QuotaExceeded, 429), (TooManyStreams, 429), (TooManyWebhooks, 409),
    (Unavailable, 503),
    (BadRequest, 400),
    (InvalidRules, 400), (InvalidAction, 400),
    (AlreadyPassed, 409), (AlreadyOut, 409), (NotYourTurn, 409), (GameOver, 409),
    (WrongPhase, 409), (IllegalAction, 422),
]


# What the HTTP layer answers itself, before any handler runs (and the readiness probe).
HTTP_CODES = {400: "bad_request", 401: "unauthorized", 404: "not_found",
              405: "method_not_allowed", 413: "body_too_large", 415: "unsupported_media_type"}
REQUEST_CODES = {"invalid_body": 400, "invalid_query": 400, "malformed_body": 400,
                 "rate_limited": 429, "not_ready": 503}


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    body = {"type": f"urn:president:problem:{code}", "title": title, "status": status,
            "detail": detail, "code": code, **extra}
    response = jsonify(body)
    response.status_code = status
    response.mimetype = PROBLEM_JSON
    return response


def from_error(error: PresidentError | ServiceError) -> Response:
    status = next(s for kind, s in STATUS if isinstance(error, kind))
    title = type(error).__name__
    response = problem(status, error.code, title, error.message)
    if isinstance(error, Unavailable):
        response.headers["Retry-After"] = "1"
    return response
