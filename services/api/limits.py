"""Rate limits on ``/v1`` (fixed windows, on the ``limits`` library's storages): per
client key, else per seat token, else per client address, each with its own rate (a key
may carry its own). The counters live where ``PRESIDENT_RATE_STORAGE`` says: in memory on
the embedded default, on Redis where ``deploy/`` runs (every API process then shares
them); ``off``: none.

Past the limit: ``429`` problem+json ``rate_limited`` with ``Retry-After`` and where the
caller stands (``RateLimit-Limit``, ``RateLimit-Remaining``, ``RateLimit-Reset`` in
seconds). A storage that fails lets requests through (logged): the limits protect the
service, they must not take it down.

Why not Flask-Limiter, and why leases: the extension's per-request machinery cost a view
about 360 µs of CPU, more than the view itself, and one Redis call a request about 200 µs
more (redis-py's client around one ``EVALSHA``). So a process takes its requests from the
shared count in leases of up to a fiftieth of a window's allowance (one Redis call per
lease), and counts them out in memory (docs/performance.md has the figures).
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import time
from typing import NamedTuple

from apiflask import APIFlask
from flask import Response, current_app, request
from limits import RateLimitItem, parse
from limits.storage import Storage, storage_from_string

from config.settings import defaulted
from services.api.auth import Keys
from services.api.problems import problem
from services.domain import hash_token

log = logging.getLogger(__name__)
LEASE_SHARE = 50  # a lease is at most 1/50 of a window's allowance...
LEASE_MAX = 100  # ...and at most this many requests
HELD_MAX = 4096  # windows a process keeps leases for (past it, it forgets them all)


class Window(NamedTuple):
    """One client's count under one rate in one fixed window (aligned to the clock)."""

    client: str
    rate: RateLimitItem
    number: int  # time // the window's length

    def key(self) -> str:
        return f"president/{self.client}/{self.rate.key_for()}/{self.number}"

    def ends_in(self, now: float) -> int:
        """Seconds until the next window, at least 1."""
        return max(1, math.ceil((self.number + 1) * self.rate.get_expiry() - now))


class Leases:
    """Counts requests against a storage shared by every process, a lease at a time: a
    process reserves up to ``lease`` requests with one call and hands them out from
    memory. What a process reserved and did not use is lost to the others for that
    window (at most a fiftieth of the allowance per process): the count errs on the
    strict side, never past the limit."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._held: dict[Window, int] = {}  # requests still leased; -1: the window is full
        self._lock = threading.Lock()

    def hit(self, window: Window) -> bool:
        with self._lock:
            held = self._held.get(window, 0)
            if held:
                if held > 0:
                    self._held[window] = held - 1
                return held > 0
        limit = window.rate.amount
        lease = max(1, min(LEASE_MAX, limit // LEASE_SHARE))
        reserved = self._storage.incr(window.key(), window.rate.get_expiry(), amount=lease)
        granted = min(lease, limit - (reserved - lease))  # the part within the limit
        with self._lock:
            if len(self._held) >= HELD_MAX:
                self._held.clear()
            self._held[window] = self._held.get(window, 0) + granted - 1 if granted > 0 else -1
        return granted > 0


def install(app: APIFlask, keys: Keys) -> None:
    storage = defaulted("PRESIDENT_RATE_STORAGE")
    if storage == "off":
        return
    counts = storage_from_string(storage)
    if not isinstance(counts, Storage):  # (an ``async+…`` URI: not for a WSGI app)
        raise ValueError(f"PRESIDENT_RATE_STORAGE: {storage!r} is not a synchronous storage")
    leases = app.extensions["president.leases"] = Leases(counts)
    rates = {"key": defaulted("PRESIDENT_RATE_KEY"), "token": defaulted("PRESIDENT_RATE_TOKEN"),
             "address": defaulted("PRESIDENT_RATE_ANONYMOUS")}
    for rate in rates.values():
        _parsed(rate)  # a setting that is no rate stops the start (ValueError), not a request

    @app.before_request
    def count() -> Response | None:
        if not request.path.startswith("/v1/"):
            return None
        client, key = keys.client()
        return _counted(leases, client, _parsed(key.rate if key is not None and key.rate
                                                else rates[client.partition(":")[0]]))


def within(client: str, rate: str) -> Response | None:
    """A route's own limit beside the general one (hints: per seat, per key): None
    while ``client`` is within ``rate``, else the 429."""
    leases: Leases | None = current_app.extensions.get("president.leases")
    if leases is None:  # (PRESIDENT_RATE_STORAGE=off)
        return None
    return _counted(leases, client, _parsed(rate))


def per_seat_and_key(route: str, token: str | None, key_id: str | None, seat_rate: str,
                     key_rate: str) -> Response | None:
    """A route's limits per seat (the token's, if any, at ``seat_rate``) and per client
    key (if any, at ``key_rate``), each counted in turn: the first refusal, or None."""
    refused = None
    if token is not None:
        refused = within(f"{route}-seat:{hash_token(token)[:32]}", seat_rate)
    if refused is None and key_id is not None:
        refused = within(f"{route}-key:{key_id}", key_rate)
    return refused


def _counted(leases: Leases, client: str, rate: RateLimitItem) -> Response | None:
    """One request of ``client`` counted under ``rate``: None within it, else the 429."""
    now = time.time()
    window = Window(client, rate, int(now // rate.get_expiry()))
    try:
        return None if leases.hit(window) else _too_many(window, now)
    except Exception:  # noqa: BLE001 (whatever the storage's client raises)
        log.warning("rate limit storage failed: request let through", exc_info=True)
        return None


@functools.lru_cache(maxsize=256)
def _parsed(rate: str) -> RateLimitItem:
    return parse(rate)


def _too_many(window: Window, now: float) -> Response:
    """The 429, saying where the caller stands. (Only here: the remaining count is
    known exactly only once it is zero.)"""
    wait = window.ends_in(now)
    response = problem(429, "rate_limited", "Too many requests",
                       f"over {window.rate}: try again in {wait} s")
    response.headers.extend([("Retry-After", str(wait)),
                             ("RateLimit-Limit", str(window.rate.amount)),
                             ("RateLimit-Remaining", "0"),
                             ("RateLimit-Reset", str(wait))])
    return response
