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
lease), and counts them out in memory (docs/decisions/performance-0006-*).
"""

from __future__ import annotations

import functools
import logging
import math
import re
import threading
import time
from typing import NamedTuple

from apiflask import APIFlask
from flask import Response, current_app, request
from limits import RateLimitItem, parse
from limits.storage import Storage, storage_from_string

from config.settings import defaulted
from services.api.auth import Keys, bearer_token
from services.api.problems import problem
from services.container import Container
from services.domain import Caller, hash_token
from services.errors import BadToken
from services.handlers.common import accountable
from services.versioned import VersionedCache

log = logging.getLogger(__name__)
LEASE_SHARE = 50  # a lease is at most 1/50 of a window's allowance...
LEASE_MAX = 100  # ...and at most this many requests
HELD_MAX = 4096  # windows a process keeps leases for (past it, it forgets them all)
MALFORMED = "this is no seat token: send one as 'Authorization: Bearer <token>'"
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)


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
    leases = None if storage == "off" else _leases(storage)
    app.extensions["president.leases"] = leases
    app.extensions["president.accountable"] = VersionedCache(HELD_MAX)
    rates = {"key": defaulted("PRESIDENT_RATE_KEY"), "token": defaulted("PRESIDENT_RATE_TOKEN"),
             "address": defaulted("PRESIDENT_RATE_ANONYMOUS")}
    for rate in rates.values():
        _parsed(rate)  # a setting that is no rate stops the start (ValueError), not a request

    @app.before_request
    def count() -> Response | None:
        if not request.path.startswith("/v1/"):
            return None
        return _count(leases, keys, rates)


def _leases(storage: str) -> Leases:
    counts = storage_from_string(storage)
    if not isinstance(counts, Storage):  # (an ``async+…`` URI: not for a WSGI app)
        raise ValueError(f"PRESIDENT_RATE_STORAGE: {storage!r} is not a synchronous storage")
    return Leases(counts)


def _count(leases: Leases | None, keys: Keys, rates: dict[str, str]) -> Response | None:
    """A request counted under its live key; else under its address (a ceiling over all
    its unauthenticated and token traffic), then its token, then the key owning the
    game the token holds a seat of. A malformed token is refused before any of it is
    read; a well-formed one is looked up only within the address's limit."""
    token = bearer_token()
    malformed = "Authorization" in request.headers and not well_formed(token)
    client, key = keys.client()
    if key is not None and not malformed:
        return _counted(leases, client, _parsed(key.rate or rates["key"]))
    refused = _counted(leases, f"address:{request.remote_addr}", _parsed(rates["address"]))
    if refused is not None:
        return refused
    if malformed:
        raise BadToken(MALFORMED)
    if token is None:
        return None
    refused = _counted(leases, f"token:{hash_token(token)[:32]}", _parsed(rates["token"]))
    game_id = (request.view_args or {}).get("game_id")
    if refused is not None or leases is None or not isinstance(game_id, str):
        return refused  # (with no counts kept, nothing to look up for the owner's)
    owner, seat = accountable_here(game_id, token)
    if owner is None or seat is None:  # (a token of no seat here: the route refuses it)
        return None
    return _counted(leases, f"key:{owner}", _parsed(keys.rate_of(owner) or rates["key"]))


def well_formed(token: str | None) -> bool:
    """Whether ``token`` could be a seat token at all (``new_token``'s shape)."""
    return token is not None and TOKEN_SHAPE.fullmatch(token) is not None


def within(client: str, rate: str) -> Response | None:
    """A route's own limit beside the general one (hints: per seat, per key): None
    while ``client`` is within ``rate``, else the 429."""
    return _counted(current_app.extensions.get("president.leases"), client, _parsed(rate))


def per_seat_and_owner(route: str, game_id: str, token: str | None, caller: Caller,
                       seat_rate: str, owner_rate: str) -> Response | None:
    """A route's limits per seat of ``game_id`` (the token's, at ``seat_rate``: the seat,
    not the token, so leaving and joining again starts no new count) and per key owning
    the game (at ``owner_rate``), each counted in turn: the first refusal, or None. A
    caller with neither the game's key nor one of its seats is counted against nobody
    (the route refuses it): nobody spends another's allowance."""
    owner, seat = accountable_here(game_id, token)
    own = caller.key is not None and caller.key.id == owner
    refused = None
    if seat is not None:
        refused = within(f"{route}-seat:{game_id}:{seat}", seat_rate)
    if refused is None and owner is not None and (seat is not None or own):
        refused = within(f"{route}-key:{owner}", owner_rate)
    return refused


def accountable_here(game_id: str, token: str | None) -> tuple[str | None, int | None]:
    """``handlers.common.accountable`` (the game's owner key, the token's seat), a
    token's seat remembered once found (a token opens one seat of one game for good, or
    nothing; its owner never changes): one read the first time, none after."""
    if token is None:
        return accountable(_services().reads, game_id, None)
    found: VersionedCache[tuple[str, str], tuple[str | None, int]] = \
        current_app.extensions["president.accountable"]
    key = (game_id, hash_token(token))
    held = found.get(key)
    if held is not None:
        return held
    owner, seat = accountable(_services().reads, game_id, token)
    if seat is not None:
        found.put(key, (owner, seat))
    return owner, seat


def _services() -> Container:
    return current_app.extensions["president"]  # type: ignore[no-any-return]


def _counted(leases: Leases | None, client: str, rate: RateLimitItem) -> Response | None:
    """One request of ``client`` counted under ``rate``: None within it, else the 429
    (None too with no ``leases``: PRESIDENT_RATE_STORAGE=off)."""
    if leases is None:
        return None
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
