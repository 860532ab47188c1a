"""Rate limits on ``/v1`` (Flask-Limiter, fixed windows): per client key, else per seat
token, else per client address, each with its own rate (a key may carry its own). The
counters live where ``PRESIDENT_RATE_STORAGE`` says: in memory on the embedded default,
on Redis where ``deploy/`` runs (every API process then shares them); ``off``: none.

Past the limit: ``429`` problem+json ``rate_limited`` with ``Retry-After`` and where the
caller stands (``RateLimit-Limit``, ``RateLimit-Remaining``, ``RateLimit-Reset`` in
seconds). A storage that fails lets requests
through (logged): the limits protect the service, they must not take it down.
"""

from __future__ import annotations

import math
import time

from apiflask import APIFlask
from flask import Response, g, request
from flask_limiter import Limiter, RateLimitExceeded, RequestLimit
from werkzeug.wrappers import Response as WerkzeugResponse

from config.settings import defaulted
from services.api.auth import Keys
from services.api.problems import problem


def install(app: APIFlask, keys: Keys) -> Limiter | None:
    storage = defaulted("PRESIDENT_RATE_STORAGE")
    if storage == "off":
        return None
    rates = {"key": defaulted("PRESIDENT_RATE_KEY"), "token": defaulted("PRESIDENT_RATE_TOKEN"),
             "address": defaulted("PRESIDENT_RATE_ANONYMOUS")}

    def bucket() -> tuple[str, str]:
        """(the counter's name, its rate) for this request, worked out once."""
        found: tuple[str, str] | None = g.get("rate_bucket")
        if found is None:
            found = g.rate_bucket = _bucket(keys, rates)
        return found

    limiter = Limiter(lambda: bucket()[0], app=app, default_limits=[lambda: bucket()[1]],
                      default_limits_exempt_when=lambda: not request.path.startswith("/v1/"),
                      storage_uri=storage, strategy="fixed-window", headers_enabled=False,
                      swallow_errors=True, on_breach=_too_many, key_prefix="president")

    @app.errorhandler(RateLimitExceeded)
    def refused(error: RateLimitExceeded) -> WerkzeugResponse:
        return error.get_response()  # the problem ``_too_many`` made

    return limiter


def _bucket(keys: Keys, rates: dict[str, str]) -> tuple[str, str]:
    client, key = keys.client()
    kind = client.partition(":")[0]
    return client, (key.rate if key is not None and key.rate else rates[kind])


def _seconds_to(limit: RequestLimit) -> int:
    return max(1, math.ceil(limit.reset_at - time.time()))


def _too_many(limit: RequestLimit) -> Response:
    """The 429, saying where the caller stands. (Only here: reading a counter's window
    for every answer would cost each request another round trip to the storage.)"""
    wait = _seconds_to(limit)
    response = problem(429, "rate_limited", "Too many requests",
                       f"over {limit.limit}: try again in {wait} s")
    response.headers.extend([("Retry-After", str(wait)),
                             ("RateLimit-Limit", str(limit.limit.amount)),
                             ("RateLimit-Remaining", str(max(0, limit.remaining))),
                             ("RateLimit-Reset", str(wait))])
    return response
